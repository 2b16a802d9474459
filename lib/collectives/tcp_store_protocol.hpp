// SPDX-License-Identifier: Apache-2.0
//
// The wire protocol of the TCP rendezvous store (tcp_rendezvous), without sockets, clocks or
// randomness: bytes in, actions out. tcp_store.cpp drives it over sockets; tests/fuzz drives it
// with arbitrary bytes. docs/collectives.md ("The TCP rendezvous store") describes it for users.
//
// Framing: every message is a frame `u8 type, u64 length (little-endian), length bytes`. The
// reader checks the type and the length of a frame against what the current state accepts as
// soon as its 9-byte header has arrived, before any payload is buffered.
//
// One connection, client (rank r > 0) <-> rank 0; K = HMAC-SHA256(secret, kKeyLabel):
//   client: HELLO     "TRDV", u32 version, u32 rank, u32 size, 32-byte client nonce Nc   (48)
//   rank 0: CHALLENGE 32-byte server nonce Ns, HMAC(K, "server" | HELLO | Ns)            (64)
//   client: AUTH      HMAC(K, "client" | HELLO | Ns)                                      (32)
//   client: BLOB      blob, HMAC(S, "blob" | blob)                          (<= max_blob + 32)
//   rank 0: RESULT    u32 n, n x (u64 len, bytes), HMAC(S, "result" | ...)   once all joined
//        or ERROR     i32 ErrorCode, message, HMAC(S, "error" | code | message)
// with the session key S = HMAC(K, "session" | HELLO | Ns). The labels differ, so no proof
// can stand in for another; fresh nonces on both sides stop replays. The secret never crosses
// the wire; the client checks rank 0's proof before it sends anything that depends on K, and
// rank 0 sends nothing but the CHALLENGE to a peer that has not proved itself. Frames are
// authenticated, not encrypted.
#pragma once

#include "trainer/collectives.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::collectives::detail::store {

inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kMacBytes = 32;
inline constexpr std::size_t kFrameHeaderBytes = 1 + 8;
inline constexpr std::size_t kHelloBytes = 4 + 4 + 4 + 4 + kNonceBytes;
inline constexpr std::size_t kChallengeBytes = kNonceBytes + kMacBytes;
/// Longest error message rank 0 sends (longer ones are cut).
inline constexpr std::size_t kMaxErrorMessage = 4096;

enum class FrameType : std::uint8_t {
  kHello = 1,
  kChallenge = 2,
  kAuth = 3,
  kBlob = 4,
  kResult = 5,
  kError = 6,
};

using Nonce = std::array<unsigned char, kNonceBytes>;
using Key = std::array<unsigned char, kMacBytes>;
/// Output shared between connections (the RESULT body goes to every rank).
using Bytes = std::shared_ptr<const std::string>;
using ConnId = std::uint64_t;

/// K: HMAC-SHA256 keyed with `secret` over a fixed label (domain separation). Any length works;
/// an empty secret gives a key anyone can compute.
[[nodiscard]] Key derive_key(std::string_view secret);
/// The secret used when none is configured: derived from the address every rank was given
/// (see RendezvousOptions::secret for what this does and does not protect).
[[nodiscard]] std::string fallback_secret(std::string_view host, std::uint16_t port);

/// A frame header for `type` and `length`.
[[nodiscard]] std::string frame_header(FrameType type, std::uint64_t length);

/// Cuts a byte stream into frames. `rules[type]` is the accepted length range of each type;
/// a type without a rule, or a length outside its range, is refused as soon as the header is in.
class FrameReader {
 public:
  struct Rule {
    std::uint64_t min = 0;
    std::uint64_t max = 0;
    bool allowed = false;
  };
  using Rules = std::array<Rule, 8>;
  enum class Status { kNeedMore, kFrame, kBadType, kBadLength };
  struct Next {
    Status status = Status::kNeedMore;
    FrameType type = FrameType::kHello;
    std::uint64_t length = 0;   ///< announced length (kFrame, kBadLength)
    std::string_view payload;   ///< kFrame: valid until the next call
    std::uint8_t raw_type = 0;  ///< the type byte as received
  };

  void append(std::string_view bytes);
  /// The next frame under `rules`. After kBadType/kBadLength the stream is unusable.
  [[nodiscard]] Next next(const Rules& rules);
  /// Bytes received and not yet returned as a frame.
  [[nodiscard]] std::size_t buffered() const { return buf_.size() - start_; }

 private:
  std::string buf_;
  std::size_t start_ = 0;
};

/// What the driver must do. Actions of one call are applied in order.
struct Action {
  enum class Kind {
    kSend,   ///< queue `data` for `conn`
    kClose,  ///< stop reading `conn`; close it once its queued output is out (`flush`) or now
    kLog,    ///< tell the operator `text` (a dropped peer, say)
  };
  Kind kind = Kind::kLog;
  ConnId conn = 0;
  std::vector<Bytes> data;
  bool flush = false;
  std::string text;  ///< kLog: the line; kClose: who the connection was, for error reports
};
using Actions = std::vector<Action>;

