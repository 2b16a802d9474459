// SPDX-License-Identifier: Apache-2.0
//
// What a misbehaving server or credential plugin can cost a kube::Client, against the loopback
// fault server: bodies and watch events over their bounds (cut with kLimit naming the request),
// the memory a large list takes (measured in a child process), a watch stream of garbage
// (logged, retried with a growing backoff), and an exec plugin that hangs (bounded by the
// request timeout).
#include "support/fault_server.hpp"
#include "temp_dir.hpp"
#include "trainer/kube.hpp"

#include <catch2/catch.hpp>

#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using trainer::ErrorCode;
using trainer::kube::CancelToken;
using trainer::kube::Client;
using trainer::kube::ClientOptions;
using trainer::kube::Config;
using trainer::kube::ExecPlugin;
using trainer::kube::Resource;
using trainer::kube::WatchEvent;
using trainer::kube::WatchOptions;
using trainer::testing::FaultResponse;
using trainer::testing::FaultServer;
using trainer::testing::TempDir;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20U;

ClientOptions test_options() {
  ClientOptions options;
  options.qps = -1;
  options.timeout = 20s;
  options.connect_timeout = 5s;
  options.stream_idle_timeout = 10s;
  return options;
}

Client client_for(const FaultServer& server, ClientOptions options = test_options(),
                  Config config = {}) {
  config.server = server.url();
  if (!config.exec) config.token = "t";
  auto client = Client::create(config, options);
  REQUIRE(client);
  return std::move(*client);
}

Resource config_maps() {
  Resource resource;
  resource.version = "v1";
  resource.resource = "configmaps";
  resource.kind = "ConfigMap";
  return resource;
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A field of /proc/self/status in KiB, -1 when missing.
long status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, field.size() + 1, field + ":") == 0) {
      return std::atol(line.c_str() + field.size() + 1);
    }
  }
  return -1;
}

// A List of `count` ConfigMaps shaped like real objects (metadata with labels, annotations and
// managed fields; a few data keys), about 1 KiB each.
std::string big_list(std::size_t count) {
  std::string text = R"({"kind":"ConfigMapList","apiVersion":"v1",)"
                     R"("metadata":{"resourceVersion":"100"},"items":[)";
  for (std::size_t i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    if (i > 0) text += ',';
    text +=
        R"({"metadata":{"name":"config-)" + n +
        R"(","namespace":"team-a","uid":"3f2a9c1e-7b4d-4e8a-9c2f-)" + n +
        R"(","resourceVersion":")" + n +
        R"(","creationTimestamp":"2026-11-28T15:00:00Z",)"
        R"("labels":{"app.kubernetes.io/name":"trainer","trainer.kubeflow.org/trainjob-name":"job-)" +
        n +
        R"("},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"config-)" +
        n +
        R"(\"}}"},"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update",)"
        R"("apiVersion":"v1","time":"2026-11-28T15:00:00Z","fieldsType":"FieldsV1",)"
        R"("fieldsV1":{"f:data":{".":{},"f:config.yaml":{},"f:hosts":{},"f:world_size":{}},)"
        R"("f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/name":{}}}}}]},)"
        R"("data":{"world_size":"8","hosts":"node-0,node-1,node-2,node-3,node-4,node-5,node-6,node-7",)"
        R"("config.yaml":"trainer:\n  numNodes: 8\n  resourcesPerNode:\n    limits:\n      nvidia.com/gpu: 8\n)"
        R"(  env:\n  - name: NCCL_DEBUG\n    value: INFO\n  - name: EPOCHS\n    value: \")" +
        n + R"(\"\ndataset: s3://bucket/datasets/imagenet/train\nmodel: resnet-152\n"}})";
  }
  return text + "]}";
}

struct ListFigures {
  long baseline_kib = -1;  // resident before the call
  long peak_kib = -1;      // the peak during the call
  long result_kib = -1;    // resident after it, the List still held
  long items = -1;
};

// Lists `server`'s ConfigMaps in a child process (so that nothing this process allocated before
// counts) and returns its peak resident memory above what it started with.
ListFigures list_in_child(const FaultServer& server) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    ListFigures figures;
    // Free memory inherited from the parent would be reused without counting as resident:
    // hand it back first, then restart the peak at what is resident now.
    ::malloc_trim(0);
    std::ofstream("/proc/self/clear_refs") << "5";
    figures.baseline_kib = status_kib("VmRSS");
    Config config;
    config.server = server.url();
    config.token = "t";
    auto client = Client::create(config, test_options());
    if (client) {
      auto list = client->list(config_maps(), "team-a", {});
      if (list) figures.items = static_cast<long>(list->at("items").as_array().size());
      figures.peak_kib = status_kib("VmHWM");
      figures.result_kib = status_kib("VmRSS");
    }
    const auto written = ::write(fds[1], &figures, sizeof figures);
    ::_exit(written == static_cast<ssize_t>(sizeof figures) ? 0 : 1);
  }
  ::close(fds[1]);
  ListFigures figures;
  pollfd entry{fds[0], POLLIN, 0};
  const bool ready = ::poll(&entry, 1, 120000) == 1;
  const bool read_all =
      ready && ::read(fds[0], &figures, sizeof figures) == static_cast<ssize_t>(sizeof figures);
  ::close(fds[0]);
  if (!read_all) ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(read_all);
  return figures;
}

}  // namespace

