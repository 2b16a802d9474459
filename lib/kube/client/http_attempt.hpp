// SPDX-License-Identifier: Apache-2.0
//
// One HTTP exchange: an easy handle configured from the client's settings and the attempt's
// credentials, run on a multi handle of the caller's with curl_multi_poll, so that a
// CancelToken wakes it at once (curl_multi_wakeup) and the transport's own clocks (the total
// deadline, the stream idle bound) end it. No policy: retries, rate limits and 401 handling are
// transport.cpp's.
#pragma once

#include "kube/client/auth.hpp"
#include "kube/client/connection_error.hpp"
#include "kube/client/endpoint.hpp"
#include "kube/client/transport.hpp"

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer::kube::detail {

/// What every exchange of one transport shares.
struct TransferSettings {
  Endpoint endpoint;
  CURLSH* share = nullptr;
  std::string ca_pem;
  bool insecure = false;
  std::string proxy_url;
  bool compression = true;
  std::string user_agent;
  std::vector<std::string> extra_headers;  ///< `Impersonate-*: ...` lines
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds stream_idle_timeout{90000};
  /// ClientOptions::max_response_bytes: bound on a body that is collected (not streamed to
  /// on_data).
  std::size_t max_response_bytes = std::size_t{256} << 20U;
};

struct AttemptResult {
  enum class Outcome {
    kResponse,   ///< `response` holds the answer (possibly stopped by on_data)
    kFailed,     ///< the transfer failed: `failure`
    kCancelled,  ///< the token was cancelled
    kDeadline,   ///< the total deadline passed
    kIdle,       ///< a stream was silent for longer than the idle bound
    kCallback,   ///< on_data threw
    kTooLarge,   ///< a collected body crossed max_response_bytes (`declared_length`: its
                 ///< Content-Length, when that refused it before any byte was read)
  };
  Outcome outcome = Outcome::kFailed;
  HttpResponse response;
  TransferFailure failure;
  /// Whether any byte of a 2xx stream reached on_data (then the request is not retried).
  bool delivered = false;
  std::optional<std::uint64_t> declared_length;
};

/// Runs `request` once on `multi` (which must have no other transfer). `deadline`: the total
/// bound of a non-streaming request (nullopt for streams).
[[nodiscard]] AttemptResult run_attempt(
    CURLM* multi, const TransferSettings& settings, const HttpRequest& request,
    const Credentials& credentials, std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace trainer::kube::detail
