// SPDX-License-Identifier: Apache-2.0
//
// The HTTP transport against the loopback fault server: retry policy, timeouts, cancellation,
// the rate limiter, connection reuse, error texts, Warning headers and the 401 refresh. The
// Authenticator is a test double (auth.cpp has its own tests against the real API server).
#include "kube/client/transport.hpp"
#include "kube/client/auth.hpp"
#include "kube/client/rate_limiter.hpp"
#include "kube/client/response_headers.hpp"
#include "support/fault_server.hpp"

#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using trainer::ErrorCode;
using trainer::kube::CancelToken;
using trainer::kube::ClientOptions;
using trainer::kube::Config;
using trainer::kube::detail::Authenticator;
using trainer::kube::detail::Credentials;
using trainer::kube::detail::HttpRequest;
using trainer::kube::detail::HttpResponse;
using trainer::kube::detail::Transport;
using trainer::testing::FaultResponse;
using trainer::testing::FaultServer;
using Clock = std::chrono::steady_clock;

namespace {

// Hands out `token`; a refreshable one switches to `next_token` on invalidate().
class TestAuthenticator final : public Authenticator {
 public:
  explicit TestAuthenticator(bool refreshable = false) : refreshable_(refreshable) {}

  trainer::Result<Credentials> current(
      const CancelToken& /*cancel*/,
      std::optional<std::chrono::steady_clock::time_point> /*deadline*/) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    Credentials credentials;
    credentials.bearer_token = token_;
    credentials.generation = generation_;
    return credentials;
  }
  bool invalidate(const Credentials& used) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++invalidations;
    if (!refreshable_) return false;
    if (used.generation == generation_) {
      ++generation_;
      token_ = "token-" + std::to_string(generation_);
    }
    return true;
  }
  [[nodiscard]] std::string describe() const override { return "test user (bearer token)"; }

  std::atomic<int> invalidations{0};

 private:
  const bool refreshable_;
  std::mutex mutex_;
  std::string token_ = "token-0";
  std::uint64_t generation_ = 0;
};

ClientOptions fast_options() {
  ClientOptions options;
  options.qps = -1;  // most tests measure other waits
  options.timeout = 10s;
  options.connect_timeout = 5s;
  options.stream_idle_timeout = 10s;
  return options;
}

std::unique_ptr<Transport> make_transport(const std::string& server, ClientOptions options,
                                          std::shared_ptr<Authenticator> auth = nullptr,
                                          Config config = {}) {
  config.server = server;
  if (!auth) auth = std::make_shared<TestAuthenticator>();
  auto transport = Transport::create(config, options, std::move(auth));
  REQUIRE(transport.has_value());
  return std::move(*transport);
}

