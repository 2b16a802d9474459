// SPDX-License-Identifier: Apache-2.0
// The rendezvous wire protocol (see tcp_store_protocol.hpp): framing, proofs and the state of
// one round. No sockets, clocks or randomness here.
#include "collectives/tcp_store_protocol.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <utility>

namespace trainer::collectives::detail::store {
namespace {

constexpr char kMagic[4] = {'T', 'R', 'D', 'V'};
constexpr std::string_view kKeyLabel = "libtrainer rendezvous v2 key";
constexpr std::string_view kServerLabel{"server\0", 7};
constexpr std::string_view kClientLabel{"client\0", 7};
constexpr std::string_view kSessionLabel{"session\0", 8};
constexpr std::string_view kBlobLabel{"blob\0", 5};
constexpr std::string_view kResultLabel{"result\0", 7};
constexpr std::string_view kErrorLabel{"error\0", 6};

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
}
std::uint64_t get_le(std::string_view p, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[at + static_cast<std::size_t>(i)]))
         << (8 * i);
  }
  return v;
}

std::string_view view(const Nonce& n) {
  return {reinterpret_cast<const char*>(n.data()), n.size()};
}

EVP_MAC* hmac_algorithm() {
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}

// HMAC-SHA256 of the concatenated parts. False when OpenSSL fails (out of memory): callers
// treat that as a failed check, never as a match.
bool hmac(std::string_view key, std::initializer_list<std::string_view> parts, Key* out) {
  EVP_MAC* mac = hmac_algorithm();
  if (mac == nullptr) return false;
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  if (ctx == nullptr) return false;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  bool ok = EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(),
                         params) == 1;
  for (const std::string_view part : parts) {
    ok = ok &&
         EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(part.data()), part.size()) == 1;
  }
  std::size_t len = 0;
  ok = ok && EVP_MAC_final(ctx, out->data(), &len, out->size()) == 1 && len == out->size();
  EVP_MAC_CTX_free(ctx);
  return ok;
}

bool hmac(const Key& key, std::initializer_list<std::string_view> parts, Key* out) {
  return hmac(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()), parts, out);
}

bool sha256(std::string_view data, Key* out) {
  unsigned int len = 0;
  return EVP_Digest(data.data(), data.size(), out->data(), &len, EVP_sha256(), nullptr) == 1 &&
         len == out->size();
}

// Constant-time check of a received MAC against the one computed over the parts.
bool verify(const Key& key, std::initializer_list<std::string_view> parts,
            std::string_view received) {
  Key expected{};
  if (received.size() != expected.size() || !hmac(key, parts, &expected)) return false;
  return CRYPTO_memcmp(expected.data(), received.data(), expected.size()) == 0;
}

std::string as_string(const Key& k) {
  return {reinterpret_cast<const char*>(k.data()), k.size()};
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    return std::numeric_limits<std::uint64_t>::max();
  }
  return a * b;
}

FrameReader::Rules rules(std::initializer_list<std::pair<FrameType, FrameReader::Rule>> list) {
  FrameReader::Rules r{};
  for (const auto& [type, rule] : list) r[static_cast<std::size_t>(type)] = rule;
  return r;
}

FrameReader::Rule exactly(std::uint64_t n) {
  return {n, n, true};
}
FrameReader::Rule between(std::uint64_t lo, std::uint64_t hi) {
  return {lo, hi, true};
}

std::string type_text(std::uint8_t t) {
  static constexpr const char* kNames[] = {"?",    "HELLO",  "CHALLENGE", "AUTH",
                                           "BLOB", "RESULT", "ERROR"};
  if (t >= 1 && t <= 6) return kNames[t];
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", t);
  return std::string("unknown type ") + hex;
}

void add(Actions& out, Actions more) {
  for (Action& a : more) out.push_back(std::move(a));
}

Bytes shared(std::string s) {
  return std::make_shared<const std::string>(std::move(s));
}