TEST_CASE("a GET body over max_response_bytes is cut, the error names the request and the limit",
          "[kube][limits]") {
  FaultServer server;
  const std::string url = server.url() + "/api/v1/namespaces/ns/configmaps/big";
  ClientOptions options = test_options();
  std::string expected;
  SECTION("a 2 GiB body is refused by its Content-Length before it is read") {
    FaultResponse answer(200, {{"Content-Type", "application/json"}}, std::string(kMiB, ' '));
    answer.repeat = 2048;
    server.push(answer);
    expected = "Get \"" + url +
               "\": the response is 2147483648 bytes (Content-Length), over the 256 MiB limit "
               "(ClientOptions::max_response_bytes); a list can be paged with ListOptions::limit";
  }
  SECTION("an endless chunked body is cut at the default limit") {
    FaultResponse answer(200, {{"Content-Type", "application/json"}});
    answer.chunks = {{0ms, R"({"kind":"ConfigMap","data":{"k":")"},
                     {0ms, std::string(64 * 1024, 'x')}};
    answer.repeat = std::numeric_limits<std::size_t>::max();
    server.push(answer);
    expected = "Get \"" + url +
               "\": the response exceeds the 256 MiB limit (ClientOptions::max_response_bytes); "
               "a list can be paged with ListOptions::limit";
  }
  SECTION("an 8 MiB chunked body against a 1 MiB limit") {
    options.max_response_bytes = kMiB;
    FaultResponse answer(200, {{"Content-Type", "application/json"}});
    answer.chunks = {
        {0ms, R"({"kind":"ConfigMap","data":{"k":")" + std::string(8 * kMiB, 'x') + "\"}}"}};
    server.push(answer);
    expected = "Get \"" + url +
               "\": the response exceeds the 1 MiB limit (ClientOptions::max_response_bytes); "
               "a list can be paged with ListOptions::limit";
  }
  Client client = client_for(server, options);
  const auto start = Clock::now();
  auto got = client.get(config_maps(), "ns", "big");
  REQUIRE_FALSE(got);
  CHECK(got.error().code == ErrorCode::kLimit);
  CHECK(got.error().message == expected);
  CHECK(seconds_since(start) < 15.0);
}

TEST_CASE("a body at max_response_bytes is read whole", "[kube][limits]") {
  FaultServer server;
  const std::string object =
      R"({"kind":"ConfigMap","data":{"k":")" + std::string(1000, 'x') + "\"}}";
  ClientOptions options = test_options();
  options.max_response_bytes = object.size();
  server.push(FaultResponse(200, {{"Content-Type", "application/json"}}, object));
  FaultResponse chunked(200, {{"Content-Type", "application/json"}});
  chunked.chunks = {{0ms, object.substr(0, 500)}, {0ms, object.substr(500)}};
  server.push(chunked);
  Client client = client_for(server, options);
  for (int i = 0; i < 2; ++i) {
    auto got = client.get(config_maps(), "ns", "exact");
    REQUIRE(got);
    CHECK(got->at("data").at("k").as_string().size() == 1000);
  }
}

TEST_CASE("a list is decoded as it arrives: peak memory is a small multiple of its size",
          "[kube][limits]") {
  FaultServer server;
#if defined(__SANITIZE_ADDRESS__)
  // Instrumented, 64 MiB take longer to decode than the request may (and the figures below are
  // not checked): the same path on a list of 4 MiB.
  constexpr long kItems = 4 * 1024;
#else
  constexpr long kItems = 64 * 1024;
#endif
  const std::string body = big_list(static_cast<std::size_t>(kItems));
  REQUIRE(body.size() > static_cast<std::size_t>(kItems) * 960);
  // A server that ignores `limit` and sends everything at once.
  server.push(FaultResponse(200, {{"Content-Type", "application/json"}}, body));
  const ListFigures figures = list_in_child(server);
  CHECK(figures.items == kItems);
  REQUIRE(figures.baseline_kib > 0);
  REQUIRE(figures.peak_kib > 0);
  const auto body_kib = static_cast<double>(body.size()) / 1024.0;
  const double ratio = static_cast<double>(figures.peak_kib - figures.baseline_kib) / body_kib;
  const double transient = static_cast<double>(figures.peak_kib - figures.result_kib) / body_kib;
  INFO("body " << body.size() / kMiB << " MiB, peak above baseline "
               << (figures.peak_kib - figures.baseline_kib) / 1024 << " MiB (" << ratio
               << "x), above the result " << (figures.peak_kib - figures.result_kib) / 1024
               << " MiB (" << transient << "x)");
  // The decoded List itself is about 3.4 times its text for objects like these (Boost.JSON
  // allocates every key and every string over 14 bytes on its own); what the call needs besides
  // it (the text, parser buffers) must stay small. Before decoding as the body arrived: 4.2x.
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's shadow memory and quarantine are in the child's RSS too: the figures say
  // nothing about the decoder there, so the ratios are checked in the uninstrumented build.
  WARN("peak memory ratios not checked under AddressSanitizer (" << ratio << "x, " << transient
                                                                 << "x)");
#else
  CHECK(ratio <= 3.5);
  CHECK(transient <= 0.25);
#endif
}