HttpRequest get(std::string target) {
  HttpRequest request;
  request.method = "GET";
  request.target = std::move(target);
  request.idempotent = true;
  return request;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A port nobody listens on: bound, then closed.
std::uint16_t closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

TEST_CASE("parse_retry_after takes integer seconds only", "[transport]") {
  using trainer::kube::detail::parse_retry_after;
  CHECK(parse_retry_after("1") == 1);
  CHECK(parse_retry_after(" 30 ") == 30);
  CHECK(parse_retry_after("0") == 0);
  CHECK(parse_retry_after("99999999999999") == 86400);
  CHECK_FALSE(parse_retry_after("").has_value());
  CHECK_FALSE(parse_retry_after("-1").has_value());
  CHECK_FALSE(parse_retry_after("1.5").has_value());
  CHECK_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT").has_value());
}

TEST_CASE("parse_warnings reads code-299 texts", "[transport]") {
  using trainer::kube::detail::parse_warnings;
  using Texts = std::vector<std::string>;
  CHECK(parse_warnings(R"(299 - "unknown field \"spec.foo\"")") ==
        Texts{R"(unknown field "spec.foo")"});
  CHECK(parse_warnings(R"(299 - "a", 299 - "b" "Wed, 21 Oct 2015 07:28:00 GMT", 199 x "c")") ==
        Texts{"a", "b"});
  CHECK(parse_warnings(R"(299 - "a, with comma",299 - "b")") == Texts{"a, with comma", "b"});
  CHECK(parse_warnings("garbage").empty());
  CHECK(parse_warnings(R"(299 - "unterminated)").empty());
}

TEST_CASE("429 with Retry-After is retried after the wait", "[transport]") {
  FaultServer server;
  server.push({429, {{"Retry-After", "1"}}, "slow down"});
  server.push({200, {}, "ok"});
  auto transport = make_transport(server.url(), fast_options());
  const auto start = Clock::now();
  auto response = transport->send(get("/api/v1/pods"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);
  CHECK(response->body == "ok");
  const auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  const double waited =
      std::chrono::duration<double>(requests[1].received - requests[0].received).count();
  CHECK(waited >= 0.95);
  CHECK(seconds_since(start) < 3.0);
}

TEST_CASE("Retry-After waits are capped by max_retry_wait", "[transport]") {
  FaultServer server;
  server.push({503, {{"Retry-After", "100"}}, ""});
  server.push({200, {}, "ok"});
  auto options = fast_options();
  options.max_retry_wait = 200ms;
  auto transport = make_transport(server.url(), options);
  const auto start = Clock::now();
  auto response = transport->send(get("/version"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);
  CHECK(seconds_since(start) >= 0.19);
  CHECK(seconds_since(start) < 2.0);
}

TEST_CASE("a burst of 5xx with Retry-After is retried until an answer", "[transport]") {
  FaultServer server;
  for (int i = 0; i < 3; ++i) server.push({500, {{"Retry-After", "0"}}, "busy"});
  server.push({503, {{"Retry-After", "0"}}, "busy"});
  server.push({200, {}, "ok"});
  auto transport = make_transport(server.url(), fast_options());
  auto response = transport->send(get("/api"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);
  CHECK(server.requests().size() == 5);
}

TEST_CASE("500 and 503 without Retry-After are returned at once", "[transport]") {
  const int status = GENERATE(500, 503);
  FaultServer server;
  server.push({status, {}, "{\"kind\":\"Status\"}"});
  server.push({200, {}, "not reached"});
  auto transport = make_transport(server.url(), fast_options());
  auto response = transport->send(get("/api"));
  REQUIRE(response.has_value());
  CHECK(response->status == status);
  CHECK(response->body == "{\"kind\":\"Status\"}");
  CHECK(server.requests().size() == 1);
}

TEST_CASE("409 is never retried, even with Retry-After", "[transport]") {
  FaultServer server;
  server.push({409, {{"Retry-After", "0"}}, "conflict"});
  server.push({200, {}, "not reached"});
  auto transport = make_transport(server.url(), fast_options());
  HttpRequest request = get("/apis/x");
  request.method = "PUT";
  request.idempotent = false;
  request.body = "{}";
  auto response = transport->send(request);
  REQUIRE(response.has_value());
  CHECK(response->status == 409);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("max_retries bounds the retries; the last answer is returned", "[transport]") {
  FaultServer server;
  for (int i = 0; i < 6; ++i) server.push({429, {{"Retry-After", "0"}}, "again"});
  auto options = fast_options();
  options.max_retries = 2;
  auto transport = make_transport(server.url(), options);
  auto response = transport->send(get("/api"));
  REQUIRE(response.has_value());
  CHECK(response->status == 429);
  CHECK(server.requests().size() == 3);
}

TEST_CASE("a stream cut mid-body is an I/O error after the delivered bytes", "[transport]") {
  FaultServer server;
  FaultResponse stream;
  stream.chunks = {{0ms, "first\n"}, {50ms, "second\n"}};
  stream.cut = true;
  server.push(stream);
  server.push({200, {}, "not reached"});
  auto transport = make_transport(server.url(), fast_options());
  std::string received;
  HttpRequest request = get("/api/v1/namespaces/a/pods/p/log?follow=true");
  request.on_data = [&](std::string_view data) {
    received.append(data);
    return true;
  };
  auto response = transport->send(request);
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kIo);
  CHECK(received == "first\nsecond\n");
  CHECK(server.requests().size() == 1);  // bytes were delivered: no retry
}

TEST_CASE("a GET cut before its answer is complete is retried; a POST is not", "[transport]") {
  FaultServer server;
  FaultResponse cut(200, {}, "0123456789");
  cut.cut_after = 4;
  SECTION("GET") {
    server.push(cut);
    server.push({200, {}, "whole"});
    auto transport = make_transport(server.url(), fast_options());
    auto response = transport->send(get("/api/v1/pods"));
    REQUIRE(response.has_value());
    CHECK(response->body == "whole");
    CHECK(server.requests().size() == 2);
  }
  SECTION("POST") {
    server.push(cut);
    server.push({200, {}, "not reached"});
    auto transport = make_transport(server.url(), fast_options());
    HttpRequest request = get("/api/v1/namespaces/a/pods");
    request.method = "POST";
    request.idempotent = false;
    request.body = "{}";
    auto response = transport->send(request);
    REQUIRE_FALSE(response.has_value());
    CHECK(response.error().code == ErrorCode::kIo);
    CHECK(response.error().message.find("Post \"") == 0);
    CHECK(server.requests().size() == 1);
  }
}

TEST_CASE("a silent stream ends as a dropped connection after the idle timeout", "[transport]") {
  FaultServer server;
  FaultResponse stream;
  stream.chunks = {{0ms, "event\n"}};
  stream.hold = true;
  server.push(stream);
  auto options = fast_options();
  options.stream_idle_timeout = 300ms;
  options.timeout = 100ms;  // does not apply to streams
  auto transport = make_transport(server.url(), options);
  std::string received;
  HttpRequest request = get("/api/v1/pods?watch=true");
  request.idempotent = true;
  request.on_data = [&](std::string_view data) {
    received.append(data);
    return true;
  };
  const auto start = Clock::now();
  auto response = transport->send(request);
  const double took = seconds_since(start);
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kIo);
  CHECK(response.error().message.find("no data for 300ms") != std::string::npos);
  CHECK(received == "event\n");
  CHECK(took >= 0.29);
  CHECK(took < 2.0);
}

TEST_CASE("on_data returning false stops a stream without an error", "[transport]") {
  FaultServer server;
  FaultResponse stream;
  stream.chunks = {{0ms, "one\n"}, {20ms, "two\n"}};
  stream.hold = true;
  server.push(stream);
  auto transport = make_transport(server.url(), fast_options());
  std::string received;
  HttpRequest request = get("/api/v1/pods?watch=true");
  request.on_data = [&](std::string_view data) {
    received.append(data);
    return false;
  };
  auto response = transport->send(request);
  REQUIRE(response.has_value());
  CHECK(response->stopped);
  CHECK(response->status == 200);
  CHECK(received == "one\n");
}

TEST_CASE("a stream's error answer is collected into the body", "[transport]") {
  FaultServer server;
  server.push({403, {{"Content-Type", "application/json"}}, "{\"reason\":\"Forbidden\"}"});
  auto transport = make_transport(server.url(), fast_options());
  bool called = false;
  HttpRequest request = get("/api/v1/pods?watch=true");
  request.on_data = [&](std::string_view) {
    called = true;
    return true;
  };
  auto response = transport->send(request);
  REQUIRE(response.has_value());
  CHECK(response->status == 403);
  CHECK(response->body == "{\"reason\":\"Forbidden\"}");
  CHECK_FALSE(called);
  REQUIRE(response->header("content-type") != nullptr);
  CHECK(*response->header("content-type") == "application/json");
}

TEST_CASE("the total timeout bounds a request and names it", "[transport]") {
  FaultServer server;
  FaultResponse slow(200, {}, "late");
  slow.delay = 5s;
  server.push(slow);
  auto options = fast_options();
  options.timeout = 300ms;
  auto transport = make_transport(server.url(), options);
  const auto start = Clock::now();
  auto response = transport->send(get("/api/v1/namespaces/a/pods"));
  const double took = seconds_since(start);
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kTimeout);
  CHECK(response.error().message ==
        "Get \"" + server.url() +
            "/api/v1/namespaces/a/pods\": context deadline exceeded (request timeout 300ms)");
  CHECK(took >= 0.29);
  CHECK(took < 1.5);
}

TEST_CASE("the total timeout covers retries and mentions the previous attempt", "[transport]") {
  FaultServer server;
  server.push({429, {{"Retry-After", "5"}}, ""});
  server.push({200, {}, "not reached"});
  auto transport = make_transport(server.url(), fast_options());
  HttpRequest request = get("/api");
  request.timeout = 400ms;  // replaces ClientOptions::timeout
  const auto start = Clock::now();
  auto response = transport->send(request);
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kTimeout);
  CHECK(response.error().message.find(
            "error from a previous attempt: the server answered 429 with Retry-After: 5") !=
        std::string::npos);
  CHECK(seconds_since(start) < 1.5);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("a huge Retry-After is reported with the wait really taken", "[transport]") {
  FaultServer server;
  server.push({429, {{"Retry-After", "86400"}}, ""});
  server.push({200, {}, "ok"});
  server.push({429, {{"Retry-After", "86400"}}, ""});
  auto options = fast_options();
  options.max_retry_wait = 200ms;
  std::vector<std::string> lines;
  options.on_log = [&](std::string_view line) { lines.emplace_back(line); };
  auto transport = make_transport(server.url(), options);
  const std::string api = "Get \"" + server.url() + "/api\": ";

  // Capped by max_retry_wait: the log says the capped wait.
  auto response = transport->send(get("/api"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == api +
                        "the server answered 429 with Retry-After: 86400, retrying in 200ms, "
                        "capped by ClientOptions::max_retry_wait");

  // Cut short by the request's deadline: the error says so, not 86400 s.
  HttpRequest request = get("/api");
  request.timeout = 300ms;
  options.max_retry_wait = 30s;
  auto deadline_transport = make_transport(server.url(), options);
  const auto start = Clock::now();
  auto timed_out = deadline_transport->send(request);
  REQUIRE_FALSE(timed_out.has_value());
  CHECK(timed_out.error().code == ErrorCode::kTimeout);
  const std::string& message = timed_out.error().message;
  INFO(message);
  CHECK(message.rfind(api + "context deadline exceeded (request timeout 300ms) - error from a "
                            "previous attempt: the server answered 429 with Retry-After: 86400 "
                            "(waited ",
                      0) == 0);
  CHECK(message.find(", until the request timeout)") != std::string::npos);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].find(", until the request timeout") != std::string::npos);
  CHECK(seconds_since(start) < 1.5);
}

TEST_CASE("cancel() from another thread ends a blocked request at once", "[transport]") {
  const std::string where = GENERATE(as<std::string>{}, "answer", "stream", "retry-wait");
  FaultServer server;
  FaultResponse response(200, {}, "late");
  if (where == "answer") {
    response.delay = 10s;
  } else if (where == "stream") {
    response.chunks = {{0ms, "x"}};
    response.hold = true;
  } else {
    response = FaultResponse(429, {{"Retry-After", "10"}}, "");
  }
  server.push(response);
  auto transport = make_transport(server.url(), fast_options());
  HttpRequest request = get("/api/v1/pods");
  if (where == "stream") request.on_data = [](std::string_view) { return true; };
  Clock::time_point cancelled_at;
  std::thread canceller([&] {
    REQUIRE(server.wait_for_requests(1, 5s));
    std::this_thread::sleep_for(100ms);
    cancelled_at = Clock::now();
    request.cancel.cancel();
  });
  auto result = transport->send(request);
  const auto returned_at = Clock::now();
  canceller.join();
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code == ErrorCode::kCancelled);
  CHECK(result.error().message.find("context canceled") != std::string::npos);
  CHECK(std::chrono::duration<double>(returned_at - cancelled_at).count() < 0.1);
}

TEST_CASE("a request with a cancelled token fails before sending", "[transport]") {
  FaultServer server;
  auto transport = make_transport(server.url(), fast_options());
  HttpRequest request = get("/api");
  request.cancel.cancel();
  auto response = transport->send(request);
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kCancelled);
  CHECK(server.requests().empty());
}