Action send(ConnId id, std::vector<Bytes> data) {
  Action a;
  a.kind = Action::Kind::kSend;
  a.conn = id;
  a.data = std::move(data);
  return a;
}
Action close(ConnId id, bool flush, std::string who = {}) {
  Action a;
  a.kind = Action::Kind::kClose;
  a.conn = id;
  a.flush = flush;
  a.text = std::move(who);
  return a;
}
Action log(std::string text) {
  Action a;
  a.kind = Action::Kind::kLog;
  a.text = std::move(text);
  return a;
}

}  // namespace

Key derive_key(std::string_view secret) {
  Key k{};
  if (!hmac(secret, {kKeyLabel}, &k)) {
    // Out of memory in OpenSSL: a random-looking key nobody shares fails every proof (closed).
    k.fill(0xA5);
    k[0] = static_cast<unsigned char>(secret.size() & 0xFFU);
  }
  return k;
}

std::string fallback_secret(std::string_view host, std::uint16_t port) {
  std::string s("libtrainer rendezvous fallback secret\0", 38);
  s.append(host.data(), host.size());
  s.push_back('\0');
  s += std::to_string(port);
  return s;
}

std::string frame_header(FrameType type, std::uint64_t length) {
  std::string h(1, static_cast<char>(type));
  put_u64(h, length);
  return h;
}

void FrameReader::append(std::string_view bytes) {
  if (start_ == buf_.size()) {
    buf_.clear();
    start_ = 0;
  } else if (start_ > 4096 && start_ > buf_.size() / 2) {
    buf_.erase(0, start_);
    start_ = 0;
  }
  buf_.append(bytes.data(), bytes.size());
}

FrameReader::Next FrameReader::next(const Rules& rules) {
  Next n;
  const std::string_view rest = std::string_view(buf_).substr(start_);
  if (rest.empty()) return n;
  n.raw_type = static_cast<std::uint8_t>(rest[0]);
  if (n.raw_type >= rules.size() || !rules[n.raw_type].allowed) {
    n.status = Status::kBadType;
    return n;
  }
  n.type = static_cast<FrameType>(n.raw_type);
  if (rest.size() < kFrameHeaderBytes) return n;
  n.length = get_le(rest, 1, 8);
  const Rule& rule = rules[n.raw_type];
  if (n.length < rule.min || n.length > rule.max) {
    n.status = Status::kBadLength;
    return n;
  }
  if (rest.size() - kFrameHeaderBytes < n.length) {
    // The length is within the rule: make room for the whole frame once.
    buf_.reserve(start_ + kFrameHeaderBytes + static_cast<std::size_t>(n.length));
    return n;
  }
  n.status = Status::kFrame;
  n.payload = rest.substr(kFrameHeaderBytes, static_cast<std::size_t>(n.length));
  start_ += kFrameHeaderBytes + static_cast<std::size_t>(n.length);
  return n;
}

// ---------------------------------------------------------------------------------- rank 0

Round::Round(RoundConfig config)
    : config_(std::move(config)),
      blobs_(static_cast<std::size_t>(std::max(config_.size, 1))),
      claim_(static_cast<std::size_t>(std::max(config_.size, 1)), 0),
      joined_(static_cast<std::size_t>(std::max(config_.size, 1)), false) {
  blobs_[0] = std::move(config_.blob);
  joined_[0] = true;
  if (config_.size <= 1) complete();
}

bool Round::authenticated(ConnId id) const {
  const auto it = conns_.find(id);
  return it != conns_.end() &&
         (it->second.phase == Phase::kBlob || it->second.phase == Phase::kJoined);
}

Actions Round::open(ConnId id, const Nonce& server_nonce, std::string peer) {
  if (state_ != State::kRunning) return {close(id, false)};
  Conn c;
  c.peer = std::move(peer);
  c.server_nonce = server_nonce;
  conns_.erase(id);
  conns_.emplace(id, std::move(c));
  return {};
}