TEST_CASE("a watch event over max_watch_event_bytes ends the watch with the request and the limit",
          "[kube][limits]") {
  FaultServer server;
  ClientOptions options = test_options();
  options.max_watch_event_bytes = kMiB;
  FaultResponse stream;
  stream.chunks = {
      {0ms, R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"6"}}})"
            "\n"},
      {0ms, R"({"type":"ADDED","object":{"metadata":{"name":")"},
      {0ms, std::string(64 * 1024, 'x')}};
  SECTION("an event that never ends") {
    stream.repeat = std::numeric_limits<std::size_t>::max();
  }
  SECTION("an 8 MiB event") {
    stream.chunks.back().data = std::string(8 * kMiB, 'x') + R"(","resourceVersion":"7"}}})"
                                                             "\n";
  }
  server.push(stream);
  Client client = client_for(server, options);
  WatchOptions watch;
  watch.resource_version = "5";
  std::vector<std::string> seen;
  const auto start = Clock::now();
  auto result = client.watch(config_maps(), "ns", watch, [&](const WatchEvent& event) {
    seen.emplace_back(event.object.at("metadata").at("name").as_string());
    return true;
  });
  REQUIRE_FALSE(result);
  CHECK(result.error().code == ErrorCode::kLimit);
  CHECK(result.error().message ==
        "GET /api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5"
        "&allowWatchBookmarks=true&timeoutSeconds=300: a watch event exceeds the 1 MiB limit "
        "(ClientOptions::max_watch_event_bytes)");
  CHECK(seen == std::vector<std::string>{"a"});
  CHECK(seconds_since(start) < 10.0);
}

TEST_CASE("a watch stream of garbage is logged and retried with a growing backoff",
          "[kube][limits]") {
  FaultServer server;
  for (int i = 0; i < 3; ++i) server.push(FaultResponse(200, {}, "garbage\n"));
  CancelToken cancel;
  std::mutex mutex;
  std::vector<std::string> lines;
  ClientOptions options = test_options();
  options.on_log = [&](std::string_view line) {
    const std::lock_guard<std::mutex> lock(mutex);
    lines.emplace_back(line);
    if (lines.size() == 3) cancel.cancel();
  };
  Client client = client_for(server, options);
  WatchOptions watch;
  watch.resource_version = "5";
  watch.cancel = cancel;
  const auto start = Clock::now();
  auto result = client.watch(config_maps(), "ns", watch, [](const WatchEvent&) { return true; });
  REQUIRE_FALSE(result);
  CHECK(result.error().code == ErrorCode::kCancelled);
  CHECK(seconds_since(start) < 10.0);

  const std::string prefix = "watch of configmaps in namespace \"ns\" failed, retrying in ";
  REQUIRE(lines.size() == 3);
  std::vector<double> waits;
  for (const auto& line : lines) {
    INFO(line);
    REQUIRE(line.rfind(prefix, 0) == 0);
    CHECK(line.find("s: GET /api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=5") !=
          std::string::npos);
    CHECK(line.find("the watch stream is not JSON: ") != std::string::npos);
    waits.push_back(std::stod(line.substr(prefix.size())));
  }
  // client-go's reflector: 0.8 s doubling, each wait jittered by up to its own length.
  CHECK(waits[0] >= 0.8);
  CHECK(waits[0] < 1.6);
  CHECK(waits[1] >= 1.6);
  CHECK(waits[1] < 3.2);
  CHECK(waits[2] >= 3.2);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[1].received - requests[0].received >= 800ms);
  CHECK(requests[2].received - requests[1].received >= 1600ms);
}

TEST_CASE("an exec credential plugin that hangs is bounded by the request timeout",
          "[kube][limits]") {
  FaultServer server;
  TempDir dir;
  const std::string plugin = dir.script("cred", "sleep 30\n");
  Config config;
  ExecPlugin exec;
  exec.api_version = "client.authentication.k8s.io/v1";
  exec.command = plugin;
  exec.interactive_mode = "Never";
  config.exec = exec;
  ClientOptions options = test_options();
  options.timeout = 2s;  // exec_timeout stays at its 60 s
  Client client = client_for(server, options, config);
  const auto start = Clock::now();
  auto got = client.get(config_maps(), "ns", "x");
  const double took = seconds_since(start);
  REQUIRE_FALSE(got);
  CHECK(got.error().code == ErrorCode::kTimeout);
  INFO(got.error().message);
  CHECK(got.error().message.rfind(
            "getting credentials: exec: executable " + plugin + " did not finish within ", 0) == 0);
  CHECK(got.error().message.find("ms and was killed (what was left of the request timeout)") !=
        std::string::npos);
  CHECK(took >= 1.5);
  CHECK(took < 6.0);
  CHECK(server.requests().empty());
}