TEST_CASE("the rate limiter spaces requests (qps 10, burst 2)", "[transport]") {
  FaultServer server;
  for (int i = 0; i < 6; ++i) server.push({200, {}, "ok"});
  auto options = fast_options();
  options.qps = 10;
  options.burst = 2;
  auto transport = make_transport(server.url(), options);
  const auto start = Clock::now();
  for (int i = 0; i < 6; ++i) {
    auto response = transport->send(get("/api"));
    REQUIRE(response.has_value());
    CHECK(response->status == 200);
  }
  const double took = seconds_since(start);
  CHECK(took >= 0.38);
  CHECK(took < 1.5);
}

TEST_CASE("a rate-limiter wait is cancellable and bounded by the deadline", "[transport]") {
  trainer::kube::detail::RateLimiter limiter(1, 1);
  CancelToken token;
  const auto far = Clock::now() + 60s;
  CHECK(limiter.acquire(token, far) == trainer::kube::detail::RateLimiter::Outcome::kAcquired);
  // The next token is 1 s away: a deadline before that is refused without waiting.
  CHECK(limiter.acquire(token, Clock::now() + 100ms) ==
        trainer::kube::detail::RateLimiter::Outcome::kDeadline);
  std::thread canceller([&] {
    std::this_thread::sleep_for(100ms);
    token.cancel();
  });
  const auto start = Clock::now();
  CHECK(limiter.acquire(token, far) == trainer::kube::detail::RateLimiter::Outcome::kCancelled);
  canceller.join();
  CHECK(seconds_since(start) < 0.5);
}

