// SPDX-License-Identifier: Apache-2.0
//
// OptimizationJob decoding, encoding (upstream field order) and CRD defaults.
#include "test_support.hpp"
#include "trainer/defaults.hpp"

#include <catch2/catch.hpp>

using trainer::test::json;
using trainer::test::one_doc;

namespace {

constexpr const char* kJob = R"y(apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata:
  name: tune
  namespace: team
spec:
  trainJobTemplate:
    metadata:
      labels: {team: ml}
    spec:
      runtimeRef: {name: torch-distributed}
      trainer:
        image: pytorch
        env: [{name: LR, value: "$(KUBEFLOW_TRAINER_OPT_LR)"}]
  parallelTrials: 2
  numTrials: 4
  parameters:
  - name: lr
    searchSpace:
      logUniform: {min: "0.0001", max: "0.1"}
  - name: layers
    searchSpace:
      uniform: {max: "8", min: "2", type: Int}
  - name: optimizer
    searchSpace:
      categorical: {choices: [sgd, adam]}
  searchAlgorithm:
    random: {seed: 7}
  objectives:
  - metric: loss
    direction: Minimize
status:
  result:
    trainJobName: tune-abc
    parameters: [{name: lr, value: "0.01"}]
)y";

}  // namespace

TEST_CASE("an OptimizationJob decodes into the typed model", "[codec][optimizationjob]") {
  auto decoded = trainer::decode_optimization_job(one_doc(kJob));
  REQUIRE(decoded);
  CHECK(decoded->warnings.empty());
  const auto& job = decoded->object;
  CHECK(job.metadata.name == "tune");
  REQUIRE(job.spec.objectives.size() == 1);
  CHECK(job.spec.objectives[0].metric == "loss");
  CHECK(job.spec.objectives[0].direction == trainer::ObjectiveDirection::kMinimize);
  REQUIRE(job.spec.search_algorithm);
  REQUIRE(job.spec.search_algorithm->random);
  CHECK(job.spec.search_algorithm->random->seed == 7);
  CHECK_FALSE(job.spec.search_algorithm->grid);
  REQUIRE(job.spec.parameters.size() == 3);
  CHECK(job.spec.parameters[0].search_space.log_uniform->min == "0.0001");
  CHECK_FALSE(job.spec.parameters[0].search_space.log_uniform->type);
  CHECK(job.spec.parameters[1].search_space.uniform->type == trainer::ParameterType::kInt);
  CHECK(job.spec.parameters[2].search_space.categorical->choices ==
        std::vector<std::string>{"sgd", "adam"});
  CHECK(job.spec.num_trials == 4);
  CHECK(job.spec.parallel_trials == 2);
  CHECK(job.spec.train_job_template.metadata.labels.at("team") == "ml");
  CHECK(job.spec.train_job_template.spec.runtime_ref.name == "torch-distributed");
  REQUIRE(job.status);
  CHECK(job.status->result->train_job_name == "tune-abc");
  CHECK(job.status->result->parameters[0].value == "0.01");
}

TEST_CASE("an OptimizationJob encodes in upstream's field order and round-trips",
          "[codec][optimizationjob]") {
  auto decoded = trainer::decode_optimization_job(one_doc(kJob));
  REQUIRE(decoded);
  const auto out = trainer::to_json(decoded->object);
  CHECK(trainer::encode_json(out) == trainer::encode_json(json(R"y({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "metadata": {"name": "tune", "namespace": "team"},
    "spec": {
      "objectives": [{"metric": "loss", "direction": "Minimize"}],
      "searchAlgorithm": {"random": {"seed": 7}},
      "parameters": [
        {"name": "lr", "searchSpace": {"logUniform": {"min": "0.0001", "max": "0.1"}}},
        {"name": "layers", "searchSpace": {"uniform": {"min": "2", "max": "8", "type": "Int"}}},
        {"name": "optimizer", "searchSpace": {"categorical": {"choices": ["sgd", "adam"]}}}],
      "numTrials": 4, "parallelTrials": 2,
      "trainJobTemplate": {
        "metadata": {"labels": {"team": "ml"}},
        "spec": {"runtimeRef": {"name": "torch-distributed"},
                 "trainer": {"image": "pytorch",
                             "env": [{"name": "LR", "value": "$(KUBEFLOW_TRAINER_OPT_LR)"}]}}}},
    "status": {"result": {"trainJobName": "tune-abc",
                          "parameters": [{"name": "lr", "value": "0.01"}]}}})y")));
  auto again = trainer::decode_optimization_job(
      trainer::parse_documents(trainer::encode_yaml(out))->front());
  REQUIRE(again);
  CHECK(trainer::to_json(again->object) == out);

  // An empty grid algorithm is kept as `{}`.
  trainer::OptimizationJob grid;
  grid.spec.search_algorithm = trainer::SearchAlgorithm{std::nullopt, trainer::GridSearch{}};
  CHECK(trainer::to_json(grid).at("spec").at("searchAlgorithm") == json(R"({"grid": {}})"));
}

TEST_CASE("OptimizationJob decoding warns about unknown fields and names wrong types",
          "[codec][optimizationjob]") {
  auto decoded = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"objectives": [{"metric": "m", "goal": 1}], "extra": true,
             "searchAlgorithm": {"grid": {"x": 1}},
             "trainJobTemplate": {"spec": {"runtimeRef": {"name": "r"}, "bogus": 1}}}})"));
  REQUIRE(decoded);
  CHECK(decoded->warnings ==
        std::vector<std::string>{"unknown field \"spec.objectives[0].goal\"",
                                 "unknown field \"spec.extra\"",
                                 "unknown field \"spec.searchAlgorithm.grid.x\"",
                                 "unknown field \"spec.trainJobTemplate.spec.bogus\""});

  auto bad = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"numTrials": "three"}})"));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == trainer::ErrorCode::kParse);
  CHECK(bad.error().message == "spec.numTrials: Invalid value: \"three\": expected int32");

  auto nested = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"trainJobTemplate": {"spec": {"trainer": {"numNodes": "two"}}}}})"));
  REQUIRE_FALSE(nested);
  CHECK(nested.error().fields.at(0).path == "spec.trainJobTemplate.spec.trainer.numNodes");

  auto choices = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"parameters": [{"name": "p", "searchSpace": {"categorical": {"choices": "a"}}}]}})"));
  REQUIRE_FALSE(choices);
  CHECK(choices.error().fields.at(0).path == "spec.parameters[0].searchSpace.categorical.choices");

  auto kind = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"})"));
  CHECK_FALSE(kind);
}

