// SPDX-License-Identifier: Apache-2.0
// The rendezvous wire protocol without sockets: rank 0's Round and the ranks' ClientSession
// wired together in memory, and peers that do not know the secret or do not follow the protocol.
#include "collectives/tcp_store_protocol.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace st = trainer::collectives::detail::store;
using trainer::ErrorCode;

namespace {

const std::string kSecret = "0123456789abcdef-the-job-secret";

st::Nonce nonce(unsigned char seed) {
  st::Nonce n{};
  n.fill(seed);
  return n;
}

st::RoundConfig round_config(int size, std::string blob0 = "blob-0", std::size_t max_blob = 1024) {
  return st::RoundConfig{size, st::derive_key(kSecret), max_blob, "rank0:29500", std::move(blob0)};
}

st::ClientConfig client_config(int rank, int size, const std::string& secret = kSecret,
                               std::size_t max_blob = 1024) {
  return st::ClientConfig{rank, size, st::derive_key(secret), max_blob, "rank0:29500"};
}

std::string u64le(std::uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
  return s;
}

// Rank 0's Round and what it asked its driver to do, per connection.
struct Rank0 {
  st::Round round;
  std::map<st::ConnId, std::string> out;
  std::set<st::ConnId> closed;
  std::vector<std::string> logs;

