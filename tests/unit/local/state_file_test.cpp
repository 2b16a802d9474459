// SPDX-License-Identifier: Apache-2.0
//
// state.json as readers see it (docs/local.md, "Run folder"): the supervisor writes it once the
// changes waiting for it are handled, so the pods of a step cost one write, yet the file is the
// current state whenever the executor waits, the last write is the final state, and a reader
// never meets a partial document. Host isolation: no privilege needed.
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include "trainer/local.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <unistd.h>

namespace {

namespace json = boost::json;
using trainer::local::Executor;
using trainer::local::ExecutorOptions;
using trainer::local::Phase;
using trainer::testing::TempDir;

// One replicated job of `pods` pods running `script`, restarted `restarts` times when it fails.
json::value jobset(int pods, const std::string& script, int restarts = 0) {
  json::object container{{"name", "node"},
                         {"command", json::array{"/bin/sh", "-c", script.c_str()}}};
  json::object pod{{"terminationGracePeriodSeconds", 1},
                   {"containers", json::array{std::move(container)}}};
  json::object job{{"backoffLimit", 0},
                   {"completions", pods},
                   {"parallelism", pods},
                   {"completionMode", "Indexed"},
                   {"template", json::object{{"spec", std::move(pod)}}}};
  json::object spec{{"replicatedJobs", json::array{json::object{
                                           {"name", "node"},
                                           {"replicas", 1},
                                           {"template", json::object{{"spec", std::move(job)}}}}}}};
  if (restarts > 0) spec["failurePolicy"] = json::object{{"maxRestarts", restarts}};
  return json::object{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                      {"kind", "JobSet"},
                      {"metadata", json::object{{"name", "state"}, {"namespace", "default"}}},
                      {"spec", std::move(spec)}};
}

ExecutorOptions host_options(const TempDir& tmp) {
  ExecutorOptions options;
  options.run_dir = tmp.path() + "/run";
  options.isolation = trainer::local::Isolation::kHost;
  options.on_warning = [](std::string_view) {};
  return options;
}

std::int64_t count(const json::value& state, const char* what) {
  return state.at("podCounts").at(what).as_int64();
}

}  // namespace

TEST_CASE("state.json: current while the executor waits, final when the run ends") {
  const TempDir tmp("trainer-state-test");
  auto options = host_options(tmp);
  const auto dir = options.run_dir;
  std::atomic<int> statuses{0};
  json::value last_status;
  options.on_status = [&](const json::value& s) {
    ++statuses;
    last_status = s;  // the supervisor thread only, never concurrently
  };
  // Six pods that start in one step and wait for a file before they end.
  const std::string go = tmp.path() + "/go";
  auto started = Executor::start({jobset(6, "while [ ! -e " + go + " ]; do sleep 0.02; done")},
                                 std::move(options));
  REQUIRE(started.has_value());
  auto& run = **started;

  // The pods run and nothing else happens: the executor waits, so the file must say so.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    auto state = trainer::local::read_status(dir);
    seen = state && count(*state, "running") == 6;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(seen);
  CHECK(count(run.status(), "running") == 6);

  std::ofstream(go).put('\n');
  REQUIRE(run.wait(std::chrono::seconds(30)) == Phase::kComplete);
  auto state = trainer::local::read_status(dir);
  REQUIRE(state.has_value());
  const auto live = run.status();
  CHECK(state->at("finished") == true);
  CHECK(state->at("phase") == "Complete");
  CHECK(count(*state, "succeeded") == 6);
  CHECK(state->at("pods") == live.at("pods"));
  CHECK(state->at("conditions") == live.at("conditions"));
  // on_status saw every write; the last one is the final state.
  CHECK(statuses.load() >= 2);
  CHECK(last_status.at("finished") == true);
  CHECK(last_status.at("pods") == live.at("pods"));
}

TEST_CASE("state.json: output that keeps the executor busy does not hold the state back") {
  const TempDir tmp("trainer-state-test");
  auto options = host_options(tmp);
  const auto dir = options.run_dir;
  // Pod 0 ends at once; pod 1 prints without a pause, so the supervisor always has output to
  // handle: pod 0's end must still reach the file (within the write's 100 ms bound).
  auto started = Executor::start({jobset(2,
                                         "if [ \"$JOB_COMPLETION_INDEX\" = 0 ]; then exit 0; fi; "
                                         "while :; do echo flood; done")},
                                 std::move(options));
  REQUIRE(started.has_value());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < deadline) {
    auto state = trainer::local::read_status(dir);
    seen = state && count(*state, "succeeded") == 1 && count(*state, "running") == 1;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(seen);
  (*started)->cancel();
  CHECK((*started)->wait(std::chrono::seconds(30)) == Phase::kFailed);
}

TEST_CASE("state.json: a reader never sees a partial document") {
  const TempDir tmp("trainer-state-test");
  auto options = host_options(tmp);
  const auto dir = options.run_dir;
  // Eight pods failing at once, the JobSet restarted three times: many changes in a short time.
  auto started = Executor::start({jobset(8, "exit 1", 3)}, std::move(options));
  REQUIRE(started.has_value());
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, broken{0};
  std::thread reader([&] {
    while (!done.load()) {
      std::ifstream in(dir + "/state.json");
      if (!in) continue;  // not written yet
      std::stringstream text;
      text << in.rdbuf();
      boost::system::error_code ec;
      const auto doc = json::parse(text.str(), ec);
      ++reads;
      if (ec || !doc.is_object() || !doc.as_object().contains("phase")) ++broken;
    }
  });
  const auto phase = (*started)->wait(std::chrono::seconds(60));
  done.store(true);
  reader.join();
  CHECK(phase == Phase::kFailed);
  CHECK(reads.load() > 0);
  CHECK(broken.load() == 0);
  const auto state = trainer::local::read_status(dir);
  REQUIRE(state.has_value());
  CHECK(state->at("restarts") == 3);
  CHECK(state->at("finished") == true);
}
