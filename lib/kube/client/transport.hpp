// SPDX-License-Identifier: Apache-2.0
//
// The HTTP layer of the Kubernetes client: one libcurl share (connections, DNS, TLS sessions)
// per client, TLS from the Config, credentials from the Authenticator, the client-side rate
// limiter, retries on 429/5xx with Retry-After, timeouts and cancellation. It knows nothing of
// Kubernetes objects: a non-2xx answer is returned as a response, not an error (client.cpp maps
// it to a Status error), except where a retry policy applies.
#pragma once

#include "trainer/kube.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::kube::detail {

class Authenticator;  // auth.hpp

struct HttpRequest {
  std::string method = "GET";
  /// Path and query below the server URL's prefix, already encoded (`/api/v1/...?a=b`).
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  ///< besides auth, UA, Accept-Encoding
  std::string body;
  /// Streams (watch, logs): the body goes to `on_data` as it arrives instead of into the
  /// response (for 2xx answers; an error answer's body is still collected), no total timeout
  /// applies, and `ClientOptions::stream_idle_timeout` bounds the silence between bytes.
  /// `on_data` returning false ends the transfer without an error.
  std::function<bool(std::string_view)> on_data;
  /// Total bound for a non-streaming request, retries included (0: ClientOptions::timeout).
  std::chrono::milliseconds timeout{0};
  /// Whether a transport error (reset, EOF before the answer) may be retried: GET only.
  bool idempotent = false;
  /// A 2xx body is decoded as JSON while it arrives, into HttpResponse::json, so that a large
  /// list never exists as text and as values at once.
  bool decode_json = false;
  CancelToken cancel;
};

struct HttpResponse {
  long status = 0;
  /// Header names in lowercase, in arrival order (repeated headers stay separate).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// With HttpRequest::decode_json, a 2xx body decoded (then `body` stays empty), or why it is
  /// not JSON (`json_error`, the transfer cut where the text went wrong). Neither for an empty
  /// body.
  std::optional<boost::json::value> json;
  std::string json_error;
  /// True when `on_data` stopped the transfer.
  bool stopped = false;
  /// The HTTP version the answer came in: 2 (HTTP/2 over TLS where the server offers it) or 1.
  int http_version = 1;

  [[nodiscard]] const std::string* header(std::string_view lowercase_name) const;
};

class Transport {
 public:
  /// Fails with kInvalidArgument when the TLS material or the server URL is unusable.
  static Result<std::unique_ptr<Transport>> create(const Config& config,
                                                   const ClientOptions& options);
  /// The same with a given Authenticator (shared with the caller, e.g. for its describe(); tests
  /// pass their own).
  static Result<std::unique_ptr<Transport>> create(const Config& config,
                                                   const ClientOptions& options,
                                                   std::shared_ptr<Authenticator> authenticator);
  virtual ~Transport() = default;

  /// Sends `request`: waits for a rate-limiter token, authenticates (a 401 with refreshable
  /// credentials refreshes them and sends once more), retries 429 and 5xx answers that carry
  /// `Retry-After` (at most ClientOptions::max_retries times), and reports `Warning` headers.
  /// Errors: kCancelled, kTimeout (`context deadline exceeded`-like text naming the request),
  /// kLimit (a collected body over ClientOptions::max_response_bytes, naming the request),
  /// kIo for connection failures (refused: the text kubectl prints, TLS: which CA was used),
  /// kUnauthorized only when the credentials themselves cannot be obtained (exec plugin fails).
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;

  /// `https://host:port` of the server (for messages).
  [[nodiscard]] virtual const std::string& server() const = 0;

  /// Which credentials requests carry, for 401/403 messages (Authenticator::describe():
  /// `user "admin" of context "local" (bearer token)`); empty when unknown.
  [[nodiscard]] virtual std::string describe_credentials() const { return {}; }
};

}  // namespace trainer::kube::detail
