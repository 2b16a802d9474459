// SPDX-License-Identifier: Apache-2.0
//
// fuzz_tcp_store: the rendezvous store's message handling (lib/collectives/tcp_store_protocol)
// driven by a script: raw connections that send arbitrary bytes, ranks that follow the protocol
// (with the job's key or another one, the right world size or not), closes, drops, the round's
// deadline, and altered bytes on the way back to a rank. Invariants checked after every step:
// - a raw connection never authenticates and never receives more than rank 0's challenge;
// - a rank with another key never authenticates and never gets a result;
// - the round ends only through ranks that proved the key, or the deadline;
// - a completed round holds, for every rank, the blob of a rank that proved the key, and every
//   rank that gets a result gets exactly that.
//
// Script (bytes): world size 2 + b0 % 4, rank 0's blob limit b1 % 65, then operations
// (op = byte % 8): 0 open a raw connection; 1 k n data: n raw bytes on connection k; 2 b n data:
// a rank joins (rank b % (size + 1); bit 4: another world size; bit 5: another key) with an
// n % (limit + 8)-byte blob; 3 k n: pump connection k (n bytes of its output to rank 0, all of
// rank 0's answer back); 4 k: the peer closes; 5 k: rank 0 drops it; 6: the deadline; 7 k p:
// pump with byte p of rank 0's answer flipped.
#include "collectives/tcp_store_protocol.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace st = trainer::collectives::detail::store;

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "fuzz_tcp_store: invariant violated: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) violated(what);
}

