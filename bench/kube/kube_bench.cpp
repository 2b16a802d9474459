// SPDX-License-Identifier: Apache-2.0
//
// The Kubernetes client against a real kube-apiserver on loopback (the tests' bundle,
// TRAINER_KUBE_TEST_ENV), each operation next to its floor measured in the same run: the same
// HTTP requests sent by a bare libcurl loop with connection reuse (curl_floor.hpp).
//   apply: server-side apply of the objects of a rendered 8-node torch TrainJob (gang scheduled:
//          the runtime snapshot ConfigMap, the JobSet, the PodGroup);
//   list:  1,000 TrainJobs in pages of 500.
// After the timings: peak memory (VmHWM growth) of a client watching 10,000 TrainJob events,
// against the resident size when the watch starts.
// Target (issue 11): ours within 1.15x of the floor. The client's rate limiter is off here
// (qps < 0), as the floor has none; with client-go's default 5 QPS it would be the bottleneck.
#include "curl_floor.hpp"
#include "process_status.hpp"
#include "support/api_server.hpp"
#include "trainer/codec.hpp"
#include "trainer/kube.hpp"
#include "trainer/render.hpp"

#include <benchmark/benchmark.h>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_kube: %s\n", what.c_str());
  std::exit(1);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr int kListed = 1000;
constexpr int kWatchEvents = 10000;

struct Applied {
  trainer::kube::Resource resource;
  boost::json::object object;
  std::string body;    // the apply body the floor sends
  std::string target;  // the floor's request target
};

struct World {
  std::unique_ptr<trainer::testing::ApiServer> server;
  std::unique_ptr<trainer::kube::Client> client;
  std::unique_ptr<bench::CurlFloor> floor;
  std::string apply_ns;
  std::string list_ns;
  std::vector<Applied> objects;
  trainer::kube::Resource trainjobs;
};

trainer::kube::Client make_client(const trainer::testing::ApiServer& server) {
  trainer::kube::LoadOptions load;
  load.kubeconfig = server.kubeconfig();
  auto config = trainer::kube::load_config(load);
  if (!config) die(config.error().message);
  trainer::kube::ClientOptions options;
  options.qps = -1;
  auto client = trainer::kube::Client::create(std::move(*config), options);
  if (!client) die(client.error().message);
  return std::move(*client);
}

std::vector<boost::json::value> rendered_objects(const std::string& ns) {
  const std::string dir = TRAINER_BENCH_RENDER_DATA;
  auto docs = trainer::parse_documents(read_file(dir + "/runtime.yaml") + "---\n" +
                                       read_file(dir + "/trainjob.yaml"));
  if (!docs) die(docs.error().message);
  trainer::RenderContext ctx;
  ctx.train_job_uid = "7d4f5c1e-2b7a-4e55-9c1d-6a0e8f3b2c10";
  ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
  auto out = trainer::render_documents(std::move(*docs), ctx);
  if (!out) die(out.error().message);
  for (auto& o : out->objects) o.as_object()["metadata"].as_object()["namespace"] = ns;
  return std::move(out->objects);
}

std::string collection_path(const trainer::kube::Resource& r, const std::string& ns) {
  const std::string root =
      r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  return root + "/namespaces/" + ns + "/" + r.resource;
}

World& world() {
  static World shared = [] {
    World w;
    w.server = trainer::testing::ApiServer::start_private();
    w.client = std::make_unique<trainer::kube::Client>(make_client(*w.server));
    w.floor = std::make_unique<bench::CurlFloor>(w.server->url(), w.server->token(),
                                                 read_file(w.server->ca_file()));
    w.apply_ns = trainer::testing::unique_namespace(*w.server, "apply");
    w.list_ns = trainer::testing::unique_namespace(*w.server, "list");
    for (auto& v : rendered_objects(w.apply_ns)) {
      auto& o = v.as_object();
      auto r = w.client->resource_for(o["apiVersion"].as_string(), o["kind"].as_string());
      if (!r) die(r.error().message);
      Applied a{*r, o, boost::json::serialize(o), {}};
      a.target = collection_path(*r, w.apply_ns) + "/" +
                 std::string(o["metadata"].as_object()["name"].as_string()) +
                 "?fieldManager=bench&fieldValidation=Strict&force=true";
      w.objects.push_back(std::move(a));
    }
    auto tj = w.client->resource_for("trainer.kubeflow.org/v1alpha1", "TrainJob");
    if (!tj) die(tj.error().message);
    w.trainjobs = *tj;
    auto docs = trainer::parse_documents(
        read_file(std::string(TRAINER_BENCH_RENDER_DATA) + "/trainjob.yaml"));
    if (!docs) die(docs.error().message);
    boost::json::object job = docs->front().as_object();
    job["metadata"].as_object()["namespace"] = w.list_ns;
    for (int i = 0; i < kListed; ++i) {
      job["metadata"].as_object()["name"] = "job-" + std::to_string(i);
      auto created = w.client->create(w.trainjobs, w.list_ns, job);
      if (!created) die(created.error().message);
    }
    return w;
  }();
  return shared;
}

