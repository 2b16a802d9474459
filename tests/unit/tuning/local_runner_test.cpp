// SPDX-License-Identifier: Apache-2.0
// The local tuning runner (include/trainer/tuning_local.hpp): the early stopping annotations,
// metrics from trainerStatus, and run_local itself on a one-pod runtime in host isolation
// (results.json, progress, the first trial's render error, the timeout bound).
#include "temp_dir.hpp"
#include "trainer/codec.hpp"
#include "trainer/tuning_local.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace json = boost::json;
namespace tuning = trainer::tuning;
using trainer::ErrorCode;

namespace {

constexpr const char* kRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: synthetic
spec:
  mlPolicy:
    numNodes: 1
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: unused
                      command: ["true"]
)";

// A job whose trials run `awk <program>` with the parameter x as `x`.
trainer::OptimizationJob job_running(const std::string& program, const std::string& runtime) {
  // The program as a YAML single-quoted scalar (no quote inside the test programs).
  const std::string yaml = R"Y(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata:
  name: unit
spec:
  objectives: [{metric: score, direction: Maximize}]
  searchAlgorithm: {grid: {}}
  parameters:
    - name: x
      searchSpace: {categorical: {choices: ["1", "3", "2"]}}
  numTrials: 3
  parallelTrials: 2
  trainJobTemplate:
    spec:
      runtimeRef: {name: RUNTIME, kind: TrainingRuntime}
      trainer:
        command: ["awk"]
        args: ["-v", "x=$(KUBEFLOW_TRAINER_OPT_X)", 'PROGRAM']
)Y";
  std::string text = yaml;
  text.replace(text.find("RUNTIME"), 7, runtime);
  text.replace(text.find("PROGRAM"), 7, program);
  auto docs = trainer::parse_documents(text);
  REQUIRE(docs);
  auto job = trainer::decode_optimization_job(docs->front());
  REQUIRE(job);
  return job->object;
}

tuning::LocalTuningOptions options_in(const std::string& dir) {
  tuning::LocalTuningOptions o;
  o.run_dir = dir;
  auto runtime = trainer::parse_documents(kRuntime);
  REQUIRE(runtime);
  o.inputs = *runtime;
  o.context = trainer::system_render_context();
  o.executor.isolation = trainer::local::Isolation::kHost;
  return o;
}

}  // namespace

TEST_CASE("early stopping annotations", "[tuning]") {
  trainer::OptimizationJob job;
  auto none = tuning::early_stopping_rule(job);
  REQUIRE(none);
  CHECK_FALSE(none->has_value());

  job.metadata.annotations[tuning::kEarlyStoppingAnnotation] = "medianstop";
  auto defaults = tuning::early_stopping_rule(job);
  REQUIRE(defaults);
  REQUIRE(defaults->has_value());
  CHECK((*defaults)->min_trials_required == 3);
  CHECK((*defaults)->start_step == 4);

  job.metadata.annotations[tuning::kMinTrialsRequiredAnnotation] = "2";
  job.metadata.annotations[tuning::kStartStepAnnotation] = "7";
  auto set = tuning::early_stopping_rule(job);
  REQUIRE(set);
  CHECK((*set)->min_trials_required == 2);
  CHECK((*set)->start_step == 7);

  for (const char* bad : {"0", "-1", "x", "3x", ""}) {
    job.metadata.annotations[tuning::kStartStepAnnotation] = bad;
    auto refused = tuning::early_stopping_rule(job);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message ==
          std::string("metadata.annotations[tuning.trainer.kubeflow.org/start-step]: Invalid "
                      "value: \"") +
              bad + "\": must be a positive integer");
  }
  job.metadata.annotations[tuning::kEarlyStoppingAnnotation] = "hyperband";
  auto unknown = tuning::early_stopping_rule(job);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ErrorCode::kInvalid);
}

TEST_CASE("metrics from trainerStatus: the objective's numbers, numbered after the known ones",
          "[tuning]") {
  trainer::TrainJob job;
  CHECK(tuning::trainer_status_metrics(job, "loss", 0).empty());
  job.status.emplace();
  job.status->trainer_status.emplace();
  job.status->trainer_status->metrics = {
      {"loss", "0.5"}, {"accuracy", "0.9"}, {"loss", "n/a"}, {"loss", "1e-3"}};
  const auto points = tuning::trainer_status_metrics(job, "loss", 4);
  REQUIRE(points.size() == 2);
  CHECK(points[0].value == 0.5);
  CHECK(points[0].step == 4);
  CHECK(points[1].value == 0.001);
  CHECK(points[1].step == 5);
}

