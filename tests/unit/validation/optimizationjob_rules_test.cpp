// SPDX-License-Identifier: Apache-2.0
//
// Every CRD schema and CEL rule of the OptimizationJob (reference 1.15) with upstream's texts.
#include "test_support.hpp"

#include "trainer/defaults.hpp"

#include <catch2/catch.hpp>

using trainer::test::rendered;
using Strings = std::vector<std::string>;

namespace {

trainer::OptimizationParameter range_param(const char* name, const char* min, const char* max,
                                           bool log = false) {
  trainer::OptimizationParameter p;
  p.name = name;
  trainer::RangeSearchSpace r{min, max, trainer::ParameterType::kFloat};
  if (log) {
    p.search_space.log_uniform = r;
  } else {
    p.search_space.uniform = r;
  }
  return p;
}

trainer::OptimizationParameter categorical(const char* name, std::vector<std::string> choices) {
  trainer::OptimizationParameter p;
  p.name = name;
  p.search_space.categorical = trainer::CategoricalSearchSpace{std::move(choices)};
  return p;
}

trainer::OptimizationJob valid_opt_job() {
  trainer::OptimizationJob job;
  job.metadata.name = "tune";
  job.metadata.namespace_ = "team";
  job.spec.objectives.push_back({"loss", std::nullopt});
  job.spec.parameters.push_back(range_param("lr", "0.001", "0.1", true));
  job.spec.train_job_template.spec.runtime_ref.name = "torch-distributed";
  trainer::apply_defaults(job);
  return job;
}

Strings errors_of(const trainer::OptimizationJob& job) {
  return rendered(trainer::validate_optimization_job(job));
}

}  // namespace

TEST_CASE("a defaulted minimal OptimizationJob is valid", "[validation][optimizationjob]") {
  const auto r = trainer::validate_optimization_job(valid_opt_job());
  CHECK(r.ok());
  CHECK(r.warnings.empty());
}

TEST_CASE("objectives: exactly one, metric 1..64 characters", "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.objectives.clear();
  CHECK(errors_of(job) == Strings{"spec.objectives: Required value"});
  job.spec.objectives = {{"a", std::nullopt}, {"a", std::nullopt}};
  CHECK(errors_of(job) == Strings{"spec.objectives: Too many: 2: must have at most 1 item",
                                  "spec.objectives[1]: Duplicate value: {\"metric\":\"a\"}"});
  job.spec.objectives = {{"", std::nullopt}};
  CHECK(errors_of(job) == Strings{"spec.objectives[0].metric: Required value"});
  job.spec.objectives = {{std::string(65, 'm'), std::nullopt}};
  CHECK(errors_of(job) ==
        Strings{"spec.objectives[0].metric: Too long: may not be more than 64 bytes"});
  job.spec.objectives = {{std::string(64, 'm'), std::nullopt}};
  CHECK(errors_of(job).empty());
}

TEST_CASE("parameters: 1..100, unique names of 1..64 characters", "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.parameters.clear();
  CHECK(errors_of(job) == Strings{"spec.parameters: Required value"});
  for (int i = 0; i < 101; ++i) {
    job.spec.parameters.push_back(categorical(("p" + std::to_string(i)).c_str(), {"a"}));
  }
  CHECK(errors_of(job) == Strings{"spec.parameters: Too many: 101: must have at most 100 items"});
  job.spec.parameters.resize(100);
  CHECK(errors_of(job).empty());
  job.spec.parameters = {categorical("x", {"a"}), categorical("x", {"b"})};
  CHECK(errors_of(job) == Strings{"spec.parameters[1]: Duplicate value: {\"name\":\"x\"}"});
  job.spec.parameters = {categorical("", {"a"}), categorical(std::string(65, 'n').c_str(), {"a"})};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].name: Required value",
                "spec.parameters[1].name: Too long: may not be more than 64 bytes"});
}

TEST_CASE("searchSpace: exactly one of uniform, logUniform, categorical",
          "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.parameters[0].search_space = {};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].searchSpace: Invalid value: exactly one of the fields in "
                "[uniform logUniform categorical] must be set"});
  job.spec.parameters[0] = range_param("lr", "1", "2");
  job.spec.parameters[0].search_space.categorical = trainer::CategoricalSearchSpace{{"a"}};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].searchSpace: Invalid value: exactly one of the fields in "
                "[uniform logUniform categorical] must be set"});
}

