// SPDX-License-Identifier: Apache-2.0
//
// The text of a failed transfer, as kubectl words it where it has a wording: a refused
// connection, an unknown host, a TLS verification failure (naming the trust anchors used).
#pragma once

#include "kube/client/endpoint.hpp"

#include <curl/curl.h>

#include <string>

namespace trainer::kube::detail {

struct TransferFailure {
  CURLcode code = CURLE_OK;
  std::string detail;  ///< libcurl's error buffer (may be empty)
  long os_errno = 0;   ///< CURLINFO_OS_ERRNO
};

/// A kIo error for `failure` of `method` on `target` (below the server URL).
[[nodiscard]] Error connection_error(const TransferFailure& failure, const Endpoint& endpoint,
                                     const std::string& method, const std::string& target);

/// Whether `code` is a connection lost before or during the answer (client-go's "probable EOF":
/// reset, EOF, a broken HTTP/2 stream), which an idempotent request may retry.
[[nodiscard]] bool is_probable_eof(CURLcode code);

/// Go's spelling of an HTTP method in url.Error texts: `Get`, `Post`, `Patch`, ...
[[nodiscard]] std::string go_method(const std::string& method);

}  // namespace trainer::kube::detail
