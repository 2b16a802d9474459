// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's local runs (abi::Run) over libtrainer.so: a TrainJob rendered with abi::render()
// and run on this machine, waited with a bound, its log lines delivered to a std::function;
// the timeout, cancellation (by call, by the callback's answer, by its exception), the run folder
// read back, and start errors. Pods run in the host fallback (Isolation::kHost), so no privilege
// is needed (tests/integration/local runs them in namespaces).
#include "temp_dir.hpp"
#include "trainer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace abi = trainer::abi;
using std::chrono::milliseconds;
using trainer::ErrorCode;

constexpr milliseconds kBound{120000};  // no run here takes more than a few seconds

/// A two-node torch TrainJob whose node container runs `script`, with its runtime.
std::string trainjob(const std::string& script) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: cpp-run, namespace: default}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 1
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              backoffLimit: 0
              template:
                spec:
                  terminationGracePeriodSeconds: 2
                  containers:
                    - name: node
                      image: unused
                      command: [/bin/sh, -c, ')" +
         script + R"(']
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: cpp-run, namespace: default}
spec:
  runtimeRef: {name: cpp-run, apiGroup: trainer.kubeflow.org, kind: TrainingRuntime}
  trainer: {numNodes: 2}
)";
}

/// The objects render() makes of trainjob(script), as YAML.
std::string rendered(const std::string& script) {
  auto result = abi::render(trainjob(script));
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result.has_value());
  auto yaml = result->encode(abi::Format::kYaml);
  REQUIRE(yaml.has_value());
  return *yaml;
}

/// What the log callback saw (it runs on the supervisor thread).
struct Lines {
  std::mutex mutex;
  std::vector<std::string> text;
  std::vector<std::string> prefixes;

  void add(const abi::LogLine& line) {
    const std::lock_guard<std::mutex> lock(mutex);
    text.emplace_back(line.text);
    prefixes.emplace_back(line.prefix);
  }
  std::size_t count(const std::string& wanted) {
    const std::lock_guard<std::mutex> lock(mutex);
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), wanted));
  }
};

}  // namespace

TEST_CASE("trainer.hpp Run: a rendered TrainJob runs to Complete with its log lines") {
  static_assert(!std::is_copy_constructible_v<abi::Run>);
  static_assert(std::is_nothrow_move_constructible_v<abi::Run>);
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  auto lines = std::make_shared<Lines>();
  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  options.on_log = [lines](const abi::LogLine& line) {
    lines->add(line);
    return true;
  };
  auto run = abi::Run::start(rendered("echo hello $PET_NODE_RANK"), options);
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run.has_value());
  CHECK(lines.use_count() == 3);  // here, `options`, and the run's copy

  // A move keeps the run (and its callback) going.
  abi::Run moved = std::move(*run);
  auto phase = moved.wait(std::chrono::minutes(2));
  REQUIRE(phase.has_value());
  CHECK(*phase == abi::RunPhase::kComplete);
  CHECK(moved.phase() == abi::RunPhase::kComplete);
  CHECK(abi::run_phase_name(*phase) == "Complete");
  CHECK(abi::run_phase_name(abi::RunPhase::kPending) == "Pending");
  CHECK(abi::run_phase_name(static_cast<abi::RunPhase>(42)) == "Unknown");
  // Both nodes' lines arrived before wait() returned, with their terminal prefixes.
  CHECK(lines->count("hello 0") == 1);
  CHECK(lines->count("hello 1") == 1);
  {
    const std::lock_guard<std::mutex> lock(lines->mutex);
    for (const auto& prefix : lines->prefixes) CHECK(prefix.rfind("node-0-", 0) == 0);
  }
  // A finished run: waiting again, even without time, answers at once.
  auto again = moved.wait(milliseconds(0));
  REQUIRE(again.has_value());
  CHECK(*again == abi::RunPhase::kComplete);

  auto status = moved.status();
  REQUIRE(status.has_value());
  CHECK(status->find("\"Complete\"") != std::string::npos);

  // The run releases its copy of the callback with the handle; the folder outlives both.
  { const abi::Run gone = std::move(moved); }
  options.on_log = nullptr;
  CHECK(lines.use_count() == 1);
  auto saved = abi::Run::read_status(dir + "/run");
  REQUIRE(saved.has_value());
  CHECK(saved->find("\"Complete\"") != std::string::npos);

  // A folder that holds a run is refused, and the callback's copy is released at once.
  options.on_log = [lines](const abi::LogLine&) { return true; };
  auto refused = abi::Run::start(rendered("true"), options);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::kInvalidArgument);
  options.on_log = nullptr;
  CHECK(lines.use_count() == 1);
}

TEST_CASE("trainer.hpp Run: a \\r redraw is a piece that keeps its \\r, \\r\\n a line") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  auto lines = std::make_shared<Lines>();
  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  options.on_log = [lines](const abi::LogLine& line) {
    lines->add(line);
    return true;
  };
  auto run = abi::Run::start(rendered(R"(printf "a\rb\r\nc")"), options);
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run.has_value());
  auto phase = run->wait(kBound);
  REQUIRE(phase.has_value());
  CHECK(*phase == abi::RunPhase::kComplete);
  // Each of the two nodes: the redraw `a`, the line `b\r` (its `\r\n`), the last line `c`.
  CHECK(lines->count("a\r") == 2);
  CHECK(lines->count("b\r") == 2);
  CHECK(lines->count("c") == 2);
  const std::lock_guard<std::mutex> lock(lines->mutex);
  CHECK(lines->text.size() == 6);
}