TEST_CASE("OptimizationJob enum values outside the CRD enum are refused with the path",
          "[codec][optimizationjob]") {
  auto direction = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"objectives": [{"metric": "m", "direction": "Up"}]}})"));
  REQUIRE_FALSE(direction);
  CHECK(direction.error().code == trainer::ErrorCode::kParse);
  CHECK(direction.error().message ==
        "spec.objectives[0].direction: Unsupported value: \"Up\": supported values: "
        "\"Maximize\", \"Minimize\"");

  auto type = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"parameters": [{"name": "p", "searchSpace": {"uniform": {"type": "Double"}}}]}})"));
  REQUIRE_FALSE(type);
  CHECK(type.error().message ==
        "spec.parameters[0].searchSpace.uniform.type: Unsupported value: \"Double\": supported "
        "values: \"Int\", \"Float\"");

  auto not_string = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "spec": {"objectives": [{"metric": "m", "direction": 1}]}})"));
  REQUIRE_FALSE(not_string);
  CHECK(not_string.error().fields.at(0).path == "spec.objectives[0].direction");
}

TEST_CASE("OptimizationJob CRD defaults", "[defaults][optimizationjob]") {
  auto decoded = trainer::decode_optimization_job(json(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
    "metadata": {"name": "t"},
    "spec": {"objectives": [{"metric": "acc", "direction": "Maximize"}, {"metric": "loss"}],
             "parameters": [
               {"name": "a", "searchSpace": {"uniform": {"min": "0", "max": "1"}}},
               {"name": "b", "searchSpace": {"logUniform": {"min": "1", "max": "2", "type": "Int"}}},
               {"name": "c", "searchSpace": {"categorical": {"choices": ["x"]}}}],
             "trainJobTemplate": {"spec": {"runtimeRef": {"name": "r"},
                                           "initializer": {"model": {"secretRef": {}}}}}}})"));
  REQUIRE(decoded);
  trainer::OptimizationJob job = decoded->object;
  trainer::apply_defaults(job);
  CHECK(trainer::encode_json(trainer::to_json(job).at("spec")) == trainer::encode_json(json(R"({
    "objectives": [{"metric": "acc", "direction": "Maximize"},
                   {"metric": "loss", "direction": "Minimize"}],
    "searchAlgorithm": {"random": {}},
    "parameters": [
      {"name": "a", "searchSpace": {"uniform": {"min": "0", "max": "1", "type": "Float"}}},
      {"name": "b", "searchSpace": {"logUniform": {"min": "1", "max": "2", "type": "Int"}}},
      {"name": "c", "searchSpace": {"categorical": {"choices": ["x"]}}}],
    "numTrials": 1, "parallelTrials": 1,
    "trainJobTemplate": {"spec": {
      "runtimeRef": {"name": "r", "apiGroup": "trainer.kubeflow.org",
                     "kind": "ClusterTrainingRuntime"},
      "initializer": {"model": {"secretRef": {"name": ""}}},
      "suspend": false, "managedBy": "trainer.kubeflow.org/trainjob-controller"}}})")));
  // Idempotent, and an explicit grid or explicit counts are kept.
  trainer::OptimizationJob twice = job;
  trainer::apply_defaults(twice);
  CHECK(trainer::to_json(twice) == trainer::to_json(job));
  trainer::OptimizationJob grid;
  grid.spec.search_algorithm = trainer::SearchAlgorithm{std::nullopt, trainer::GridSearch{}};
  grid.spec.num_trials = 9;
  grid.spec.parallel_trials = 3;
  trainer::apply_defaults(grid);
  CHECK_FALSE(grid.spec.search_algorithm->random);
  CHECK(grid.spec.num_trials == 9);
  CHECK(grid.spec.parallel_trials == 3);
}
