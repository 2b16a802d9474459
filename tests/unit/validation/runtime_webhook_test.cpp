// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::json_object;
using trainer::test::rendered;
using trainer::test::valid_runtime;
using Strings = std::vector<std::string>;

namespace {

constexpr const char* kDeprecationUrl =
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"
    "#runtime-deprecation-policy";

template <class Runtime>
Runtime ancestors_runtime() {
  auto rt = valid_runtime<Runtime>("ancestors");
  rt.spec.template_.spec = json_object(R"({"replicatedJobs": [
    {"name": "dataset-initializer", "replicas": 2, "template": {
      "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "dataset-initializer"}},
      "spec": {"template": {"spec": {"containers": [{"name": "dataset-initializer"}]}}}}},
    {"name": "model-initializer", "template": {
      "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "model-initializer"}},
      "spec": {"template": {"spec": {
        "initContainers": [{"name": "model-initializer"}],
        "containers": [{"name": "other"}]}}}}},
    {"name": "node", "replicas": 3, "template": {
      "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
      "spec": {"template": {"spec": {}}}}},
    {"name": "unknown-ancestor", "replicas": 5, "template": {
      "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "evaluator"}},
      "spec": {"template": {"spec": {}}}}},
    {"name": "plain", "replicas": 4, "template": {"spec": {"template": {"spec": {}}}}}
  ]})");
  return rt;
}

const Strings kAncestorErrors = {
    "spec.template.spec.replicatedJobs[0].replicas: Invalid value: 2: always must be 1",
    // Only regular containers count; the value is the container list.
    "spec.template.spec.replicatedJobs[1].template.spec.template.spec.containers: Invalid value: "
    "[{\"name\":\"other\"}]: must contain the required container for the ancestor: "
    "model-initializer",
    "spec.template.spec.replicatedJobs[2].replicas: Invalid value: 3: always must be 1",
    "spec.template.spec.replicatedJobs[2].template.spec.template.spec.containers: Invalid value: "
    "null: must contain the required container for the ancestor: trainer"};

}  // namespace

TEST_CASE("runtime webhook: ancestor jobs need one replica and their container",
          "[validation][webhook]") {
  CHECK(rendered(trainer::validate_training_runtime(
            ancestors_runtime<trainer::TrainingRuntime>())) == kAncestorErrors);
  CHECK(rendered(trainer::validate_cluster_training_runtime(
            ancestors_runtime<trainer::ClusterTrainingRuntime>())) == kAncestorErrors);
}

TEST_CASE("runtime webhook: an absent replicas is the JobSet default 1", "[validation][webhook]") {
  auto rt = valid_runtime<trainer::TrainingRuntime>("torch");
  rt.spec.template_.spec["replicatedJobs"].as_array()[0].as_object().erase("replicas");
  CHECK(trainer::validate_training_runtime(rt).ok());
}

TEST_CASE("runtime webhook: the opt-out label skips webhook rules only", "[validation][webhook]") {
  auto rt = ancestors_runtime<trainer::ClusterTrainingRuntime>();
  rt.metadata.labels["trainer.kubeflow.org/webhook-validation"] = "disabled";
  rt.metadata.labels["trainer.kubeflow.org/support"] = "deprecated";
  auto r = trainer::validate_cluster_training_runtime(rt);
  CHECK(r.ok());
  CHECK(r.warnings.empty());  // the warning comes from the webhook too

  rt.spec.ml_policy->mpi = trainer::MPIMLPolicySource{1, "OpenMPI", "/root/.ssh", false};
  CHECK(rendered(trainer::validate_cluster_training_runtime(rt)) ==
        Strings{"spec.mlPolicy: Invalid value: Only one of the policy can be configured"});

  auto tr = ancestors_runtime<trainer::TrainingRuntime>();
  tr.metadata.labels["trainer.kubeflow.org/webhook-validation"] = "enabled";
  CHECK(rendered(trainer::validate_training_runtime(tr)) == kAncestorErrors);
  tr.metadata.labels["trainer.kubeflow.org/webhook-validation"] = "disabled";
  CHECK(trainer::validate_training_runtime(tr).ok());
}

TEST_CASE("ClusterTrainingRuntime deprecation warning on create only", "[validation][webhook]") {
  auto rt = valid_runtime<trainer::ClusterTrainingRuntime>("old-runtime");
  rt.metadata.labels["trainer.kubeflow.org/support"] = "deprecated";
  const auto r = trainer::validate_cluster_training_runtime(rt);
  CHECK(r.ok());
  CHECK(r.warnings == Strings{std::string("ClusterTrainingRuntime \"old-runtime\" is deprecated "
                                          "and will be removed in a future release of Kubeflow "
                                          "Trainer. See runtime deprecation policy: ") +
                              kDeprecationUrl});
  CHECK(trainer::validate_cluster_training_runtime_update(rt, rt).warnings.empty());

  // No warning for namespaced runtimes, nor for other support values.
  auto tr = valid_runtime<trainer::TrainingRuntime>("old-runtime");
  tr.metadata.labels["trainer.kubeflow.org/support"] = "deprecated";
  CHECK(trainer::validate_training_runtime(tr).warnings.empty());
  rt.metadata.labels["trainer.kubeflow.org/support"] = "stable";
  CHECK(trainer::validate_cluster_training_runtime(rt).warnings.empty());
}

TEST_CASE("ClusterTrainingRuntime update runs the webhook", "[validation][webhook]") {
  const auto old_rt = valid_runtime<trainer::ClusterTrainingRuntime>("torch");
  const auto rt = ancestors_runtime<trainer::ClusterTrainingRuntime>();
  CHECK(rendered(trainer::validate_cluster_training_runtime_update(old_rt, rt)) == kAncestorErrors);
  // The objectSelector matches on update when either object matches.
  auto disabled_old = old_rt;
  disabled_old.metadata.labels["trainer.kubeflow.org/webhook-validation"] = "disabled";
  CHECK(rendered(trainer::validate_cluster_training_runtime_update(disabled_old, rt)) ==
        kAncestorErrors);
  auto disabled_new = rt;
  disabled_new.metadata.labels["trainer.kubeflow.org/webhook-validation"] = "disabled";
  CHECK(trainer::validate_cluster_training_runtime_update(disabled_old, disabled_new).ok());
}

TEST_CASE("ValidationResult::merge concatenates", "[validation]") {
  trainer::ValidationResult a;
  a.warnings = {"w1"};
  a.errors = {trainer::field_required("a", "")};
  trainer::ValidationResult b;
  b.warnings = {"w2"};
  b.errors = {trainer::field_required("b", "")};
  a.merge(std::move(b));
  CHECK(a.warnings == Strings{"w1", "w2"});
  CHECK(rendered(a) == Strings{"a: Required value", "b: Required value"});
}