  explicit Rank0(st::RoundConfig c) : round(std::move(c)) {}
  void apply(const st::Actions& actions) {
    for (const st::Action& a : actions) {
      switch (a.kind) {
        case st::Action::Kind::kSend:
          REQUIRE(closed.count(a.conn) == 0);
          for (const st::Bytes& b : a.data) out[a.conn] += *b;
          break;
        case st::Action::Kind::kClose: closed.insert(a.conn); break;
        case st::Action::Kind::kLog: logs.push_back(a.text); break;
      }
    }
  }
  void open(st::ConnId id) {
    apply(round.open(id, nonce(static_cast<unsigned char>(id)), "p" + std::to_string(id)));
  }
  void receive(st::ConnId id, std::string_view bytes) { apply(round.receive(id, bytes)); }
  std::string take(st::ConnId id) {
    std::string s = std::move(out[id]);
    out[id].clear();
    return s;
  }
  [[nodiscard]] bool logged(const std::string& needle) const {
    for (const auto& l : logs) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

// A rank joining over connection `id`: HELLO, CHALLENGE, AUTH + BLOB.
void join(Rank0& r0, st::ConnId id, st::ClientSession& c) {
  r0.open(id);
  r0.receive(id, c.hello());
  const std::string challenge = r0.take(id);
  r0.receive(id, c.receive(challenge));
}

std::string error_of(const st::ClientSession& c) {
  REQUIRE(c.outcome());
  REQUIRE_FALSE(c.outcome()->has_value());
  return c.outcome()->error().message;
}

}  // namespace

TEST_CASE("rendezvous protocol: three ranks exchange their blobs", "[collectives][store]") {
  Rank0 r0(round_config(3));
  st::ClientSession c1(client_config(1, 3), nonce(101), "one");
  st::ClientSession c2(client_config(2, 3), nonce(102), "");
  join(r0, 2, c2);
  CHECK(r0.round.state() == st::Round::State::kRunning);
  join(r0, 1, c1);
  REQUIRE(r0.round.state() == st::Round::State::kComplete);
  CHECK(r0.round.blobs() == std::vector<std::string>{"blob-0", "one", ""});
  for (auto* c : {&c1, &c2}) {
    const st::ConnId id = c == &c1 ? 1 : 2;
    CHECK(c->receive(r0.take(id)).empty());
    REQUIRE(c->outcome());
    REQUIRE(c->outcome()->has_value());
    CHECK(**c->outcome() == std::vector<std::string>{"blob-0", "one", ""});
    CHECK(r0.closed.count(id) == 1);
  }
  CHECK(r0.logs.empty());
}

TEST_CASE("rendezvous protocol: frames split at every byte", "[collectives][store]") {
  Rank0 r0(round_config(2));
  st::ClientSession c(client_config(1, 2), nonce(7), "split");
  r0.open(1);
  const std::string hello = c.hello();
  for (const char ch : hello) r0.receive(1, std::string_view(&ch, 1));
  std::string reply;
  for (const char ch : r0.take(1)) reply += c.receive(std::string_view(&ch, 1));
  REQUIRE(c.verified());
  for (const char ch : reply) r0.receive(1, std::string_view(&ch, 1));
  REQUIRE(r0.round.state() == st::Round::State::kComplete);
  for (const char ch : r0.take(1)) (void)c.receive(std::string_view(&ch, 1));
  REQUIRE(c.outcome());
  REQUIRE(c.outcome()->has_value());
  CHECK((**c.outcome())[1] == "split");
}

TEST_CASE("rendezvous protocol: a peer without the secret gets nothing and claims nothing",
          "[collectives][store]") {
  Rank0 r0(round_config(2));

  SECTION("a rank with another secret refuses rank 0 and sends no proof") {
    st::ClientSession wrong(client_config(1, 2, "another-secret-of-16+bytes"), nonce(9), "x");
    r0.open(1);
    r0.receive(1, wrong.hello());
    CHECK(wrong.receive(r0.take(1)).empty());  // no AUTH, no BLOB
    CHECK(error_of(wrong).find("failed to authenticate") != std::string::npos);
    CHECK(wrong.outcome()->error().code == ErrorCode::kInvalid);
    r0.apply(r0.round.closed(1));
    CHECK(r0.logged("closed the connection before authenticating"));
  }

  SECTION("a forged proof is dropped and logged; the real rank 1 still joins") {
    st::ClientSession forger(client_config(1, 2, "another-secret-of-16+bytes"), nonce(9), "x");
    r0.open(1);
    r0.receive(1, forger.hello());
    const std::string challenge = r0.take(1);
    CHECK(challenge.size() == st::kFrameHeaderBytes + st::kChallengeBytes);
    // AUTH with a made-up proof, and a blob behind it.
    std::string forged = st::frame_header(st::FrameType::kAuth, st::kMacBytes) +
                         std::string(st::kMacBytes, '\x42') +
                         st::frame_header(st::FrameType::kBlob, 40) + std::string(40, 'e');
    r0.receive(1, forged);
    CHECK(r0.closed.count(1) == 1);
    CHECK(r0.take(1).empty());  // nothing after the challenge
    CHECK(r0.logged("dropped peer p1: authentication failed (claimed rank 1)"));
    CHECK(r0.round.state() == st::Round::State::kRunning);
    st::ClientSession real(client_config(1, 2), nonce(8), "real");
    join(r0, 2, real);
    REQUIRE(r0.round.state() == st::Round::State::kComplete);
    CHECK(r0.round.blobs()[1] == "real");
  }
}

TEST_CASE("rendezvous protocol: unauthenticated input never ends the round",
          "[collectives][store]") {
  Rank0 r0(round_config(2));
  st::ClientSession legit(client_config(1, 2), nonce(3), "legit");
  const std::string hello = legit.hello();
  std::string bad_magic = hello;
  bad_magic[st::kFrameHeaderBytes] = 'X';
  std::string bad_version = hello;
  bad_version[st::kFrameHeaderBytes + 4] = 9;
  // A HELLO claiming another world size and an out-of-range rank, never authenticated.
  st::ClientSession wrong_size(client_config(1, 7, "another-secret-of-16+bytes"), nonce(4), "");
  st::ClientSession out_of_range(client_config(5, 2, "another-secret-of-16+bytes"), nonce(5), "");
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {"GET / HTTP/1.1\r\n\r\n", "unexpected unknown type 0x47 frame"},
      {"TRDV\x01\0\0\0", "unexpected unknown type 0x54 frame"},  // protocol version 1
      {st::frame_header(st::FrameType::kHello, std::uint64_t{1} << 40U), "HELLO frame of"},
      {st::frame_header(st::FrameType::kBlob, 10), "unexpected BLOB frame"},
      {st::frame_header(st::FrameType::kResult, 10), "unexpected RESULT frame"},
      {bad_magic, "without the TRDV magic"},
      {bad_version, "protocol version 9"},
      {hello + st::frame_header(st::FrameType::kBlob, 100), "unexpected BLOB frame"},
      {hello + hello, "unexpected HELLO frame"},
      {wrong_size.hello() + st::frame_header(st::FrameType::kAuth, 32) + std::string(32, 'a'),
       "authentication failed (claimed rank 1)"},
      {out_of_range.hello() + st::frame_header(st::FrameType::kAuth, 32) + std::string(32, 'a'),
       "authentication failed (claimed rank 5)"},
      {hello + st::frame_header(st::FrameType::kAuth, 33), "AUTH frame of 33 bytes"},
  };
  st::ConnId id = 10;
  for (const auto& [bytes, reason] : inputs) {
    INFO(reason);
    r0.open(id);
    r0.receive(id, bytes);
    CHECK(r0.closed.count(id) == 1);
    CHECK(r0.logged(reason));
    CHECK(r0.round.state() == st::Round::State::kRunning);
    const std::string sent = r0.take(id);
    // At most the challenge, never anything else.
    CHECK((sent.empty() || sent.size() == st::kFrameHeaderBytes + st::kChallengeBytes));
    ++id;
  }
  // A silent connection the driver gives up on, and one that closes.
  r0.open(id);
  r0.apply(r0.round.drop(id, "did not authenticate within 5000 ms"));
  CHECK(r0.logged("did not authenticate within 5000 ms"));
  r0.open(++id);
  r0.receive(id, hello.substr(0, 20));
  r0.apply(r0.round.closed(id));
  CHECK(r0.round.state() == st::Round::State::kRunning);
  CHECK(r0.round.connections() == 0);