class Script {
 public:
  Script(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  [[nodiscard]] bool done() const { return at_ >= size_; }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::string bytes(std::size_t n) {
    n = std::min(n, size_ - at_);
    std::string s(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return s;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

st::Nonce nonce_of(std::uint64_t n) {
  st::Nonce out{};
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(n >> (8 * i));
  return out;
}

struct Conn {
  st::ConnId id = 0;
  bool raw = true;
  bool right_key = false;
  int rank = 0;
  std::string blob;
  std::optional<st::ClientSession> client;
  std::string to_server;     // the rank's bytes not yet delivered
  std::string from_server;   // rank 0's bytes not yet delivered
  std::size_t received = 0;  // every byte rank 0 ever sent here
  bool closed = false;
};

class Harness {
 public:
  Harness(int size, std::size_t limit)
      : size_(size),
        limit_(limit),
        key_(st::derive_key("the-job-secret-for-fuzzing")),
        other_key_(st::derive_key("another-secret-for-fuzzing")),
        round_(st::RoundConfig{size, key_, limit, "fuzz:1", "blob-of-rank-0"}) {}

  void run(Script& s) {
    while (!s.done()) {
      switch (s.byte() % 8) {
        case 0: open_raw(); break;
        case 1: {
          Conn* c = pick(s);
          const std::string data = s.bytes(s.byte());
          if (c != nullptr && !c->closed) apply(round_.receive(c->id, data));
          break;
        }
        case 2: join(s); break;
        case 3: pump(pick(s), s.byte(), std::nullopt); break;
        case 4:
          if (Conn* c = pick(s); c != nullptr && !c->closed) {
            c->closed = true;
            apply(round_.closed(c->id));
          }
          break;
        case 5:
          if (Conn* c = pick(s); c != nullptr) apply(round_.drop(c->id, "fuzz"));
          break;
        case 6:
          timed_out_ = true;
          apply(round_.timeout(std::chrono::milliseconds(1)));
          break;
        default: {
          Conn* c = pick(s);
          const std::uint8_t at = s.byte();
          pump(c, 0, at);
          break;
        }
      }
      check_invariants();
    }
    if (std::getenv("FUZZ_TCP_STORE_TRACE") != nullptr) trace();
  }

  // FUZZ_TCP_STORE_TRACE=1: what an input did (to check that a seed reaches what it is for).
  void trace() const {
    static constexpr const char* kStates[] = {"running", "complete", "failed"};
    std::fprintf(stderr, "world %d, limit %zu: round %s%s%s\n", size_, limit_,
                 kStates[static_cast<int>(round_.state())],
                 round_.state() == st::Round::State::kFailed ? ": " : "",
                 round_.state() == st::Round::State::kFailed ? round_.error().message.c_str() : "");
    for (const Conn& c : conns_) {
      std::string outcome = "none";
      if (c.client && c.client->outcome()) {
        outcome =
            c.client->outcome()->has_value() ? "result" : c.client->outcome()->error().message;
      }
      std::fprintf(stderr, "  conn %llu %s rank %d%s: received %zu bytes, outcome: %s\n",
                   static_cast<unsigned long long>(c.id), c.raw ? "raw" : "rank", c.rank,
                   c.raw || c.right_key ? "" : " (another key)", c.received, outcome.c_str());
    }
  }

 private:
  Conn* pick(Script& s) {
    if (conns_.empty()) {
      (void)s.byte();
      return nullptr;
    }
    return &conns_[s.byte() % conns_.size()];
  }

  Conn* find(st::ConnId id) {
    for (Conn& c : conns_) {
      if (c.id == id) return &c;
    }
    return nullptr;
  }

  void open_raw() {
    Conn c;
    c.id = ++next_id_;
    conns_.push_back(std::move(c));
    apply(round_.open(conns_.back().id, nonce_of(conns_.back().id), "raw"));
  }

  void join(Script& s) {
    const std::uint8_t b = s.byte();
    const std::string blob = s.bytes(s.byte() % (limit_ + 8));
    Conn c;
    c.id = ++next_id_;
    c.raw = false;
    c.rank = b % (size_ + 1);
    c.right_key = (b & 0x20U) == 0;
    c.blob = blob;
    const int size = (b & 0x10U) != 0 ? size_ + 1 : size_;
    c.client.emplace(
        st::ClientConfig{c.rank, size, c.right_key ? key_ : other_key_, 1024, "fuzz:1"},
        nonce_of(c.id + 0x10000), blob);
    c.to_server = c.client->hello();
    conns_.push_back(std::move(c));
    apply(round_.open(conns_.back().id, nonce_of(conns_.back().id), "rank"));
  }

  // Delivers up to n bytes (0: all) of the rank's output to rank 0, then rank 0's answer to
  // the rank (with byte `flip` altered when given).
  void pump(Conn* c, std::size_t n, std::optional<std::uint8_t> flip) {
    if (c == nullptr || c->raw) return;
    if (!c->closed && !c->to_server.empty()) {
      const std::size_t take = n == 0 ? c->to_server.size() : std::min(n, c->to_server.size());
      const std::string part = c->to_server.substr(0, take);
      c->to_server.erase(0, take);
      // Bytes after rank 0's proof checked out: the rank's AUTH, so it may authenticate (and
      // end the round in the same step).
      if (c->right_key && c->client->verified()) ever_authenticated_ = true;
      apply(round_.receive(c->id, part));
    }
    if (c->from_server.empty()) return;
    std::string in = std::move(c->from_server);
    c->from_server.clear();
    if (flip) in[*flip % in.size()] = static_cast<char>(in[*flip % in.size()] ^ 0x01);
    c->to_server += c->client->receive(in);
  }

  void apply(const st::Actions& actions) {
    for (const st::Action& a : actions) {
      if (a.kind == st::Action::Kind::kLog) {
        check(!a.text.empty(), "empty log line");
        continue;
      }
      Conn* c = find(a.conn);
      check(c != nullptr, "action on an unknown connection");
      if (a.kind == st::Action::Kind::kClose) {
        c->closed = true;
        continue;
      }
      check(!c->closed, "data for a closed connection");
      for (const st::Bytes& b : a.data) {
        c->from_server += *b;
        c->received += b->size();
      }
      if (c->raw || !c->right_key) {
        // Only the challenge: type 2, 64 bytes.
        check(c->received <= st::kFrameHeaderBytes + st::kChallengeBytes,
              "an unauthenticated peer received more than the challenge");
        check(static_cast<std::uint8_t>(c->from_server[0]) ==
                  static_cast<std::uint8_t>(st::FrameType::kChallenge),
              "an unauthenticated peer received something other than the challenge");
      }
    }
  }

  void check_invariants() {
    int authenticated_right = 0;
    for (const Conn& c : conns_) {
      const bool auth = round_.authenticated(c.id);
      if (c.raw || !c.right_key) {
        check(!auth, "a peer without the key authenticated");
      }
      if (auth) ++authenticated_right;
    }
    ever_authenticated_ = ever_authenticated_ || authenticated_right > 0;
    if (round_.state() != st::Round::State::kRunning && !timed_out_) {
      check(ever_authenticated_ || size_ == 1, "the round ended without an authenticated rank");
    }
    if (round_.state() == st::Round::State::kComplete) {
      const auto& blobs = round_.blobs();
      check(blobs.size() == static_cast<std::size_t>(size_), "result size");
      check(blobs[0] == "blob-of-rank-0", "rank 0's blob");
      for (int r = 1; r < size_; ++r) {
        bool from_a_rank = false;
        for (const Conn& c : conns_) {
          from_a_rank = from_a_rank || (!c.raw && c.right_key && c.rank == r &&
                                        c.blob == blobs[static_cast<std::size_t>(r)]);
        }
        check(from_a_rank, "a blob in the result that no authenticated rank sent");
      }
    }
    for (const Conn& c : conns_) {
      if (!c.client || !c.client->outcome() || !c.client->outcome()->has_value()) continue;
      check(c.right_key, "a rank with another key got a result");
      check(round_.state() == st::Round::State::kComplete, "a result before the round completed");
      check(**c.client->outcome() == round_.blobs(), "a rank got another result than rank 0's");
    }
  }

  int size_;
  std::size_t limit_ = 0;
  st::Key key_;
  st::Key other_key_;
  st::Round round_;
  std::vector<Conn> conns_;
  st::ConnId next_id_ = 0;
  bool timed_out_ = false;
  bool ever_authenticated_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Script s(data, size);
  const int world = 2 + s.byte() % 4;
  const std::size_t limit = s.byte() % 65;
  Harness h(world, limit);
  h.run(s);
  return 0;
}
