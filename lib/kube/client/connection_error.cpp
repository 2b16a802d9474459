// SPDX-License-Identifier: Apache-2.0
#include "kube/client/connection_error.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>

namespace trainer::kube::detail {

namespace {

std::string describe(const TransferFailure& failure) {
  std::string text = failure.detail.empty() ? curl_easy_strerror(failure.code) : failure.detail;
  return text;
}

std::string os_error(long os_errno) {
  std::string text = std::strerror(static_cast<int>(os_errno));
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

std::string go_method(const std::string& method) {
  std::string out;
  for (std::size_t i = 0; i < method.size(); ++i) {
    const auto c = static_cast<unsigned char>(method[i]);
    out.push_back(static_cast<char>(i == 0 ? std::toupper(c) : std::tolower(c)));
  }
  return out;
}

bool is_probable_eof(CURLcode code) {
  switch (code) {
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return true;
    default: return false;
  }
}

Error connection_error(const TransferFailure& failure, const Endpoint& endpoint,
                       const std::string& method, const std::string& target) {
  const std::string request = go_method(method) + " \"" + endpoint.base_url + target + "\"";
  std::string message;
  switch (failure.code) {
    case CURLE_COULDNT_CONNECT:
      if (failure.os_errno == ECONNREFUSED) {
        // kubectl's own sentence (k8s.io/kubectl/pkg/cmd/util/helpers.go).
        message = "The connection to the server " + endpoint.host_port +
                  " was refused - did you specify the right host or port?";
      } else {
        message = "Unable to connect to the server: dial tcp " + endpoint.host_port +
                  ": connect: " +
                  (failure.os_errno != 0 ? os_error(failure.os_errno) : describe(failure));
      }
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
      message = "Unable to connect to the server: dial tcp: lookup " + endpoint.host_port +
                ": no such host (" + describe(failure) + ")";
      break;
    case CURLE_OPERATION_TIMEDOUT:
      // Only the connect timeout is left to libcurl; the total bound is the transport's.
      message = "Unable to connect to the server: dial tcp " + endpoint.host_port +
                ": i/o timeout (" + describe(failure) + ")";
      break;
    case CURLE_PEER_FAILED_VERIFICATION:
      message = "Unable to connect to the server: tls: failed to verify the certificate of " +
                endpoint.server + " with " + endpoint.trust + ": " + describe(failure);
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      message = "Unable to connect to the server: TLS handshake with " + endpoint.server +
                " failed: " + describe(failure);
      break;
    default: message = request + ": " + describe(failure); break;
  }
  return Error(ErrorCode::kIo, std::move(message));
}

}  // namespace trainer::kube::detail
