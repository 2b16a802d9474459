// SPDX-License-Identifier: Apache-2.0
//
// The executor's callbacks run without its lock (lib/local/executor.cpp): a log callback may
// call status() and cancel(), as the C ABI's log sink does from another thread while holding
// its own lock (a lock-order inversion that hung capi.c_run about once in 30 runs). Host
// isolation: no privilege needed.
#include <catch2/catch.hpp>

#include "temp_dir.hpp"
#include "trainer/local.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

#include <unistd.h>

namespace {

namespace json = boost::json;
using trainer::local::Executor;
using trainer::local::ExecutorOptions;
using trainer::local::Phase;

json::value chatty_jobset() {
  return json::parse(R"({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
    "metadata": {"name": "chatty", "namespace": "default"},
    "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": {
      "backoffLimit": 0, "template": {"spec": {"terminationGracePeriodSeconds": 1,
        "containers": [{"name": "node", "command": ["/bin/sh", "-c",
          "while true; do echo line; sleep 0.01; done"]}]}}}}}]}})");
}

}  // namespace

TEST_CASE("executor: a log callback may call status() and cancel()") {
  for (int round = 0; round < 20; ++round) {
    std::atomic<Executor*> self{nullptr};
    std::atomic<int> lines{0};
    const trainer::testing::TempDir tmp("trainer-executor-test");
    ExecutorOptions options;
    options.run_dir = tmp / "run";
    options.isolation = trainer::local::Isolation::kHost;
    options.on_warning = [](std::string_view) {};
    options.on_log = [&](const trainer::local::LogLine&) {
      ++lines;
      if (Executor* e = self.load()) {
        // Both take the executor's state; the supervisor delivering this line must not hold it.
        CHECK(e->status().as_object().contains("phase"));
        e->cancel();
      }
    };
    auto started = Executor::start({chatty_jobset()}, std::move(options));
    REQUIRE(started.has_value());
    self.store(started->get());
    const auto phase = (*started)->wait(std::chrono::seconds(30));
    REQUIRE(phase == Phase::kFailed);
    const auto status = (*started)->status();
    CHECK(status.at("conditions").as_array().at(0).at("reason") == "Cancelled");
    CHECK(lines.load() > 0);
  }
}