struct RoundConfig {
  int size = 1;
  Key key{};
  std::size_t max_blob_bytes = 0;
  std::string endpoint;  ///< host:port, for messages
  std::string blob;      ///< rank 0's own blob (moved into the result)
};

/// Rank 0's side of one round: every connection, every claim, the result.
///
/// A connection proves knowledge of K (AUTH) before anything it says counts. Until then it
/// can only be dropped: wrong framing, magic, version, proof or length, a handshake the driver
/// times out, or eviction. Only an authenticated rank can end the round, with a clear error:
/// another world size, a rank out of range or already claimed, a blob above the limit.
/// A connection that closes releases its rank (the rank may reconnect).
class Round {
 public:
  enum class State { kRunning, kComplete, kFailed };
  explicit Round(RoundConfig config);

  /// A new connection from `peer`; sends nothing (the client speaks first).
  [[nodiscard]] Actions open(ConnId id, const Nonce& server_nonce, std::string peer);
  /// Bytes that arrived on `id`.
  [[nodiscard]] Actions receive(ConnId id, std::string_view bytes);
  /// The peer went away (EOF, reset, write error). Forgets the connection.
  [[nodiscard]] Actions closed(ConnId id);
  /// The driver gives up on `id` (handshake deadline, eviction): dropped and logged.
  [[nodiscard]] Actions drop(ConnId id, const std::string& reason);
  /// The round's deadline: every authenticated peer gets kTimeout naming the missing ranks.
  [[nodiscard]] Actions timeout(std::chrono::milliseconds after);

  [[nodiscard]] State state() const { return state_; }
  /// kComplete: every rank's blob, by rank.
  [[nodiscard]] const std::vector<std::string>& blobs() const { return blobs_; }
  [[nodiscard]] std::vector<std::string> take_blobs() { return std::move(blobs_); }
  /// kFailed: why.
  [[nodiscard]] const Error& error() const { return error_; }
  /// True once `id` proved knowledge of K.
  [[nodiscard]] bool authenticated(ConnId id) const;
  [[nodiscard]] std::size_t connections() const { return conns_.size(); }

 private:
  enum class Phase { kHello, kAuth, kBlob, kJoined };
  struct Conn {
    Phase phase = Phase::kHello;
    std::string peer;
    Nonce server_nonce{};
    std::string hello;  // payload, for the transcript
    int rank = -1;
    Key session{};
    FrameReader reader;
  };

  Actions handle(ConnId id, Conn& c, FrameType type, std::string_view payload);
  Actions drop_conn(ConnId id, const std::string& reason);
  void forget(ConnId id);
  Actions fail_round(Error e);
  Actions complete();

  RoundConfig config_;
  State state_ = State::kRunning;
  std::map<ConnId, Conn> conns_;
  std::vector<std::string> blobs_;
  std::vector<ConnId> claim_;  // rank -> connection (0: none)
  std::vector<bool> joined_;
  int joined_count_ = 1;
  Error error_;
};

struct ClientConfig {
  int rank = 1;
  int size = 2;
  Key key{};
  std::size_t max_blob_bytes = 0;
  std::string endpoint;
};

/// A rank's side of one connection to rank 0.
class ClientSession {
 public:
  ClientSession(ClientConfig config, const Nonce& client_nonce, std::string_view blob);
  /// The HELLO frame, to send first.
  [[nodiscard]] std::string hello() const;
  /// Bytes from rank 0; returns what to send next (AUTH and BLOB once rank 0 proved itself).
  [[nodiscard]] std::string receive(std::string_view bytes);
  /// Rank 0 proved that it knows K (a CHALLENGE verified).
  [[nodiscard]] bool verified() const { return verified_; }
  /// Set once the session is over: every blob, or why not.
  [[nodiscard]] const std::optional<Result<std::vector<std::string>>>& outcome() const {
    return outcome_;
  }
  /// The outcome, moved out (call once, when outcome() is set).
  [[nodiscard]] Result<std::vector<std::string>> take_outcome() { return std::move(*outcome_); }

 private:
  void finish(Result<std::vector<std::string>> r) { outcome_ = std::move(r); }
  std::string on_challenge(std::string_view payload);
  void on_result(std::string_view payload);
  void on_error(std::string_view payload);

  ClientConfig config_;
  std::string hello_payload_;
  std::string blob_;
  Key session_{};
  bool verified_ = false;
  FrameReader reader_;
  std::optional<Result<std::vector<std::string>>> outcome_;
};

}  // namespace trainer::collectives::detail::store