TEST_CASE("sequential requests reuse one connection, from any thread", "[transport]") {
  FaultServer server;
  for (int i = 0; i < 6; ++i) server.push({200, {}, "ok"});
  auto transport = make_transport(server.url(), fast_options());
  for (int i = 0; i < 3; ++i) REQUIRE(transport->send(get("/api")).has_value());
  for (int i = 0; i < 3; ++i) {
    std::thread([&] { REQUIRE(transport->send(get("/api")).has_value()); }).join();
  }
  CHECK(server.requests().size() == 6);
  CHECK(server.connections() == 1);
}

TEST_CASE("concurrent requests each get an answer", "[transport]") {
  FaultServer server;
  for (int i = 0; i < 8; ++i) {
    FaultResponse slow(200, {}, "ok");
    slow.delay = 50ms;
    server.push(slow);
  }
  auto transport = make_transport(server.url(), fast_options());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto response = transport->send(get("/api"));
      if (response && response->status == 200 && response->body == "ok") ++ok;
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(ok == 8);
}

TEST_CASE("a refused connection gets kubectl's sentence", "[transport]") {
  const auto port = closed_port();
  auto transport = make_transport("http://127.0.0.1:" + std::to_string(port), fast_options());
  auto response = transport->send(get("/api"));
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kIo);
  CHECK(response.error().message ==
        "The connection to the server 127.0.0.1:" + std::to_string(port) +
            " was refused - did you specify the right host or port?");
}