TEST_CASE("min/max: required decimal strings of at most 64 characters, min < max",
          "[validation][optimizationjob]") {
  const std::string pattern = "'^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$'";
  auto job = valid_opt_job();
  job.spec.parameters = {range_param("u", "", "")};
  CHECK(errors_of(job) == Strings{"spec.parameters[0].searchSpace.uniform.max: Required value",
                                  "spec.parameters[0].searchSpace.uniform.min: Required value"});
  job.spec.parameters = {range_param("u", "01", "1e")};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].searchSpace.uniform.max: Invalid value: \"1e\": "
                "spec.parameters[0].searchSpace.uniform.max in body should match " +
                    pattern,
                "spec.parameters[0].searchSpace.uniform.min: Invalid value: \"01\": "
                "spec.parameters[0].searchSpace.uniform.min in body should match " +
                    pattern});
  const std::string long_number = "1" + std::string(64, '0');
  job.spec.parameters = {range_param("u", "0", long_number.c_str())};
  CHECK(errors_of(job) == Strings{"spec.parameters[0].searchSpace.uniform.max: Too long: may not "
                                  "be more than 64 bytes"});
  for (const char* ok : {"-1.5", "0", "2.5e-3", "1E+2"}) {
    job.spec.parameters = {range_param("u", ok, "1000")};
    CHECK(errors_of(job).empty());
  }
  job.spec.parameters = {range_param("u", "2", "2")};
  CHECK(errors_of(job) == Strings{"spec.parameters[0].searchSpace.uniform: Invalid value: min "
                                  "must be strictly less than max"});
  job.spec.parameters = {range_param("u", "3.5", "1e0")};
  CHECK(errors_of(job) == Strings{"spec.parameters[0].searchSpace.uniform: Invalid value: min "
                                  "must be strictly less than max"});
}

TEST_CASE("logUniform: min > 0 and min < max", "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.parameters = {range_param("l", "0", "1", true)};
  CHECK(errors_of(job) == Strings{"spec.parameters[0].searchSpace.logUniform: Invalid value: min "
                                  "must be strictly greater than 0"});
  job.spec.parameters = {range_param("l", "-2", "-3", true)};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].searchSpace.logUniform: Invalid value: min must be strictly "
                "greater than 0",
                "spec.parameters[0].searchSpace.logUniform: Invalid value: min must be strictly "
                "less than max"});
  job.spec.parameters = {range_param("l", "1e-5", "1", true)};
  CHECK(errors_of(job).empty());
}

TEST_CASE("categorical: 1..100 unique choices of at most 64 characters",
          "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.parameters = {categorical("c", {})};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].searchSpace.categorical.choices: Required value"});
  std::vector<std::string> many;
  for (int i = 0; i < 101; ++i) many.push_back(std::to_string(i));
  job.spec.parameters = {categorical("c", many)};
  CHECK(errors_of(job) == Strings{"spec.parameters[0].searchSpace.categorical.choices: Too many: "
                                  "101: must have at most 100 items"});
  job.spec.parameters = {categorical("c", {"a", std::string(65, 'x'), "a"})};
  CHECK(errors_of(job) ==
        Strings{"spec.parameters[0].searchSpace.categorical.choices[1]: Too long: may not be more "
                "than 64 bytes",
                "spec.parameters[0].searchSpace.categorical.choices[2]: Duplicate value: \"a\""});
}

TEST_CASE("numTrials and parallelTrials: 1..100, parallelTrials <= numTrials",
          "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.num_trials = 0;
  job.spec.parallel_trials = 0;
  CHECK(errors_of(job) ==
        Strings{"spec.numTrials: Invalid value: 0: spec.numTrials in body should be greater than "
                "or equal to 1",
                "spec.parallelTrials: Invalid value: 0: spec.parallelTrials in body should be "
                "greater than or equal to 1"});
  job.spec.num_trials = 101;
  job.spec.parallel_trials = 101;
  CHECK(errors_of(job) ==
        Strings{"spec.numTrials: Invalid value: 101: spec.numTrials in body should be less than "
                "or equal to 100",
                "spec.parallelTrials: Invalid value: 101: spec.parallelTrials in body should be "
                "less than or equal to 100"});
  job.spec.num_trials = 2;
  job.spec.parallel_trials = 3;
  CHECK(errors_of(job) == Strings{"spec: Invalid value: parallelTrials cannot exceed numTrials"});
  job.spec.parallel_trials = 2;
  CHECK(errors_of(job).empty());
}