Actions Round::receive(ConnId id, std::string_view bytes) {
  Actions out;
  auto it = conns_.find(id);
  if (state_ != State::kRunning || it == conns_.end()) return out;
  it->second.reader.append(bytes);
  while (state_ == State::kRunning) {
    it = conns_.find(id);
    if (it == conns_.end()) break;
    Conn& c = it->second;
    FrameReader::Rules r{};
    switch (c.phase) {
      case Phase::kHello: r = rules({{FrameType::kHello, exactly(kHelloBytes)}}); break;
      case Phase::kAuth: r = rules({{FrameType::kAuth, exactly(kMacBytes)}}); break;
      case Phase::kBlob:
        r = rules({{FrameType::kBlob,
                    between(kMacBytes, saturating_add(config_.max_blob_bytes, kMacBytes))}});
        break;
      case Phase::kJoined: break;  // nothing more is expected from a rank that joined
    }
    const FrameReader::Next n = c.reader.next(r);
    if (n.status == FrameReader::Status::kNeedMore) break;
    if (n.status == FrameReader::Status::kBadType) {
      add(out, drop_conn(id, "unexpected " + type_text(n.raw_type) + " frame" +
                                 (c.phase == Phase::kHello
                                      ? " (not a libtrainer rendezvous peer, or another version)"
                                      : "")));
      break;
    }
    if (n.status == FrameReader::Status::kBadLength) {
      if (c.phase == Phase::kBlob && n.length > kMacBytes) {
        // An authenticated rank with a blob above the limit: a clear error for everyone.
        add(out, fail_round(Error(ErrorCode::kLimit,
                                  "rendezvous at " + config_.endpoint + ": rank " +
                                      std::to_string(c.rank) + " sent " +
                                      std::to_string(n.length - kMacBytes) + " bytes, limit " +
                                      std::to_string(config_.max_blob_bytes))));
      } else {
        add(out, drop_conn(id, type_text(n.raw_type) + " frame of " + std::to_string(n.length) +
                                   " bytes"));
      }
      break;
    }
    // The payload lives in the connection's reader: handle() reads it only before it drops
    // the connection or ends the round.
    add(out, handle(id, c, n.type, n.payload));
  }
  return out;
}

Actions Round::handle(ConnId id, Conn& c, FrameType type, std::string_view payload) {
  switch (type) {
    case FrameType::kHello: {
      if (payload.substr(0, 4) != std::string_view(kMagic, 4)) {
        return drop_conn(id, "HELLO without the TRDV magic (not a libtrainer rendezvous peer)");
      }
      const std::uint64_t version = get_le(payload, 4, 4);
      if (version != kVersion) {
        return drop_conn(id, "speaks rendezvous protocol version " + std::to_string(version) +
                                 ", this rank 0 speaks version " + std::to_string(kVersion));
      }
      c.hello = std::string(payload);
      Key proof{};
      if (!hmac(config_.key, {kServerLabel, c.hello, view(c.server_nonce)}, &proof) ||
          !hmac(config_.key, {kSessionLabel, c.hello, view(c.server_nonce)}, &c.session)) {
        return drop_conn(id, "cannot compute the proof (OpenSSL failed)");
      }
      c.phase = Phase::kAuth;
      std::string challenge = frame_header(FrameType::kChallenge, kChallengeBytes);
      challenge += view(c.server_nonce);
      challenge += as_string(proof);
      return {send(id, {shared(std::move(challenge))})};
    }
    case FrameType::kAuth: {
      const auto claimed = static_cast<std::int64_t>(get_le(c.hello, 8, 4));
      const auto size = static_cast<std::int64_t>(get_le(c.hello, 12, 4));
      if (!verify(config_.key, {kClientLabel, c.hello, view(c.server_nonce)}, payload)) {
        return drop_conn(id, "authentication failed (claimed rank " + std::to_string(claimed) +
                                 "): it does not know this job's rendezvous secret");
      }
      c.phase = Phase::kBlob;  // authenticated: from here on its errors reach everyone
      c.rank = -1;
      const std::string ep = config_.endpoint;
      if (size != config_.size) {
        return fail_round(Error(ErrorCode::kInvalid, "world size mismatch at " + ep + ": rank " +
                                                         std::to_string(claimed) +
                                                         " has world size " + std::to_string(size) +
                                                         ", rank 0 has " +
                                                         std::to_string(config_.size)));
      }
      if (claimed <= 0 || claimed >= config_.size) {
        return fail_round(Error(ErrorCode::kInvalid, "rendezvous at " + ep + ": rank " +
                                                         std::to_string(claimed) +
                                                         " is out of range (world size " +
                                                         std::to_string(config_.size) + ")"));
      }
      const auto r = static_cast<std::size_t>(claimed);
      if (claim_[r] != 0) {
        const auto other = conns_.find(claim_[r]);
        const std::string first = other != conns_.end() ? other->second.peer : "?";
        return fail_round(Error(ErrorCode::kInvalid,
                                "rendezvous at " + ep + ": rank " + std::to_string(claimed) +
                                    " joined twice (world size " + std::to_string(config_.size) +
                                    "; from " + first + " and " + c.peer + ")"));
      }
      claim_[r] = id;
      c.rank = static_cast<int>(claimed);
      return {};
    }
    case FrameType::kBlob: {
      const std::string_view blob = payload.substr(0, payload.size() - kMacBytes);
      if (!verify(c.session, {kBlobLabel, blob}, payload.substr(blob.size()))) {
        return drop_conn(id, "rank " + std::to_string(c.rank) +
                                 ": blob failed its integrity check (altered in transit?)");
      }
      const auto r = static_cast<std::size_t>(c.rank);
      blobs_[r] = std::string(blob);
      joined_[r] = true;
      ++joined_count_;
      c.phase = Phase::kJoined;
      if (joined_count_ == config_.size) return complete();
      return {};
    }
    default: return drop_conn(id, "unexpected frame");
  }
}

