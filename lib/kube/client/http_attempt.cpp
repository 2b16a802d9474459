// SPDX-License-Identifier: Apache-2.0
#include "kube/client/http_attempt.hpp"

#include "api/ascii.hpp"
#include "kube/client/cancel.hpp"
#include "kube/client/curl_handles.hpp"
#include "kube/client/json_body.hpp"

#include <boost/json/stream_parser.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>

namespace trainer::kube::detail {

namespace {

using Clock = std::chrono::steady_clock;

struct Exchange {
  CURL* easy = nullptr;
  const HttpRequest* request = nullptr;
  bool stream = false;
  HttpResponse response;
  bool delivered = false;
  bool callback_threw = false;
  Clock::time_point last_activity = Clock::now();
  std::size_t max_body = 0;
  std::size_t body_bytes = 0;  // collected so far (as text or into `parser`)
  bool too_large = false;
  std::optional<std::uint64_t> declared_length;
  std::optional<boost::json::stream_parser> parser;  // a 2xx body with decode_json
};

long status_of(const Exchange& exchange) {
  long status = 0;
  curl_easy_getinfo(exchange.easy, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

// At the end of the headers: a body whose Content-Length already says it is over the bound is
// refused before a byte of it is read. Only for identity encoding: a gzip length says nothing
// certain about the decoded size, which the body callback bounds.
bool refuse_by_length(Exchange& exchange) {
  if (exchange.request->method == "HEAD") return false;
  const long status = status_of(exchange);
  if (status < 200 || (exchange.stream && status < 300)) return false;
  const std::string* encoding = exchange.response.header("content-encoding");
  if (encoding != nullptr && !encoding->empty() && *encoding != "identity") return false;
  const std::string* length = exchange.response.header("content-length");
  if (length == nullptr) return false;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), value);
  if (ec != std::errc() || end != length->data() + length->size()) return false;
  if (value <= exchange.max_body) return false;
  exchange.too_large = true;
  exchange.declared_length = value;
  return true;
}

using ascii::to_lower;

using ascii::trim;

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& exchange = *static_cast<Exchange*>(user);
  const size_t bytes = size * count;
  exchange.last_activity = Clock::now();
  const std::string_view line(data, bytes);
  if (trim(line).empty()) return refuse_by_length(exchange) ? 0 : bytes;
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (after a 100 Continue, say): only the last response's headers count.
    exchange.response.headers.clear();
    return bytes;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return bytes;
  exchange.response.headers.emplace_back(to_lower(trim(line.substr(0, colon))),
                                         std::string(trim(line.substr(colon + 1))));
  return bytes;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& exchange = *static_cast<Exchange*>(user);
  const size_t bytes = size * count;
  exchange.last_activity = Clock::now();
  const long status = status_of(exchange);
  if (exchange.stream && status >= 200 && status < 300) {
    exchange.delivered = true;
    bool more = false;
    try {
      more = exchange.request->on_data(std::string_view(data, bytes));
    } catch (...) {
      // Nothing may unwind through libcurl's C frames.
      exchange.callback_threw = true;
      return 0;
    }
    if (!more) {
      exchange.response.stopped = true;
      return 0;  // ends the transfer with CURLE_WRITE_ERROR, which the caller maps to success
    }
    return bytes;
  }
  if (bytes > exchange.max_body - exchange.body_bytes) {
    exchange.too_large = true;
    return 0;  // ends the transfer with CURLE_WRITE_ERROR
  }
  exchange.body_bytes += bytes;
  if (exchange.request->decode_json && status >= 200 && status < 300) {
    if (!exchange.parser) exchange.parser.emplace(boost::json::storage_ptr(), api_parse_options());
    boost::system::error_code ec;
    exchange.parser->write(data, bytes, ec);
    if (ec) {
      exchange.response.json_error = ec.message();
      return 0;
    }
    return bytes;
  }
  exchange.response.body.append(data, bytes);
  return bytes;
}

// The decoded body once the transfer completed.
void finish_json(Exchange& exchange) {
  if (!exchange.parser || !exchange.response.json_error.empty()) return;
  boost::system::error_code ec;
  exchange.parser->finish(ec);
  if (ec) {
    exchange.response.json_error = ec.message();
    return;
  }
  exchange.response.json = exchange.parser->release();
}

bool has_header(const HttpRequest& request, std::string_view lowercase_name) {
  return std::any_of(request.headers.begin(), request.headers.end(),
                     [&](const auto& header) { return to_lower(header.first) == lowercase_name; });
}

// Sets every option of the exchange; the first failing option's code, else CURLE_OK.
CURLcode configure(CURL* easy, Exchange& exchange, const TransferSettings& settings,
                   const HttpRequest& request, const Credentials& credentials, Slist& headers,
                   Slist& connect_to, const std::string& url, char* error_buffer) {
  CURLcode rc = CURLE_OK;
  const auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, option, value);
  };
  set(CURLOPT_ERRORBUFFER, error_buffer);
  set(CURLOPT_URL, url.c_str());
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_SHARE, settings.share);
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings.connect_timeout.count()));
  // Dead peers of long streams: client-go's dialer keeps TCP alive every 30 s.
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  set(CURLOPT_TCP_KEEPIDLE, 30L);
  set(CURLOPT_TCP_KEEPINTVL, 30L);
  set(CURLOPT_USERAGENT, settings.user_agent.c_str());
  if (settings.compression) set(CURLOPT_ACCEPT_ENCODING, "gzip");
  if (!settings.proxy_url.empty()) set(CURLOPT_PROXY, settings.proxy_url.c_str());
  if (!settings.endpoint.connect_to.empty()) {
    if (!slist_append(connect_to, settings.endpoint.connect_to.c_str())) return CURLE_OUT_OF_MEMORY;
    set(CURLOPT_CONNECT_TO, connect_to.get());
  }

  // TLS: verification stays on unless the configuration skips it; a configured CA replaces
  // the system store (client-go trusts only the configured pool).
  set(CURLOPT_SSL_VERIFYPEER, settings.insecure ? 0L : 1L);
  set(CURLOPT_SSL_VERIFYHOST, settings.insecure ? 0L : 2L);
  if (!settings.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(settings.ca_pem.data()), settings.ca_pem.size(),
                   CURL_BLOB_COPY};
    set(CURLOPT_CAINFO_BLOB, &blob);
    set(CURLOPT_CAPATH, static_cast<const char*>(nullptr));
  }
  // Client certificates are sent even when verification is skipped (only the server check
  // is insecure).
  if (!credentials.client_cert_pem.empty() && !credentials.client_key_pem.empty()) {
    curl_blob cert{const_cast<char*>(credentials.client_cert_pem.data()),
                   credentials.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(credentials.client_key_pem.data()),
                  credentials.client_key_pem.size(), CURL_BLOB_COPY};
    set(CURLOPT_SSLCERTTYPE, "PEM");
    set(CURLOPT_SSLCERT_BLOB, &cert);
    set(CURLOPT_SSLKEYTYPE, "PEM");
    set(CURLOPT_SSLKEY_BLOB, &key);
  }

  // Method and body. libcurl's own defaults that a client-go request would not send are
  // switched off: `Expect: 100-continue` and the form Content-Type of POSTFIELDS.
  if (request.method == "GET") {
    set(CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    set(CURLOPT_NOBODY, 1L);
  } else {
    set(CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  const bool has_body = !request.body.empty() || request.method == "POST" ||
                        request.method == "PUT" || request.method == "PATCH";
  if (has_body) {
    set(CURLOPT_POSTFIELDS, request.body.data());
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  if (rc != CURLE_OK) return rc;

  bool ok = true;
  if (!credentials.bearer_token.empty()) {
    ok = ok && slist_append(headers, ("Authorization: Bearer " + credentials.bearer_token).c_str());
  }
  for (const auto& line : settings.extra_headers) ok = ok && slist_append(headers, line.c_str());
  for (const auto& [name, value] : request.headers) {
    ok = ok && slist_append(headers, (name + ": " + value).c_str());
  }
  if (has_body) {
    ok = ok && slist_append(headers, "Expect:");
    if (!has_header(request, "content-type")) ok = ok && slist_append(headers, "Content-Type:");
  }
  if (!ok) return CURLE_OUT_OF_MEMORY;
  set(CURLOPT_HTTPHEADER, headers.get());
  set(CURLOPT_HEADERFUNCTION, &on_header);
  set(CURLOPT_HEADERDATA, &exchange);
  set(CURLOPT_WRITEFUNCTION, &on_body);
  set(CURLOPT_WRITEDATA, &exchange);
  return rc;
}

}  // namespace

AttemptResult run_attempt(CURLM* multi, const TransferSettings& settings,
                          const HttpRequest& request, const Credentials& credentials,
                          std::optional<Clock::time_point> deadline) {
  AttemptResult result;
  EasyHandle easy = new_easy();
  if (!easy) {
    result.failure = {CURLE_OUT_OF_MEMORY, kNoHandleMessage, 0};
    return result;
  }
  Exchange exchange;
  exchange.easy = easy.get();
  exchange.request = &request;
  exchange.stream = static_cast<bool>(request.on_data);
  exchange.max_body = settings.max_response_bytes;
  Slist headers;
  Slist connect_to;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  const std::string url = settings.endpoint.base_url + request.target;
  const CURLcode setup = configure(easy.get(), exchange, settings, request, credentials, headers,
                                   connect_to, url, error_buffer);
  if (setup != CURLE_OK) {
    result.failure = {setup, std::string("libcurl: ") + curl_easy_strerror(setup), 0};
    return result;
  }
  if (curl_multi_add_handle(multi, easy.get()) != CURLM_OK) {
    result.failure = {CURLE_FAILED_INIT, "libcurl: cannot start the transfer", 0};
    return result;
  }

  std::optional<CURLcode> done;
  {
    // Wakes curl_multi_poll below from the cancelling thread; destroyed before the easy
    // handle leaves the multi handle.
    const CancelRegistration wake(request.cancel, [multi] { curl_multi_wakeup(multi); });
    exchange.last_activity = Clock::now();
    while (true) {
      if (request.cancel.cancelled()) {
        result.outcome = AttemptResult::Outcome::kCancelled;
        break;
      }
      int running = 0;
      const CURLMcode mc = curl_multi_perform(multi, &running);
      if (mc != CURLM_OK) {
        done = CURLE_FAILED_INIT;
        break;
      }
      int queued = 0;
      while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
        if (message->msg == CURLMSG_DONE && message->easy_handle == easy.get()) {
          done = message->data.result;
        }
      }
      if (done || running == 0) break;
      const auto now = Clock::now();
      auto wait = std::chrono::milliseconds(1000);
      if (deadline) {
        if (now >= *deadline) {
          result.outcome = AttemptResult::Outcome::kDeadline;
          break;
        }
        wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(*deadline - now));
      }
      if (exchange.stream) {
        const auto silent_until = exchange.last_activity + settings.stream_idle_timeout;
        if (now >= silent_until) {
          result.outcome = AttemptResult::Outcome::kIdle;
          break;
        }
        wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(silent_until - now));
      }
      curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
    }
  }

  result.delivered = exchange.delivered;
  if (done) {
    const bool cut_by_us = *done == CURLE_WRITE_ERROR &&
                           (exchange.response.stopped || !exchange.response.json_error.empty());
    if (exchange.callback_threw) {
      result.outcome = AttemptResult::Outcome::kCallback;
    } else if (exchange.too_large) {
      result.outcome = AttemptResult::Outcome::kTooLarge;
      result.declared_length = exchange.declared_length;
    } else if (*done == CURLE_OK || cut_by_us) {
      if (*done == CURLE_OK) finish_json(exchange);
      result.outcome = AttemptResult::Outcome::kResponse;
      curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &exchange.response.status);
      long version = 0;
      curl_easy_getinfo(easy.get(), CURLINFO_HTTP_VERSION, &version);
      exchange.response.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : 1;
      result.response = std::move(exchange.response);
    } else {
      result.outcome = AttemptResult::Outcome::kFailed;
      long os_errno = 0;
      curl_easy_getinfo(easy.get(), CURLINFO_OS_ERRNO, &os_errno);
      result.failure = {*done, error_buffer, os_errno};
    }
  } else if (result.outcome == AttemptResult::Outcome::kFailed) {
    // The loop ended without a message: libcurl itself failed, or the transfer vanished.
    result.failure = {CURLE_FAILED_INIT, "libcurl: the transfer ended without a result", 0};
  }
  curl_multi_remove_handle(multi, easy.get());
  return result;
}

}  // namespace trainer::kube::detail