TEST_CASE("trainer.hpp Run: a wait that runs out of time, then cancel") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  auto lines = std::make_shared<Lines>();
  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  options.on_log = [lines](const abi::LogLine& line) {
    lines->add(line);
    return true;
  };
  auto run = abi::Run::start(rendered("echo started; exec sleep 600"), options);
  REQUIRE(run.has_value());
  const auto before = std::chrono::steady_clock::now();
  auto timed_out = run->wait(std::chrono::milliseconds(300));
  REQUIRE_FALSE(timed_out.has_value());
  CHECK(timed_out.error().code == ErrorCode::kTimeout);
  CHECK(std::chrono::steady_clock::now() - before < std::chrono::seconds(30));
  CHECK(run->phase() != abi::RunPhase::kComplete);
  // Any chrono unit: microseconds round up to a millisecond; std::nullopt would mean no limit.
  auto short_wait = run->wait(std::chrono::microseconds(1500));
  REQUIRE_FALSE(short_wait.has_value());
  CHECK(short_wait.error().code == ErrorCode::kTimeout);

  run->cancel();
  auto phase = run->wait(kBound);
  REQUIRE(phase.has_value());
  CHECK(*phase == abi::RunPhase::kFailed);
  auto status = run->status();
  REQUIRE(status.has_value());
  CHECK(status->find("Cancelled") != std::string::npos);
}

TEST_CASE("trainer.hpp Run: a failing pod fails the run") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  auto run = abi::Run::start(rendered("exit 3"), options);
  REQUIRE(run.has_value());
  auto phase = run->wait(kBound);
  REQUIRE(phase.has_value());
  CHECK(*phase == abi::RunPhase::kFailed);
}

TEST_CASE("trainer.hpp Run: the log callback cancels by answering false") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  options.on_log = [](const abi::LogLine&) { return false; };
  auto run = abi::Run::start(rendered("echo started; exec sleep 600"), options);
  REQUIRE(run.has_value());
  auto phase = run->wait(kBound);
  REQUIRE(phase.has_value());
  CHECK(*phase == abi::RunPhase::kFailed);
  auto status = run->status();
  REQUIRE(status.has_value());
  CHECK(status->find("Cancelled") != std::string::npos);
}

TEST_CASE("trainer.hpp Run: an exception in the log callback cancels, wait() rethrows it") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  options.on_log = [](const abi::LogLine& line) -> bool {
    throw std::runtime_error("no thanks: " + std::string(line.text));
  };
  auto run = abi::Run::start(rendered("echo started; exec sleep 600"), options);
  REQUIRE(run.has_value());
  CHECK_THROWS_WITH(run->wait(kBound), "no thanks: started");
  CHECK(run->phase() == abi::RunPhase::kFailed);
}

TEST_CASE("trainer.hpp Run: start errors are trainer::Error values") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  abi::RunOptions options;
  options.isolation = abi::Isolation::kHost;
  auto no_dir = abi::Run::start(rendered("true"), options);
  REQUIRE_FALSE(no_dir.has_value());
  CHECK(no_dir.error().code == ErrorCode::kInvalidArgument);

  options.run_dir = dir + "/run";
  auto parse = abi::Run::start("a: [", options);
  REQUIRE_FALSE(parse.has_value());
  CHECK(parse.error().code == ErrorCode::kParse);

  auto no_jobset =
      abi::Run::start("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", options);
  REQUIRE_FALSE(no_jobset.has_value());
  CHECK(no_jobset.error().code == ErrorCode::kInvalid);

  auto missing = abi::Run::read_status(dir + "/nothing");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::kNotFound);
}

TEST_CASE("trainer.hpp ProgressServer: a run rendered and started with it takes its posts") {
  const trainer::testing::TempDir tmp("trainer-cpp-run");
  const std::string& dir = tmp.path();
  auto server = abi::ProgressServer::start();
  INFO((server ? std::string() : server.error().message));
  REQUIRE(server.has_value());
  CHECK(server->port() > 0);
  CHECK(server->ca_cert().rfind("-----BEGIN CERTIFICATE-----", 0) == 0);

  abi::RenderOptions render;
  render.feature_gates = "TrainJobStatus=true";
  render.progress_server = &*server;
  // The pod reports 70% and 5 s left (tests/data/local/progress_post.py).
  auto objects =
      abi::render(trainjob(std::string("python3 ") + TRAINER_TEST_PROGRESS_POST + " 70 5"), render);
  INFO((objects ? std::string() : objects.error().message));
  REQUIRE(objects.has_value());
  auto yaml = objects->encode(abi::Format::kYaml);
  REQUIRE(yaml.has_value());
  CHECK(yaml->find(":" + std::to_string(server->port()) + "/apis/trainer.kubeflow.org/") !=
        std::string::npos);

  abi::RunOptions options;
  options.run_dir = dir + "/run";
  options.isolation = abi::Isolation::kHost;
  options.progress_server = &*server;
  auto run = abi::Run::start(*yaml, options);
  INFO((run ? std::string() : run.error().message));
  REQUIRE(run.has_value());
  auto phase = run->wait(kBound);
  REQUIRE(phase.has_value());
  CHECK(*phase == abi::RunPhase::kComplete);
  auto status = run->status();
  REQUIRE(status.has_value());
  CHECK(status->find(R"("trainerStatus":{"progressPercentage":70,"estimatedRemainingSeconds":5)") !=
        std::string::npos);

  // Without the server the projected token has no issuer.
  options.run_dir = dir + "/run2";
  options.progress_server = nullptr;
  auto refused = abi::Run::start(*yaml, options);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::kUnsupported);
}