TEST_CASE("Warning headers reach on_warning once per text per request", "[transport]") {
  FaultServer server;
  server.push({429, {{"Retry-After", "0"}, {"Warning", R"(299 - "first")"}}, ""});
  server.push({200,
               {{"Warning", R"(299 - "first")"},
                {"Warning", R"(299 - "second", 299 - "first")"},
                {"Warning", R"(199 - "not for users")"}},
               "ok"});
  server.push({200, {{"Warning", R"(299 - "first")"}}, "ok"});
  std::vector<std::string> warnings;
  auto options = fast_options();
  options.on_warning = [&](std::string_view text) { warnings.emplace_back(text); };
  auto transport = make_transport(server.url(), options);
  REQUIRE(transport->send(get("/apis/a")).has_value());
  CHECK(warnings == std::vector<std::string>{"first", "second"});
  REQUIRE(transport->send(get("/apis/a")).has_value());  // a new request reports it again
  CHECK(warnings == std::vector<std::string>{"first", "second", "first"});
}

TEST_CASE("401: refreshable credentials are invalidated and the request sent once more",
          "[transport]") {
  FaultServer server;
  SECTION("refreshable, then accepted") {
    auto auth = std::make_shared<TestAuthenticator>(true);
    server.push({401, {}, "Unauthorized"});
    server.push({200, {}, "ok"});
    auto transport = make_transport(server.url(), fast_options(), auth);
    auto response = transport->send(get("/api"));
    REQUIRE(response.has_value());
    CHECK(response->status == 200);
    const auto requests = server.requests();
    REQUIRE(requests.size() == 2);
    CHECK(*requests[0].header("authorization") == "Bearer token-0");
    CHECK(*requests[1].header("authorization") == "Bearer token-1");
    CHECK(auth->invalidations == 1);
  }
  SECTION("refreshable, refused again: the second 401 is returned") {
    auto auth = std::make_shared<TestAuthenticator>(true);
    server.push({401, {}, "Unauthorized"});
    server.push({401, {}, "Unauthorized"});
    server.push({200, {}, "not reached"});
    auto transport = make_transport(server.url(), fast_options(), auth);
    auto response = transport->send(get("/api"));
    REQUIRE(response.has_value());
    CHECK(response->status == 401);
    CHECK(server.requests().size() == 2);
  }
  SECTION("static credentials: the 401 is returned") {
    auto auth = std::make_shared<TestAuthenticator>(false);
    server.push({401, {}, "Unauthorized"});
    server.push({200, {}, "not reached"});
    auto transport = make_transport(server.url(), fast_options(), auth);
    auto response = transport->send(get("/api"));
    REQUIRE(response.has_value());
    CHECK(response->status == 401);
    CHECK(server.requests().size() == 1);
    CHECK(auth->invalidations == 1);
  }
}