void Round::forget(ConnId id) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return;
  const int rank = it->second.rank;
  if (rank > 0 && claim_[static_cast<std::size_t>(rank)] == id) {
    claim_[static_cast<std::size_t>(rank)] = 0;
    if (joined_[static_cast<std::size_t>(rank)]) {
      joined_[static_cast<std::size_t>(rank)] = false;
      blobs_[static_cast<std::size_t>(rank)].clear();
      --joined_count_;
    }
  }
  conns_.erase(it);
}

Actions Round::drop_conn(ConnId id, const std::string& reason) {
  const auto it = conns_.find(id);
  if (it == conns_.end()) return {};
  Actions out{log("rendezvous at " + config_.endpoint + ": dropped peer " + it->second.peer + ": " +
                  reason),
              close(id, false)};
  forget(id);
  return out;
}

Actions Round::drop(ConnId id, const std::string& reason) {
  if (state_ != State::kRunning) return {};
  return drop_conn(id, reason);
}

Actions Round::closed(ConnId id) {
  const auto it = conns_.find(id);
  if (state_ != State::kRunning || it == conns_.end()) return {};
  Actions out;
  const Conn& c = it->second;
  if (c.phase == Phase::kHello || c.phase == Phase::kAuth) {
    out.push_back(log("rendezvous at " + config_.endpoint + ": peer " + c.peer +
                      " closed the connection before authenticating"));
  } else {
    out.push_back(log("rendezvous at " + config_.endpoint + ": rank " + std::to_string(c.rank) +
                      " (" + c.peer + ") closed the connection; its rank is free again"));
  }
  forget(id);
  return out;
}

Actions Round::timeout(std::chrono::milliseconds after) {
  if (state_ != State::kRunning) return {};
  std::string list;
  int missing = 0;
  for (std::size_t r = 0; r < joined_.size(); ++r) {
    if (joined_[r]) continue;
    list += (list.empty() ? "" : ", ") + std::to_string(r);
    ++missing;
  }
  return fail_round(Error(ErrorCode::kTimeout,
                          "rendezvous at " + config_.endpoint + " timed out after " +
                              std::to_string(after.count()) + " ms: " + std::to_string(missing) +
                              " of " + std::to_string(config_.size) + " ranks never joined: [" +
                              list + "]"));
}

