// SPDX-License-Identifier: Apache-2.0
#include "curl_floor.hpp"

#include <stdexcept>

namespace bench {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

CurlFloor::CurlFloor(std::string server, std::string token, const std::string& ca_pem)
    : server_(std::move(server)),
      auth_("Authorization: Bearer " + token),
      ca_pem_(ca_pem),
      easy_(curl_easy_init()) {
  if (easy_ == nullptr) throw std::runtime_error("curl_easy_init failed");
}

CurlFloor::~CurlFloor() {
  curl_easy_cleanup(easy_);
}

long CurlFloor::send(const char* method, const std::string& target, const std::string& content_type,
                     const std::string& request_body, std::string& body) {
  body.clear();
  curl_blob ca{const_cast<char*>(ca_pem_.data()), ca_pem_.size(), CURL_BLOB_NOCOPY};
  curl_slist* headers = curl_slist_append(nullptr, auth_.c_str());
  headers = curl_slist_append(headers, "Accept: application/json");
  // As the client: no 100-continue round trip before a body.
  headers = curl_slist_append(headers, "Expect:");
  if (!content_type.empty()) {
    headers = curl_slist_append(headers, ("Content-Type: " + content_type).c_str());
  }
  curl_easy_setopt(easy_, CURLOPT_URL, (server_ + target).c_str());
  curl_easy_setopt(easy_, CURLOPT_CAINFO_BLOB, &ca);
  curl_easy_setopt(easy_, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  // As the client (ClientOptions' default): the server gzips answers over 128 KiB.
  curl_easy_setopt(easy_, CURLOPT_ACCEPT_ENCODING, "gzip");
  curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers);
  if (request_body.empty()) {
    curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, method);
  } else {
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, request_body.data());
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE, static_cast<long>(request_body.size()));
  }
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, &body);
  const CURLcode rc = curl_easy_perform(easy_);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) throw std::runtime_error(curl_easy_strerror(rc));
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(easy_, CURLINFO_HTTP_VERSION, &http_version_);
  return status;
}

}  // namespace bench