TEST_CASE("requests carry the client's headers; responses lowercase names", "[transport]") {
  FaultServer server;
  server.push({201, {{"X-Mixed-Case", "v"}}, "{}"});
  auto options = fast_options();
  Config config;
  config.impersonate_user = "jane";
  config.impersonate_groups = {"devs", "ops"};
  auto transport = make_transport(server.url() + "/prefix/", options, nullptr, config);
  HttpRequest request;
  request.method = "POST";
  request.target = "/api/v1/namespaces/a/pods?fieldValidation=Strict";
  request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  request.body = R"({"kind":"Pod"})";
  auto response = transport->send(request);
  REQUIRE(response.has_value());
  CHECK(response->status == 201);
  REQUIRE(response->header("x-mixed-case") != nullptr);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  const auto& sent = requests[0];
  CHECK(sent.method == "POST");
  CHECK(sent.target == "/prefix/api/v1/namespaces/a/pods?fieldValidation=Strict");
  CHECK(sent.body == R"({"kind":"Pod"})");
  CHECK(*sent.header("content-type") == "application/json");
  CHECK(*sent.header("authorization") == "Bearer token-0");
  CHECK(*sent.header("accept-encoding") == "gzip");
  CHECK(sent.header("user-agent")->rfind(std::string("libtrainer/") + "0.", 0) == 0);
  CHECK(sent.header("user-agent")->find("(linux/") != std::string::npos);
  CHECK(*sent.header("impersonate-user") == "jane");
  CHECK(sent.header("expect") == nullptr);
  int groups = 0;
  for (const auto& [name, value] : sent.headers) {
    if (name == "impersonate-group") ++groups;
  }
  CHECK(groups == 2);
}

TEST_CASE("disable_compression and a custom User-Agent", "[transport]") {
  FaultServer server;
  server.push({200, {}, "ok"});
  auto options = fast_options();
  options.user_agent = "trainerctl/1.0";
  Config config;
  config.disable_compression = true;
  auto transport = make_transport(server.url(), options, nullptr, config);
  REQUIRE(transport->send(get("/api")).has_value());
  const auto sent = server.requests().at(0);
  CHECK(sent.header("accept-encoding") == nullptr);
  CHECK(*sent.header("user-agent") == "trainerctl/1.0");
}

TEST_CASE("unusable server URLs and CA data are refused at creation", "[transport]") {
  const auto create = [](Config config) {
    return Transport::create(config, fast_options(), std::make_shared<TestAuthenticator>());
  };
  Config config;
  config.server = "ftp://example.com";
  CHECK(create(config).error().code == ErrorCode::kInvalidArgument);
  config.server = "not a url";
  CHECK(create(config).error().code == ErrorCode::kInvalidArgument);
  config.server = "https://127.0.0.1:6443";
  config.ca_pem = "not a certificate";
  auto bad_ca = create(config);
  REQUIRE_FALSE(bad_ca.has_value());
  CHECK(bad_ca.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad_ca.error().message.find("unable to load root certificates") == 0);
  config.ca_pem.clear();
  auto ok = create(config);
  REQUIRE(ok.has_value());
  CHECK((*ok)->server() == "https://127.0.0.1:6443");
}

TEST_CASE("the fault server answers by target prefix when a response names one", "[transport]") {
  FaultServer server;
  FaultResponse watch(200, {}, "watch");
  watch.match = "/api/v1/pods?watch";
  server.push(watch);
  server.push({200, {}, "any"});
  auto transport = make_transport(server.url(), fast_options());
  auto first = transport->send(get("/api/v1/pods"));
  auto second = transport->send(get("/api/v1/pods?watch=true"));
  auto third = transport->send(get("/api"));
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  REQUIRE(third.has_value());
  CHECK(first->body == "any");
  CHECK(second->body == "watch");
  CHECK(third->status == 404);
}

TEST_CASE("proxy-url sends requests through the proxy", "[transport]") {
  FaultServer proxy;
  proxy.push({200, {}, "via proxy"});
  Config config;
  config.proxy_url = proxy.url();
  auto transport = make_transport("http://cluster.invalid:6443", fast_options(), nullptr, config);
  auto response = transport->send(get("/version"));
  REQUIRE(response.has_value());
  CHECK(response->body == "via proxy");
  const auto requests = proxy.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].target == "http://cluster.invalid:6443/version");  // absolute form
}
