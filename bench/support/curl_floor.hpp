// SPDX-License-Identifier: Apache-2.0
//
// The floor of the client benchmarks: the same HTTP requests sent by a bare libcurl loop on one
// easy handle (so one reused connection), with nothing around it: no discovery, no rate
// limiter, no retries, no JSON decoding of the answers.
#pragma once

#include <curl/curl.h>

#include <string>

namespace bench {

class CurlFloor {
 public:
  CurlFloor(std::string server, std::string token, const std::string& ca_pem);
  ~CurlFloor();
  CurlFloor(const CurlFloor&) = delete;
  CurlFloor& operator=(const CurlFloor&) = delete;

  /// Sends one request; returns the HTTP status, the body in `body`.
  long send(const char* method, const std::string& target, const std::string& content_type,
            const std::string& request_body, std::string& body);
  /// CURL_HTTP_VERSION_* of the last answer.
  [[nodiscard]] long http_version() const { return http_version_; }

 private:
  std::string server_;
  std::string auth_;
  std::string ca_pem_;
  CURL* easy_;
  long http_version_ = 0;
};

}  // namespace bench