Actions Round::fail_round(Error e) {
  Actions out;
  state_ = State::kFailed;
  std::string code;
  put_u32(code, static_cast<std::uint32_t>(static_cast<std::int32_t>(e.code)));
  const std::string message = e.message.substr(0, kMaxErrorMessage);
  for (auto& [id, c] : conns_) {
    if (c.phase != Phase::kBlob && c.phase != Phase::kJoined) {
      out.push_back(close(id, false));
      continue;
    }
    Key mac{};
    if (!hmac(c.session, {kErrorLabel, code, message}, &mac)) {
      out.push_back(close(id, false));
      continue;
    }
    std::string frame = frame_header(FrameType::kError, code.size() + message.size() + kMacBytes) +
                        code + message + as_string(mac);
    out.push_back(send(id, {shared(std::move(frame))}));
    out.push_back(close(id, true, "rank " + std::to_string(c.rank) + " (" + c.peer + ")"));
  }
  conns_.clear();
  error_ = std::move(e);
  return out;
}

Actions Round::complete() {
  Actions out;
  state_ = State::kComplete;
  std::size_t total = 4;
  for (const std::string& b : blobs_) total += 8 + b.size();
  std::string body;
  body.reserve(total);
  put_u32(body, static_cast<std::uint32_t>(blobs_.size()));
  for (const std::string& b : blobs_) {
    put_u64(body, b.size());
    body += b;
  }
  Key digest{};
  const bool digested = sha256(body, &digest);
  const Bytes shared_body = shared(std::move(body));
  const Bytes header = shared(frame_header(FrameType::kResult, shared_body->size() + kMacBytes));
  for (auto& [id, c] : conns_) {
    Key mac{};
    if (c.phase != Phase::kJoined || !digested ||
        !hmac(c.session, {kResultLabel, as_string(digest)}, &mac)) {
      out.push_back(close(id, false));
      continue;
    }
    out.push_back(send(id, {header, shared_body, shared(as_string(mac))}));
    out.push_back(close(id, true, "rank " + std::to_string(c.rank) + " (" + c.peer + ")"));
  }
  conns_.clear();
  return out;
}

// ---------------------------------------------------------------------------------- rank > 0

ClientSession::ClientSession(ClientConfig config, const Nonce& client_nonce, std::string_view blob)
    : config_(std::move(config)), blob_(blob) {
  hello_payload_.append(kMagic, 4);
  put_u32(hello_payload_, kVersion);
  put_u32(hello_payload_, static_cast<std::uint32_t>(config_.rank));
  put_u32(hello_payload_, static_cast<std::uint32_t>(config_.size));
  hello_payload_ += view(client_nonce);
}

std::string ClientSession::hello() const {
  return frame_header(FrameType::kHello, hello_payload_.size()) + hello_payload_;
}

std::string ClientSession::receive(std::string_view bytes) {
  std::string out;
  if (outcome_) return out;
  reader_.append(bytes);
  while (!outcome_) {
    FrameReader::Rules r{};
    if (!verified_) {
      r = rules({{FrameType::kChallenge, exactly(kChallengeBytes)}});
    } else {
      const auto size = static_cast<std::uint64_t>(std::max(config_.size, 0));
      const std::uint64_t max_result = saturating_add(
          saturating_mul(size, saturating_add(8, config_.max_blob_bytes)), 4 + kMacBytes);
      r = rules({{FrameType::kResult, between(4 + kMacBytes, max_result)},
                 {FrameType::kError, between(4 + kMacBytes, 4 + kMaxErrorMessage + kMacBytes)}});
    }
    const FrameReader::Next n = reader_.next(r);
    if (n.status == FrameReader::Status::kNeedMore) break;
    if (n.status != FrameReader::Status::kFrame) {
      finish(fail(ErrorCode::kIo, "rank " + std::to_string(config_.rank) + ": rank 0 at " +
                                      config_.endpoint + " sent an invalid " +
                                      type_text(n.raw_type) + " frame" +
                                      (n.status == FrameReader::Status::kBadLength
                                           ? " of " + std::to_string(n.length) + " bytes"
                                           : std::string()) +
                                      " (is another program listening there?)"));
      break;
    }
    switch (n.type) {  // the payload stays valid: nothing here touches the reader
      case FrameType::kChallenge: out += on_challenge(n.payload); break;
      case FrameType::kResult: on_result(n.payload); break;
      default: on_error(n.payload); break;
    }
  }
  return out;
}