void BM_Apply8NodeTorch_Client(benchmark::State& state) {
  auto& w = world();
  trainer::kube::ApplyOptions options;
  options.field_manager = "bench";
  options.force = true;
  for (auto _ : state) {
    for (const auto& a : w.objects) {
      auto r = w.client->apply(a.resource, w.apply_ns, a.object, options);
      if (!r) die(r.error().message);
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["objects"] = static_cast<double>(w.objects.size());
}

void BM_Apply8NodeTorch_CurlFloor(benchmark::State& state) {
  auto& w = world();
  std::string body;
  for (auto _ : state) {
    for (const auto& a : w.objects) {
      const long status =
          w.floor->send("PATCH", a.target, "application/apply-patch+yaml", a.body, body);
      if (status != 200 && status != 201) die("floor apply: HTTP " + std::to_string(status));
    }
  }
}

void BM_List1000TrainJobs_Client(benchmark::State& state) {
  auto& w = world();
  for (auto _ : state) {
    auto list = w.client->list(w.trainjobs, w.list_ns, {});
    if (!list) die(list.error().message);
    if (list->at("items").as_array().size() != kListed) die("list: wrong item count");
  }
}

void BM_List1000TrainJobs_CurlFloor(benchmark::State& state) {
  auto& w = world();
  const std::string base = collection_path(w.trainjobs, w.list_ns) + "?limit=500";
  std::string body;
  for (auto _ : state) {
    std::string target = base;
    for (;;) {
      if (w.floor->send("GET", target, "", "", body) != 200) die("floor list failed");
      // The continue token, found without decoding the page (the floor decodes nothing).
      const auto at = body.find("\"continue\":\"");
      if (at == std::string::npos) break;
      const auto start = at + 12;
      const auto token = body.substr(start, body.find('"', start) - start);
      if (token.empty()) break;
      target = base + "&continue=" + token;
    }
  }
}

BENCHMARK(BM_Apply8NodeTorch_Client)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Apply8NodeTorch_CurlFloor)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_List1000TrainJobs_Client)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_List1000TrainJobs_CurlFloor)->Unit(benchmark::kMillisecond)->MinTime(3.0);

// Collects real time per benchmark to print ratios after the console report.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& run : runs) {
      if (run.run_type == Run::RT_Iteration)
        times_[run.run_name.function_name] = run.GetAdjustedRealTime();
    }
  }
  void print_ratio(const std::string& ours, const std::string& floor) const {
    const auto a = times_.find(ours);
    const auto b = times_.find(floor);
    if (a == times_.end() || b == times_.end()) return;
    std::printf("ratio %s / %s = %.3f (target <= 1.15)\n", ours.c_str(), floor.c_str(),
                a->second / b->second);
  }

 private:
  std::map<std::string, double> times_;
};

// Peak memory while one client watches 10,000 MODIFIED events of 1,000 TrainJobs, written by
// four writer threads through a second client.
void watch_memory() {
  auto& w = world();
  auto list = w.client->list(w.trainjobs, w.list_ns, {});
  if (!list) die(list.error().message);
  const std::string rv(list->at("metadata").as_object().at("resourceVersion").as_string());
  auto writer_client = make_client(*w.server);
  {
    std::ofstream reset("/proc/self/clear_refs");
    reset << "5";  // resets VmHWM to the current resident size
  }
  const long rss_start = bench::status_kib("VmRSS");
  std::atomic<int> seen{0};
  trainer::kube::WatchOptions options;
  options.resource_version = rv;
  options.bookmarks = false;
  options.timeout = std::chrono::minutes(10);
  std::thread watcher([&] {
    auto r =
        w.client->watch(w.trainjobs, w.list_ns, options, [&](const trainer::kube::WatchEvent& e) {
          if (e.type == trainer::kube::WatchEventType::kModified) ++seen;
          return seen.load() < kWatchEvents;
        });
    if (!r) die("watch: " + r.error().message);
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int round = 0; round < kWatchEvents / kListed; ++round) {
        for (int i = t; i < kListed; i += 4) {
          const std::string patch =
              R"({"metadata":{"annotations":{"bench/round":")" + std::to_string(round) + "\"}}}";
          auto r = writer_client.patch(w.trainjobs, w.list_ns, "job-" + std::to_string(i),
                                       trainer::kube::PatchType::kMerge, patch);
          if (!r) die("patch: " + r.error().message);
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  watcher.join();
  const long peak = bench::status_kib("VmHWM");
  std::printf(
      "watch: %d events, resident at start %ld KiB, peak %ld KiB, growth %ld KiB "
      "(%.0f bytes per event)\n",
      seen.load(), rss_start, peak, peak - rss_start,
      1024.0 * static_cast<double>(peak - rss_start) / kWatchEvents);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  world();  // the server and the 1,000 TrainJobs, outside every timing
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("floor HTTP version: %s\n",
              world().floor->http_version() == CURL_HTTP_VERSION_2_0 ? "2" : "1.x");
  reporter.print_ratio("BM_Apply8NodeTorch_Client", "BM_Apply8NodeTorch_CurlFloor");
  reporter.print_ratio("BM_List1000TrainJobs_Client", "BM_List1000TrainJobs_CurlFloor");
  watch_memory();
  benchmark::Shutdown();
  return 0;
}