  join(r0, 99, legit);
  REQUIRE(r0.round.state() == st::Round::State::kComplete);
  (void)legit.receive(r0.take(99));
  REQUIRE(legit.outcome());
  CHECK(legit.outcome()->has_value());
}

TEST_CASE("rendezvous protocol: an authenticated rank's mistakes reach every rank",
          "[collectives][store]") {
  Rank0 r0(round_config(3, "blob-0", 16));
  st::ClientSession first(client_config(1, 3, kSecret, 16), nonce(1), "first");
  join(r0, 1, first);
  REQUIRE(r0.round.state() == st::Round::State::kRunning);
  std::string expected;
  ErrorCode code = ErrorCode::kInvalid;

  SECTION("world size") {
    st::ClientSession c(client_config(2, 4, kSecret, 16), nonce(2), "");
    join(r0, 2, c);
    expected = "world size mismatch at rank0:29500: rank 2 has world size 4, rank 0 has 3";
  }
  SECTION("duplicate rank") {
    st::ClientSession c(client_config(1, 3, kSecret, 16), nonce(2), "");
    join(r0, 2, c);
    expected = "rendezvous at rank0:29500: rank 1 joined twice (world size 3; from p1 and p2)";
  }
  SECTION("rank out of range") {
    st::ClientSession c(client_config(3, 3, kSecret, 16), nonce(2), "");
    join(r0, 2, c);
    expected = "rendezvous at rank0:29500: rank 3 is out of range (world size 3)";
  }
  SECTION("blob above the limit") {
    st::ClientSession c(client_config(2, 3, kSecret, 1024), nonce(2), std::string(17, 'b'));
    join(r0, 2, c);
    expected = "rendezvous at rank0:29500: rank 2 sent 17 bytes, limit 16";
    code = ErrorCode::kLimit;
  }
  SECTION("the round's deadline") {
    r0.apply(r0.round.timeout(std::chrono::milliseconds(250)));
    expected = "rendezvous at rank0:29500 timed out after 250 ms: 1 of 3 ranks never joined: [2]";
    code = ErrorCode::kTimeout;
    REQUIRE(r0.round.state() == st::Round::State::kFailed);
    (void)first.receive(r0.take(1));
    CHECK(error_of(first) == "rank 0 ended the rendezvous: " + expected);
  }
  REQUIRE(r0.round.state() == st::Round::State::kFailed);
  CHECK(r0.round.error().message == expected);
  CHECK(r0.round.error().code == code);
  if (!first.outcome()) {
    (void)first.receive(r0.take(1));
    CHECK(error_of(first) == "rank 0 ended the rendezvous: " + expected);
    CHECK(first.outcome()->error().code == code);
  }
}

TEST_CASE("rendezvous protocol: a rank that goes away frees its rank", "[collectives][store]") {
  Rank0 r0(round_config(3));
  st::ClientSession a(client_config(1, 3), nonce(1), "old");
  join(r0, 1, a);
  r0.apply(r0.round.closed(1));
  CHECK(r0.logged("rank 1 (p1) closed the connection; its rank is free again"));
  st::ClientSession again(client_config(1, 3), nonce(2), "new");
  st::ClientSession b(client_config(2, 3), nonce(3), "b");
  join(r0, 2, again);
  join(r0, 3, b);
  REQUIRE(r0.round.state() == st::Round::State::kComplete);
  CHECK(r0.round.blobs()[1] == "new");
}

TEST_CASE("rendezvous protocol: altered frames are refused", "[collectives][store]") {
  Rank0 r0(round_config(2));
  st::ClientSession c(client_config(1, 2), nonce(1), "payload");
  r0.open(1);
  r0.receive(1, c.hello());
  std::string challenge = r0.take(1);

  SECTION("rank 0's proof") {
    challenge.back() = static_cast<char>(challenge.back() ^ 1);
    CHECK(c.receive(challenge).empty());
    CHECK(c.outcome()->error().code == ErrorCode::kInvalid);
  }
  SECTION("the blob") {
    std::string reply = c.receive(challenge);
    reply[st::kFrameHeaderBytes + st::kMacBytes + st::kFrameHeaderBytes] ^= 1;
    r0.receive(1, reply);
    CHECK(r0.logged("blob failed its integrity check"));
    CHECK(r0.round.state() == st::Round::State::kRunning);
  }
  SECTION("the result") {
    r0.receive(1, c.receive(challenge));
    std::string result = r0.take(1);
    result[st::kFrameHeaderBytes + 5] ^= 1;
    (void)c.receive(result);
    CHECK(error_of(c).find("failed its integrity check") != std::string::npos);
    CHECK(c.outcome()->error().code == ErrorCode::kIo);
  }
  SECTION("an error") {
    r0.receive(1, c.receive(challenge));  // completes the round: build an error round instead
    Rank0 other(round_config(3));
    st::ClientSession d(client_config(1, 3), nonce(1), "x");
    join(other, 1, d);
    other.apply(other.round.timeout(std::chrono::milliseconds(1)));
    std::string error = other.take(1);
    error[st::kFrameHeaderBytes + 6] ^= 1;
    (void)d.receive(error);
    CHECK(error_of(d).find("failed its integrity check") != std::string::npos);
  }
  SECTION("something that is not rank 0") {
    (void)c.receive("HTTP/1.1 400 Bad Request\r\n\r\n");
    CHECK(error_of(c).find("sent an invalid unknown type 0x48 frame") != std::string::npos);
  }
}

TEST_CASE("rendezvous protocol: keys", "[collectives][store]") {
  CHECK(st::derive_key("a-secret-of-16-bytes") == st::derive_key("a-secret-of-16-bytes"));
  CHECK(st::derive_key("a-secret-of-16-bytes") != st::derive_key("a-secret-of-16-bytez"));
  CHECK(st::fallback_secret("job-node-0-0.job", 29500) !=
        st::fallback_secret("job-node-0-0.job", 29501));
  CHECK(st::fallback_secret("a", 1) != st::fallback_secret("b", 1));
  // The secret never appears on the wire.
  st::ClientSession c(client_config(1, 2), nonce(1), "payload");
  Rank0 r0(round_config(2));
  r0.open(1);
  r0.receive(1, c.hello());
  const std::string challenge = r0.take(1);
  const std::string reply = c.receive(challenge);
  for (const std::string* wire : {&challenge, &reply}) {
    CHECK(wire->find(kSecret) == std::string::npos);
    const st::Key k = st::derive_key(kSecret);
    CHECK(wire->find(std::string(reinterpret_cast<const char*>(k.data()), k.size())) ==
          std::string::npos);
  }
}

TEST_CASE("rendezvous protocol: frame reader", "[collectives][store]") {
  st::FrameReader::Rules rules{};
  rules[static_cast<std::size_t>(st::FrameType::kAuth)] = {2, 4, true};
  st::FrameReader r;
  r.append(st::frame_header(st::FrameType::kAuth, 3).substr(0, 5));
  CHECK(r.next(rules).status == st::FrameReader::Status::kNeedMore);
  r.append(st::frame_header(st::FrameType::kAuth, 3).substr(5) + "ab");
  CHECK(r.next(rules).status == st::FrameReader::Status::kNeedMore);
  r.append("c");
  auto n = r.next(rules);
  REQUIRE(n.status == st::FrameReader::Status::kFrame);
  CHECK(n.payload == "abc");
  CHECK(r.buffered() == 0);
  // The length is refused from the header alone, before any payload is buffered.
  st::FrameReader big;
  big.append(std::string(1, static_cast<char>(st::FrameType::kAuth)) + u64le(5));
  CHECK(big.next(rules).status == st::FrameReader::Status::kBadLength);
  st::FrameReader type;
  type.append("\x05");
  CHECK(type.next(rules).status == st::FrameReader::Status::kBadType);
}