std::string ClientSession::on_challenge(std::string_view payload) {
  const std::string_view nonce = payload.substr(0, kNonceBytes);
  if (!verify(config_.key, {kServerLabel, hello_payload_, nonce}, payload.substr(kNonceBytes))) {
    finish(fail(ErrorCode::kInvalid,
                "rank " + std::to_string(config_.rank) + ": rank 0 at " + config_.endpoint +
                    " failed to authenticate: the ranks do not share the same rendezvous secret "
                    "(TRAINER_RENDEZVOUS_SECRET), or another program listens there"));
    return {};
  }
  Key proof{};
  Key blob_mac{};
  if (!hmac(config_.key, {kClientLabel, hello_payload_, nonce}, &proof) ||
      !hmac(config_.key, {kSessionLabel, hello_payload_, nonce}, &session_) ||
      !hmac(session_, {kBlobLabel, blob_}, &blob_mac)) {
    finish(fail(ErrorCode::kNoMemory, "rendezvous: cannot compute the proof (OpenSSL failed)"));
    return {};
  }
  verified_ = true;
  std::string out = frame_header(FrameType::kAuth, kMacBytes) + as_string(proof);
  out += frame_header(FrameType::kBlob, blob_.size() + kMacBytes);
  out += blob_;
  out += as_string(blob_mac);
  return out;
}

void ClientSession::on_result(std::string_view payload) {
  const std::string_view body = payload.substr(0, payload.size() - kMacBytes);
  Key digest{};
  if (!sha256(body, &digest) ||
      !verify(session_, {kResultLabel, as_string(digest)}, payload.substr(body.size()))) {
    finish(fail(ErrorCode::kIo, "rendezvous: the answer of rank 0 at " + config_.endpoint +
                                    " failed its integrity check (altered in transit?)"));
    return;
  }
  const std::uint64_t n = get_le(body, 0, 4);
  if (n != static_cast<std::uint64_t>(config_.size)) {
    finish(fail(ErrorCode::kInvalid, "rendezvous: rank 0 answered with " + std::to_string(n) +
                                         " ranks, expected " + std::to_string(config_.size)));
    return;
  }
  std::vector<std::string> blobs(static_cast<std::size_t>(n));
  std::size_t at = 4;
  for (std::string& b : blobs) {
    if (body.size() - at < 8) {
      finish(fail(ErrorCode::kIo, "rendezvous: rank 0's answer is truncated"));
      return;
    }
    const std::uint64_t len = get_le(body, at, 8);
    at += 8;
    if (len > config_.max_blob_bytes) {
      finish(fail(ErrorCode::kLimit, "rendezvous: blob of " + std::to_string(len) + " bytes"));
      return;
    }
    if (body.size() - at < len) {
      finish(fail(ErrorCode::kIo, "rendezvous: rank 0's answer is truncated"));
      return;
    }
    b = std::string(body.substr(at, static_cast<std::size_t>(len)));
    at += static_cast<std::size_t>(len);
  }
  if (at != body.size()) {
    finish(fail(ErrorCode::kIo, "rendezvous: rank 0's answer has trailing bytes"));
    return;
  }
  finish(std::move(blobs));
}

void ClientSession::on_error(std::string_view payload) {
  const std::string_view code = payload.substr(0, 4);
  const std::string_view message = payload.substr(4, payload.size() - 4 - kMacBytes);
  if (!verify(session_, {kErrorLabel, code, message}, payload.substr(payload.size() - kMacBytes))) {
    finish(fail(ErrorCode::kIo, "rendezvous: an error from rank 0 at " + config_.endpoint +
                                    " failed its integrity check (altered in transit?)"));
    return;
  }
  const auto status = static_cast<std::int32_t>(static_cast<std::uint32_t>(get_le(code, 0, 4)));
  const ErrorCode ec = status >= static_cast<int>(ErrorCode::kTimeout) && status < 0
                           ? static_cast<ErrorCode>(status)
                           : ErrorCode::kIo;
  finish(fail(ec, "rank 0 ended the rendezvous: " + std::string(message)));
}

}  // namespace trainer::collectives::detail::store
