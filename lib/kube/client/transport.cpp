// SPDX-License-Identifier: Apache-2.0
//
// The transport's policy around single exchanges (http_attempt.cpp): rate limit, credentials
// and the one 401 refresh, retries on 429/5xx with Retry-After and on a dropped connection of
// an idempotent request, the total deadline, Warning headers.
//
// Connection reuse: libcurl 7.88 cannot share its connection cache between threads (known bug
// 11.11, curl/curl#4915: CURL_LOCK_DATA_CONNECT is unsafe with concurrent threads), so the
// CURLSH shares only DNS and TLS sessions, and connections live in the multi handles, which a
// pool hands to one request at a time (the most recently used first, so a sequential caller
// keeps its warm connection, on whichever thread it runs).
#include "kube/client/transport.hpp"

#include "kube/client/auth.hpp"
#include "kube/client/cancellable_wait.hpp"
#include "kube/client/connection_error.hpp"
#include "kube/client/curl_handles.hpp"
#include "kube/client/endpoint.hpp"
#include "kube/client/http_attempt.hpp"
#include "kube/client/json_body.hpp"
#include "kube/client/rate_limiter.hpp"
#include "kube/client/response_headers.hpp"
#include "trainer.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <set>

namespace trainer::kube::detail {

namespace {

using Clock = std::chrono::steady_clock;

// Idle multi handles (each with its connections) kept for later requests.
constexpr std::size_t kMaxIdleMultis = 16;
// client-go treats a dropped connection of a GET like `Retry-After: 1`.
constexpr std::chrono::seconds kEofRetryWait{1};

const char* go_arch() {
#if defined(__x86_64__)
  return "amd64";
#elif defined(__aarch64__)
  return "arm64";
#elif defined(__i386__)
  return "386";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
  return "ppc64le";
#elif defined(__s390x__)
  return "s390x";
#else
  return "unknown";
#endif
}

std::string seconds_text(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

class CurlTransport final : public Transport {
 public:
  CurlTransport(const Config& config, const ClientOptions& options, Endpoint endpoint,
                std::shared_ptr<Authenticator> authenticator)
      : options_(options),
        authenticator_(std::move(authenticator)),
        limiter_(options.qps, options.burst) {
    settings_.endpoint = std::move(endpoint);
    settings_.ca_pem = config.ca_pem;
    settings_.insecure = config.insecure_skip_tls_verify;
    settings_.proxy_url = config.proxy_url;
    settings_.compression = !config.disable_compression;
    settings_.user_agent =
        options.user_agent.empty()
            ? std::string("libtrainer/") + TRAINER_VERSION_STRING + " (linux/" + go_arch() + ")"
            : options.user_agent;
    if (!config.impersonate_user.empty()) {
      settings_.extra_headers.push_back("Impersonate-User: " + config.impersonate_user);
    }
    for (const auto& group : config.impersonate_groups) {
      settings_.extra_headers.push_back("Impersonate-Group: " + group);
    }
    settings_.connect_timeout = options.connect_timeout;
    settings_.stream_idle_timeout = options.stream_idle_timeout;
    settings_.max_response_bytes = options.max_response_bytes;
  }

  // Sets up the share; false when libcurl refuses.
  bool init_share() {
    share_ = new_share();
    if (!share_) return false;
    CURLSHcode rc = CURLSHE_OK;
    const auto set = [&](CURLSHoption option, auto value) {
      if (rc == CURLSHE_OK) rc = curl_share_setopt(share_.get(), option, value);
    };
    set(CURLSHOPT_LOCKFUNC, &CurlTransport::lock);
    set(CURLSHOPT_UNLOCKFUNC, &CurlTransport::unlock);
    set(CURLSHOPT_USERDATA, static_cast<void*>(&share_locks_));
    set(CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    set(CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    settings_.share = share_.get();
    return rc == CURLSHE_OK;
  }

  Result<HttpResponse> send(const HttpRequest& request) override;
  [[nodiscard]] const std::string& server() const override { return settings_.endpoint.server; }
  [[nodiscard]] std::string describe_credentials() const override {
    return authenticator_->describe();
  }

 private:
  using Locks = std::array<std::mutex, CURL_LOCK_DATA_LAST>;

  static void lock(CURL* /*easy*/, curl_lock_data data, curl_lock_access /*access*/, void* user) {
    (*static_cast<Locks*>(user))[static_cast<std::size_t>(data)].lock();
  }
  static void unlock(CURL* /*easy*/, curl_lock_data data, void* user) {
    (*static_cast<Locks*>(user))[static_cast<std::size_t>(data)].unlock();
  }

  MultiHandle take_multi() {
    {
      const std::lock_guard<std::mutex> lock(pool_mutex_);
      if (!idle_.empty()) {
        MultiHandle multi = std::move(idle_.back());
        idle_.pop_back();
        return multi;
      }
    }
    return new_multi();
  }

  void give_back(MultiHandle multi) {
    const std::lock_guard<std::mutex> lock(pool_mutex_);
    if (idle_.size() < kMaxIdleMultis) idle_.push_back(std::move(multi));
  }

  [[nodiscard]] std::string describe(const HttpRequest& request) const {
    return go_method(request.method) + " \"" + settings_.endpoint.base_url + request.target + "\"";
  }

  void log(const std::string& line) const {
    if (!options_.on_log) return;
    try {
      options_.on_log(line);
    } catch (...) {
      // A log sink that throws loses that line, not the request.
    }
  }

  void report_warnings(const HttpResponse& response, std::set<std::string>& seen) const {
    if (!options_.on_warning) return;
    for (const auto& [name, value] : response.headers) {
      if (name != "warning") continue;
      for (auto& text : parse_warnings(value)) {
        if (!seen.insert(text).second) continue;
        try {
          options_.on_warning(text);
        } catch (...) {
          // A warning sink that throws loses that warning, not the request.
        }
      }
    }
  }

  // Members in destruction order: the pool's multi handles (and their connections) go before
  // the share they use, and the share before its locks.
  Locks share_locks_;
  ShareHandle share_;
  TransferSettings settings_;
  ClientOptions options_;
  std::shared_ptr<Authenticator> authenticator_;
  RateLimiter limiter_;
  std::mutex pool_mutex_;
  std::vector<MultiHandle> idle_;
};

Result<HttpResponse> CurlTransport::send(const HttpRequest& request) {
  const bool stream = static_cast<bool>(request.on_data);
  const auto timeout = request.timeout.count() > 0 ? request.timeout : options_.timeout;
  std::optional<Clock::time_point> deadline;
  if (!stream && timeout.count() > 0) deadline = Clock::now() + timeout;

  std::string previous;  // what went wrong in the attempt before, for the final error
  const auto failed = [&](ErrorCode code, std::string message) {
    if (!previous.empty()) message += " - error from a previous attempt: " + previous;
    return tl::unexpected<Error>(Error(code, std::move(message)));
  };
  const auto cancelled = [&] {
    return failed(ErrorCode::kCancelled, describe(request) + ": context canceled");
  };
  const auto timed_out = [&] {
    return failed(ErrorCode::kTimeout, describe(request) +
                                           ": context deadline exceeded (request timeout " +
                                           seconds_text(timeout) + ")");
  };
  // A cancellable pause before the next attempt, cut short by the deadline.
  const auto pause = [&](std::chrono::milliseconds wait) {
    auto until = Clock::now() + wait;
    if (deadline) until = std::min(until, *deadline);
    return sleep_until(until, request.cancel);
  };

  int retries = 0;
  bool refreshed = false;
  std::set<std::string> warned;
  while (true) {
    if (request.cancel.cancelled()) return cancelled();
    if (deadline && Clock::now() >= *deadline) return timed_out();
    switch (limiter_.acquire(request.cancel, deadline.value_or(Clock::time_point::max()))) {
      case RateLimiter::Outcome::kAcquired: break;
      case RateLimiter::Outcome::kCancelled: return cancelled();
      case RateLimiter::Outcome::kDeadline: return timed_out();
    }
    auto credentials = authenticator_->current(request.cancel, deadline);
    if (!credentials) {
      if (request.cancel.cancelled()) return cancelled();
      return tl::unexpected<Error>(credentials.error());
    }

    MultiHandle multi = take_multi();
    if (!multi) return failed(ErrorCode::kNoMemory, kNoHandleMessage);
    AttemptResult attempt = run_attempt(multi.get(), settings_, request, *credentials, deadline);
    give_back(std::move(multi));

    switch (attempt.outcome) {
      case AttemptResult::Outcome::kCancelled: return cancelled();
      case AttemptResult::Outcome::kDeadline: return timed_out();
      case AttemptResult::Outcome::kIdle:
        return failed(ErrorCode::kIo, describe(request) + ": no data for " +
                                          seconds_text(options_.stream_idle_timeout) +
                                          ", the connection is treated as dropped");
      case AttemptResult::Outcome::kCallback:
        return failed(ErrorCode::kUser, describe(request) + ": the data callback threw");
      case AttemptResult::Outcome::kTooLarge: {
        std::string what = attempt.declared_length
                               ? "the response is " + std::to_string(*attempt.declared_length) +
                                     " bytes (Content-Length), over"
                               : "the response exceeds";
        return failed(ErrorCode::kLimit,
                      describe(request) + ": " + what + " the " +
                          size_text(options_.max_response_bytes) +
                          " limit (ClientOptions::max_response_bytes); a list can be paged with "
                          "ListOptions::limit");
      }
      case AttemptResult::Outcome::kFailed: {
        Error error =
            connection_error(attempt.failure, settings_.endpoint, request.method, request.target);
        if (request.idempotent && !attempt.delivered && is_probable_eof(attempt.failure.code) &&
            retries < options_.max_retries) {
          previous = error.message;
          ++retries;
          if (!pause(kEofRetryWait)) return cancelled();
          continue;
        }
        return failed(error.code, std::move(error.message));
      }
      case AttemptResult::Outcome::kResponse: break;
    }

    HttpResponse& response = attempt.response;
    report_warnings(response, warned);
    if (response.status == 401 && !refreshed && !response.stopped &&
        authenticator_->invalidate(*credentials)) {
      // client-go only refreshes for the next request; sending this one once more with the
      // fresh credentials spares every caller its own retry.
      refreshed = true;
      previous = "the server answered 401 Unauthorized";
      continue;
    }
    if ((response.status == 429 || response.status >= 500) && !response.stopped &&
        retries < options_.max_retries) {
      const std::string* header = response.header("retry-after");
      const std::optional<long> seconds = header ? parse_retry_after(*header) : std::nullopt;
      if (seconds) {
        // The header's wait is capped, and the request's deadline may end it sooner: the texts
        // say the wait that is really taken, not the server's number.
        auto wait = std::min<std::chrono::milliseconds>(std::chrono::seconds(*seconds),
                                                        options_.max_retry_wait);
        std::string why;
        if (deadline && *deadline - Clock::now() < wait) {
          wait = std::chrono::ceil<std::chrono::milliseconds>(
              std::max(*deadline - Clock::now(), Clock::duration::zero()));
          why = ", until the request timeout";
        } else if (wait < std::chrono::seconds(*seconds)) {
          why = ", capped by ClientOptions::max_retry_wait";
        }
        const std::string answered = "the server answered " + std::to_string(response.status) +
                                     " with Retry-After: " + std::to_string(*seconds);
        previous = answered + " (waited " + seconds_text(wait) + why + ")";
        log(describe(request) + ": " + answered + ", retrying in " + seconds_text(wait) + why);
        ++retries;
        if (!pause(wait)) return cancelled();
        continue;
      }
    }
    return std::move(response);
  }
}

}  // namespace

const std::string* HttpResponse::header(std::string_view lowercase_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lowercase_name) return &value;
  }
  return nullptr;
}

Result<std::unique_ptr<Transport>> Transport::create(const Config& config,
                                                     const ClientOptions& options,
                                                     std::shared_ptr<Authenticator> authenticator) {
  if (!authenticator) return fail(ErrorCode::kInvalidArgument, "no authenticator");
  auto endpoint = make_endpoint(config);
  if (!endpoint) return tl::unexpected<Error>(endpoint.error());
  auto transport = std::make_unique<CurlTransport>(config, options, std::move(*endpoint),
                                                   std::move(authenticator));
  if (!transport->init_share()) {
    return fail(ErrorCode::kInternal, "libcurl: cannot set up the shared DNS/TLS cache");
  }
  return std::unique_ptr<Transport>(std::move(transport));
}

}  // namespace trainer::kube::detail
