// SPDX-License-Identifier: Apache-2.0
#include "kube/client/endpoint.hpp"

#include "kube/client/curl_handles.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace trainer::kube::detail {

namespace {

struct CurlString {
  char* text = nullptr;
  ~CurlString() { curl_free(text); }
};

// A URL part, or an empty string when it is absent.
std::string url_part(CURLU* url, CURLUPart part, unsigned flags = 0) {
  CurlString value;
  if (curl_url_get(url, part, &value.text, flags) != CURLUE_OK || value.text == nullptr) {
    return {};
  }
  return value.text;
}

bool has_pem_certificate(const std::string& pem) {
  const std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  if (!bio) return false;
  X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
  ERR_clear_error();
  if (cert == nullptr) return false;
  X509_free(cert);
  return true;
}

}  // namespace

Result<Endpoint> make_endpoint(const Config& config) {
  if (config.server.empty()) {
    return fail(ErrorCode::kInvalidArgument, "no server found in the configuration");
  }
  UrlHandle url = new_url();
  if (!url) return fail(ErrorCode::kNoMemory, kNoHandleMessage);
  if (curl_url_set(url.get(), CURLUPART_URL, config.server.c_str(), 0) != CURLUE_OK) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid server URL \"" + config.server + "\": not an absolute URL");
  }
  const std::string scheme = url_part(url.get(), CURLUPART_SCHEME);
  if (scheme != "https" && scheme != "http") {
    return fail(ErrorCode::kInvalidArgument,
                "invalid server URL \"" + config.server + "\": the scheme must be https or http");
  }
  if (!url_part(url.get(), CURLUPART_QUERY).empty() ||
      !url_part(url.get(), CURLUPART_USER).empty()) {
    return fail(ErrorCode::kInvalidArgument, "invalid server URL \"" + config.server +
                                                 "\": it may not carry a query or user info");
  }
  const std::string host = url_part(url.get(), CURLUPART_HOST);
  const std::string port = url_part(url.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  std::string prefix = url_part(url.get(), CURLUPART_PATH);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();

  Endpoint endpoint;
  endpoint.tls = scheme == "https";
  endpoint.host_port = host + ":" + port;
  endpoint.server = scheme + "://" + endpoint.host_port;
  std::string url_host = host;
  if (endpoint.tls && !config.tls_server_name.empty() && config.tls_server_name != host) {
    // libcurl has no separate SNI/verify name: the URL carries the TLS name and CONNECT_TO
    // sends the TCP connection to the real host.
    url_host = config.tls_server_name;
    endpoint.connect_to = url_host + ":" + port + ":" + host + ":" + port;
  }
  endpoint.base_url = scheme + "://" + url_host + ":" + port + prefix;

  if (!config.ca_pem.empty() && !has_pem_certificate(config.ca_pem)) {
    return fail(ErrorCode::kInvalidArgument,
                "unable to load root certificates: unable to parse bytes as PEM block" +
                    (config.ca_file.empty() ? std::string() : " (" + config.ca_file + ")"));
  }
  if (!config.ca_file.empty()) {
    endpoint.trust = "the CA file " + config.ca_file;
  } else if (!config.ca_pem.empty()) {
    endpoint.trust = "the CA from certificate-authority-data";
  } else {
    endpoint.trust = "the system trust store";
  }
  return endpoint;
}

}  // namespace trainer::kube::detail