TEST_CASE("searchAlgorithm: exactly one of random, grid; grid needs categorical parameters",
          "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.search_algorithm = trainer::SearchAlgorithm{};
  CHECK(errors_of(job) == Strings{"spec.searchAlgorithm: Invalid value: exactly one of the fields "
                                  "in [random grid] must be set"});
  job.spec.search_algorithm =
      trainer::SearchAlgorithm{trainer::RandomSearch{}, trainer::GridSearch{}};
  // Both set: the one-of rule, and the grid rule for the logUniform parameter.
  CHECK(errors_of(job) ==
        Strings{"spec.searchAlgorithm: Invalid value: exactly one of the fields in [random grid] "
                "must be set",
                "spec: Invalid value: Grid search requires all parameters to be Categorical; "
                "Uniform and LogUniform are not supported."});
  job.spec.search_algorithm = trainer::SearchAlgorithm{std::nullopt, trainer::GridSearch{}};
  CHECK(errors_of(job) ==
        Strings{"spec: Invalid value: Grid search requires all parameters to be Categorical; "
                "Uniform and LogUniform are not supported."});
  job.spec.parameters = {categorical("a", {"1", "2"}), categorical("b", {"x"})};
  CHECK(errors_of(job).empty());
}

TEST_CASE("trainJobTemplate: no name/namespace, the spec passes the TrainJob spec rules",
          "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.spec.train_job_template.metadata.name = "x";
  CHECK(errors_of(job) == Strings{"spec.trainJobTemplate.metadata: Invalid value: name and "
                                  "namespace cannot be set in a template."});
  job.spec.train_job_template.metadata.name.reset();
  job.spec.train_job_template.metadata.namespace_ = "y";
  CHECK(errors_of(job).size() == 1);
  job.spec.train_job_template.metadata.namespace_.reset();

  job.spec.train_job_template.spec.runtime_ref.name.clear();
  job.spec.train_job_template.spec.active_deadline_seconds = 0;
  job.spec.train_job_template.spec.managed_by = "me";
  job.spec.train_job_template.spec.trainer = trainer::Trainer{};
  job.spec.train_job_template.spec.trainer->num_proc_per_node = 0;
  CHECK(errors_of(job) ==
        Strings{"spec.trainJobTemplate.spec.runtimeRef.name: Required value",
                "spec.trainJobTemplate.spec.trainer.numProcPerNode: Invalid value: 0: "
                "numProcPerNode must be greater than or equal to 1",
                "spec.trainJobTemplate.spec.activeDeadlineSeconds: Invalid value: 0: "
                "spec.trainJobTemplate.spec.activeDeadlineSeconds in body should be greater "
                "than or equal to 1",
                "spec.trainJobTemplate.spec.managedBy: Invalid value: \"me\": ManagedBy must be "
                "trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"});
}

TEST_CASE("status: conditions and result", "[validation][optimizationjob]") {
  auto job = valid_opt_job();
  job.status = trainer::OptimizationJobStatus{};
  job.status->result = trainer::OptimizationResult{};
  job.status->result->parameters = {{"", ""}, {"a", std::string(65, 'v')}};
  job.status->conditions.push_back({"Complete", "Maybe", std::nullopt, "", "Done", ""});
  CHECK(errors_of(job) ==
        Strings{"status.conditions[0].status: Unsupported value: \"Maybe\": supported values: "
                "\"True\", \"False\", \"Unknown\"",
                "status.conditions[0].lastTransitionTime: Required value",
                "status.result.parameters[0].name: Required value",
                "status.result.parameters[0].value: Required value",
                "status.result.parameters[1].value: Too long: may not be more than 64 bytes",
                "status.result.trainJobName: Required value"});
}

TEST_CASE("OptimizationJob spec is immutable on update", "[validation][optimizationjob]") {
  const auto old_job = valid_opt_job();
  auto new_job = old_job;
  new_job.metadata.labels["x"] = "y";
  CHECK(trainer::validate_optimization_job_update(old_job, new_job).ok());
  new_job.spec.num_trials = 5;
  CHECK(rendered(trainer::validate_optimization_job_update(old_job, new_job)) ==
        Strings{"spec: Invalid value: OptimizationJobSpec is immutable and cannot be updated "
                "after creation"});
  // The template's own transition rules report too, as the API server evaluates both.
  new_job = old_job;
  new_job.spec.train_job_template.spec.runtime_ref.name = "other";
  CHECK(rendered(trainer::validate_optimization_job_update(old_job, new_job)) ==
        Strings{"spec.trainJobTemplate.spec.runtimeRef: Invalid value: field is immutable",
                "spec: Invalid value: OptimizationJobSpec is immutable and cannot be updated "
                "after creation"});
}