TEST_CASE("run_local runs every grid trial, writes results.json and reports progress",
          "[tuning][local]") {
  const trainer::testing::TempDir tmp("tuning-unit-grid");
  const std::string dir = tmp / "run";
  auto options = options_in(dir);
  int progress_calls = 0;
  options.on_progress = [&](const std::vector<tuning::LocalTrial>& trials) {
    ++progress_calls;
    CHECK(trials.size() <= 3);
  };
  auto result = tuning::run_local(job_running("BEGIN { print \"score=\" x * 2 }", "synthetic"),
                                  std::move(options));
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  REQUIRE(result->trials.size() == 3);
  for (const auto& t : result->trials) {
    CHECK(t.trial.state == tuning::TrialState::kSucceeded);
    CHECK(std::filesystem::exists(t.run_dir + "/state.json"));
  }
  CHECK(progress_calls > 0);
  REQUIRE(result->status.result);
  CHECK(result->status.result->train_job_name == "unit-trial-1");  // x=3, Maximize
  auto file = tuning::read_results(dir);
  REQUIRE(file);
  CHECK(file->at("finished") == true);
  CHECK(file->at("trials").as_array().at(1).at("objective") == 6.0);
  CHECK(file->at("status").at("result").at("trainJobName") == "unit-trial-1");

  // The folder now holds a run.
  auto again = tuning::run_local(job_running("BEGIN { }", "synthetic"), options_in(dir));
  REQUIRE_FALSE(again);
  CHECK(again.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("run_local: a first trial that does not render is the run's error", "[tuning][local]") {
  const trainer::testing::TempDir tmp("tuning-unit-norender");
  const std::string dir = tmp / "run";
  auto result = tuning::run_local(job_running("BEGIN { }", "no-such-runtime"), options_in(dir));
  REQUIRE_FALSE(result);
  CHECK(result.error().code == ErrorCode::kNotFound);
}

TEST_CASE("run_local: the timeout cancels the running trials and starts no other",
          "[tuning][local]") {
  const trainer::testing::TempDir tmp("tuning-unit-timeout");
  const std::string dir = tmp / "run";
  auto options = options_in(dir);
  options.timeout = std::chrono::milliseconds(500);
  const auto started = std::chrono::steady_clock::now();
  auto result = tuning::run_local(job_running("BEGIN { system(\"sleep 30\") }", "synthetic"),
                                  std::move(options));
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE(result);
  CHECK(took < std::chrono::seconds(20));
  REQUIRE(result->trials.size() == 2);  // parallelTrials; the third never started
  for (const auto& t : result->trials) {
    CHECK(t.trial.state == tuning::TrialState::kFailed);
    CHECK(t.reason == "Timeout");
    CHECK(t.message == "timeout");
  }
  CHECK_FALSE(result->status.result);
}

TEST_CASE("run_local: trials that cannot start are Failed/StartFailed, three in a row end the run",
          "[tuning][local]") {
  const trainer::testing::TempDir tmp("tuning-unit-nostart");
  const std::string dir = tmp / "run";
  auto options = options_in(dir);
  // The executor cannot start without its pod helper: every trial, the first one too.
  options.executor.pod_helper = dir + "-no-such-helper";
  auto job = job_running("BEGIN { print \"score=1\" }", "synthetic");
  job.spec.search_algorithm.reset();  // random: more suggestions than the grid's 3
  job.spec.num_trials = 10;
  job.spec.parallel_trials = 1;
  auto result = tuning::run_local(std::move(job), std::move(options));
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  REQUIRE(result->trials.size() == tuning::kMaxConsecutiveStartFailures);
  for (const auto& t : result->trials) {
    CHECK(t.trial.state == tuning::TrialState::kFailed);
    CHECK(t.reason == "StartFailed");
    CHECK(t.message.find("start: the pod helper trainer-pod was not found") == 0);
  }
  const trainer::Condition* failed = nullptr;
  for (const auto& c : result->status.conditions) {
    CHECK(c.type != "Complete");
    if (c.type == "Failed") failed = &c;
  }
  REQUIRE(failed != nullptr);
  CHECK(failed->status == "True");
  CHECK(failed->reason == tuning::kTrialsFailedToStartReason);
  CHECK(failed->message.find("3 trials in a row could not start (the last: unit-trial-2: start: "
                             "the pod helper") == 0);
  CHECK(failed->message.find("; stopped after 3 of 10 trials") != std::string::npos);
  auto file = tuning::read_results(dir);
  REQUIRE(file);
  CHECK(file->at("finished") == true);
  CHECK(file->at("trials").as_array().at(0).at("reason") == "StartFailed");
}
