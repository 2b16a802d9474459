// SPDX-License-Identifier: Apache-2.0
//
// A scriptable HTTP/1.1 server on 127.0.0.1 (a random port) inside the test process, for what a
// real API server does not do on demand: 429/5xx bursts with Retry-After, bodies cut mid-way,
// streams that go silent, slow answers.
//
//   trainer::testing::FaultServer server;
//   server.push({429, {{"Retry-After", "1"}}, "slow down"});
//   FaultResponse stream;                          // a chunked body, then the connection is cut
//   stream.chunks = {{0ms, "{\"type\":\"ADDED\"}\n"}, {200ms, "partial"}};
//   stream.cut = true;
//   server.push(stream);
//   ... point a client at server.url() ...
//   REQUIRE(server.requests().size() == 2);
//
// Each request gets the first queued response whose `match` fits its target (responses are
// consumed); when none fits, `404` with the body `no scripted response`. Connections are kept alive
// (HTTP/1.1) unless a response cuts or holds them. Every request is recorded. The destructor
// stops the server and ends every held connection; nothing it does waits without a bound.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::testing {

/// One scripted answer.
struct FaultResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides the framing headers
  /// Sent with `Content-Length` when `chunks` is empty.
  std::string body;
  /// Pieces of a `Transfer-Encoding: chunked` body, each sent after its delay.
  struct Piece {
    std::chrono::milliseconds delay{0};
    std::string data;
  };
  std::vector<Piece> chunks;
  /// Sends `body` (then `Content-Length` is its size times this), or the last of `chunks`, this
  /// many times: a huge body without holding it in memory; SIZE_MAX is an endless one (until
  /// the client closes the connection or the server stops).
  std::size_t repeat = 1;
  /// Waits this long before sending anything (a slow server).
  std::chrono::milliseconds delay{0};
  /// After everything above was sent, close the connection without ending the body (for a
  /// Content-Length body: after `cut_after` bytes of it; chunked: without the final chunk).
  bool cut = false;
  std::optional<std::size_t> cut_after;  ///< Content-Length bodies: how many body bytes go out
  /// After everything above was sent, keep the connection open and silent (without ending the
  /// body) until the client closes it or the server stops (at most `hold_limit`).
  bool hold = false;
  std::chrono::milliseconds hold_limit{std::chrono::seconds(60)};
  /// Answers only a request whose target (path and query) starts with this; empty: any.
  std::string match;

  FaultResponse() = default;
  FaultResponse(int status_code, std::vector<std::pair<std::string, std::string>> header_list = {},
                std::string body_text = {})
      : status(status_code), headers(std::move(header_list)), body(std::move(body_text)) {}
};

/// One received request.
struct RecordedRequest {
  std::string method;
  std::string target;                                        ///< path and query
  std::vector<std::pair<std::string, std::string>> headers;  ///< names in lowercase
  std::string body;
  int connection = 0;  ///< 1-based number of the TCP connection it came on
  std::chrono::steady_clock::time_point received;

  /// The first header of that (lowercase) name, or nullptr.
  [[nodiscard]] const std::string* header(std::string_view lowercase_name) const;
};

class FaultServer {
 public:
  FaultServer();  ///< listens at once; aborts the test process when it cannot
  ~FaultServer();
  FaultServer(const FaultServer&) = delete;
  FaultServer& operator=(const FaultServer&) = delete;

  [[nodiscard]] std::uint16_t port() const { return port_; }
  [[nodiscard]] std::string url() const;  ///< `http://127.0.0.1:<port>`

  /// Queues the answer to a later request.
  void push(FaultResponse response);
  /// Every request so far, in arrival order.
  [[nodiscard]] std::vector<RecordedRequest> requests() const;
  /// TCP connections accepted so far.
  [[nodiscard]] int connections() const;
  /// Waits until `count` requests have arrived; false when `timeout` passed first.
  [[nodiscard]] bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::uint16_t port_ = 0;
};

}  // namespace trainer::testing
