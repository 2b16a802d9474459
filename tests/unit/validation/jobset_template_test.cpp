// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::json_object;
using trainer::test::rendered;
using Strings = std::vector<std::string>;

namespace {

// A runtime without ancestor labels, so that only the JobSet schema rules speak.
trainer::TrainingRuntime with_jobset(const char* spec) {
  trainer::TrainingRuntime rt;
  rt.metadata.name = "rt";
  rt.spec.template_.spec = json_object(spec);
  return rt;
}

Strings errors_of(const char* spec) {
  return rendered(trainer::validate_training_runtime(with_jobset(spec)));
}

}  // namespace

TEST_CASE("JobSet spec: valid specs pass", "[validation][jobset]") {
  CHECK(errors_of(R"({
    "replicatedJobs": [
      {"name": "a", "replicas": 1, "template": {"spec": {"template": {}}}},
      {"name": "b", "replicas": 2, "dependsOn": [{"name": "a", "status": "Complete"}],
       "template": {"spec": {"template": {}}}}],
    "network": {"enableDNSHostnames": true},
    "successPolicy": {"operator": "All", "targetReplicatedJobs": ["b"]},
    "failurePolicy": {"maxRestarts": 3, "restartStrategy": "Recreate",
                      "rules": [{"name": "r", "action": "FailJobSet"}]},
    "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
    "coordinator": {"replicatedJob": "a"},
    "ttlSecondsAfterFinished": 0,
    "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "data", "namespace": ""}}],
                             "retentionPolicy": {"whenDeleted": "Retain"}}]
  })")
            .empty());
}

TEST_CASE("JobSet spec: StartupPolicy InOrder excludes dependsOn", "[validation][jobset]") {
  CHECK(errors_of(R"({"startupPolicy": {"startupPolicyOrder": "InOrder"},
    "replicatedJobs": [{"name": "a", "template": {"spec": {"template": {}}}},
      {"name": "b", "dependsOn": [{"name": "a", "status": "Ready"}],
       "template": {"spec": {"template": {}}}}]})") ==
        Strings{"spec.template.spec: Invalid value: StartupPolicy and DependsOn APIs are mutually "
                "exclusive"});
}

TEST_CASE("JobSet spec: replicatedJobs and dependsOn rules", "[validation][jobset]") {
  CHECK(errors_of(R"({"replicatedJobs": [
      {"name": "a", "template": {"spec": {}}},
      {"name": "a", "dependsOn": [{"name": "x", "status": "Running"}, {"name": "x"},
        {"name": "y", "status": "Ready"}, {"name": "z", "status": "Ready"},
        {"name": "w", "status": "Ready"}, {"name": "v", "status": "Ready"}]},
      {"replicas": "two", "template": []}]})") ==
        Strings{"spec.template.spec.replicatedJobs[1]: Duplicate value: {\"name\":\"a\"}",
                "spec.template.spec.replicatedJobs[0].template.spec.template: Required value",
                "spec.template.spec.replicatedJobs[1].template: Required value",
                "spec.template.spec.replicatedJobs[1].dependsOn: Too many: 6: must have at most "
                "5 items",
                "spec.template.spec.replicatedJobs[1].dependsOn[1]: Duplicate value: "
                "{\"name\":\"x\"}",
                "spec.template.spec.replicatedJobs[1].dependsOn[0].status: Unsupported value: "
                "\"Running\": supported values: \"Ready\", \"Complete\"",
                "spec.template.spec.replicatedJobs[1].dependsOn[1].status: Required value",
                "spec.template.spec.replicatedJobs[2].name: Required value",
                "spec.template.spec.replicatedJobs[2].template: Invalid value: \"array\": "
                "spec.template.spec.replicatedJobs[2].template in body must be of type object: "
                "\"array\"",
                "spec.template.spec.replicatedJobs[2].replicas: Invalid value: \"string\": "
                "spec.template.spec.replicatedJobs[2].replicas in body must be of type integer: "
                "\"string\""});
}

TEST_CASE("JobSet spec: policies, enums and limits", "[validation][jobset]") {
  CHECK(errors_of(R"({
    "successPolicy": {"operator": "Some"},
    "failurePolicy": {"restartStrategy": "Never", "rules": [{"action": "Explode"}]},
    "startupPolicy": {},
    "coordinator": {},
    "ttlSecondsAfterFinished": -1,
    "volumeClaimPolicies": [{"templates": [{"metadata": {"namespace": "other"}}],
                             "retentionPolicy": {"whenDeleted": "Keep"}}]
  })") == Strings{
              "spec.template.spec.successPolicy.operator: Unsupported value: \"Some\": supported "
              "values: \"All\", \"Any\"",
              "spec.template.spec.failurePolicy.restartStrategy: Unsupported value: \"Never\": "
              "supported values: \"Recreate\", \"BlockingRecreate\", \"InPlaceRestart\"",
              "spec.template.spec.failurePolicy.rules[0].name: Required value",
              "spec.template.spec.failurePolicy.rules[0].action: Unsupported value: \"Explode\": "
              "supported values: \"FailJobSet\", \"RestartJobSet\", "
              "\"RestartJobSetAndIgnoreMaxRestarts\", \"RestartJob\", "
              "\"RestartJobAndIgnoreMaxRestarts\"",
              "spec.template.spec.startupPolicy.startupPolicyOrder: Required value",
              "spec.template.spec.coordinator.replicatedJob: Required value",
              "spec.template.spec.ttlSecondsAfterFinished: Invalid value: -1: "
              "spec.template.spec.ttlSecondsAfterFinished in body should be greater than or equal "
              "to 0",
              "spec.template.spec.volumeClaimPolicies[0]: Invalid value: namespace cannot be set "
              "for VolumeClaimPolicies templates",
              "spec.template.spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: Unsupported "
              "value: \"Keep\": supported values: \"Delete\", \"Retain\""});

  std::string many = R"({"volumeClaimPolicies": [)";
  for (int i = 0; i < 51; ++i) many += std::string(i != 0 ? "," : "") + "{}";
  many += "]}";
  CHECK(
      errors_of(many.c_str()) ==
      Strings{"spec.template.spec.volumeClaimPolicies: Too many: 51: must have at most 50 items"});
}

TEST_CASE("JobSet spec: wrong JSON types never crash", "[validation][jobset]") {
  CHECK(
      errors_of(R"({"replicatedJobs": {"name": "a"}, "network": 1, "successPolicy": "x",
    "failurePolicy": {"rules": {}}, "startupPolicy": [], "ttlSecondsAfterFinished": 1.5,
    "volumeClaimPolicies": [1, {"templates": "t"}]})") ==
      Strings{"spec.template.spec.replicatedJobs: Invalid value: \"object\": "
              "spec.template.spec.replicatedJobs in body must be of type array: \"object\"",
              "spec.template.spec.network: Invalid value: \"integer\": spec.template.spec.network "
              "in body must be of type object: \"integer\"",
              "spec.template.spec.successPolicy: Invalid value: \"string\": "
              "spec.template.spec.successPolicy in body must be of type object: \"string\"",
              "spec.template.spec.failurePolicy.rules: Invalid value: \"object\": "
              "spec.template.spec.failurePolicy.rules in body must be of type array: \"object\"",
              "spec.template.spec.startupPolicy: Invalid value: \"array\": "
              "spec.template.spec.startupPolicy in body must be of type object: \"array\"",
              "spec.template.spec.ttlSecondsAfterFinished: Invalid value: \"number\": "
              "spec.template.spec.ttlSecondsAfterFinished in body must be of type integer: "
              "\"number\"",
              "spec.template.spec.volumeClaimPolicies[0]: Invalid value: \"integer\": "
              "spec.template.spec.volumeClaimPolicies[0] in body must be of type object: "
              "\"integer\"",
              "spec.template.spec.volumeClaimPolicies[1].templates: Invalid value: \"string\": "
              "spec.template.spec.volumeClaimPolicies[1].templates in body must be of type "
              "array: \"string\""});
  // The webhook tolerates the same garbage.
  auto rt = with_jobset(R"({"replicatedJobs": [1, {"template": {"metadata": {"labels": []}}},
    {"template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": 3}}}}]})");
  const auto r = trainer::validate_cluster_training_runtime(trainer::ClusterTrainingRuntime{
      rt.api_version, "ClusterTrainingRuntime", rt.metadata, rt.spec});
  CHECK(r.errors.size() == 6);
}

TEST_CASE("JobSet spec: Value is immutable transition rules", "[validation][jobset][update]") {
  const auto old_rt = with_jobset(R"({
    "replicatedJobs": [{"name": "a", "template": {"spec": {"template": {}}}},
                       {"name": "b", "dependsOn": [{"name": "a", "status": "Ready"}],
                        "template": {"spec": {"template": {}}}}],
    "network": {"subdomain": "x"}, "successPolicy": {"operator": "All"},
    "failurePolicy": {"maxRestarts": 1}, "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
    "volumeClaimPolicies": [{"templates": []}]})");
  auto rt = with_jobset(R"({
    "replicatedJobs": [{"name": "b", "dependsOn": [{"name": "a", "status": "Complete"}],
                        "template": {"spec": {"template": {}}}},
                       {"name": "a", "template": {"spec": {"template": {}}}}],
    "network": {"subdomain": "y"}, "successPolicy": {"operator": "Any"},
    "failurePolicy": {"maxRestarts": 2}, "startupPolicy": {"startupPolicyOrder": "InOrder"},
    "volumeClaimPolicies": []})");
  const std::string p = "spec.template.spec";
  CHECK(rendered(trainer::validate_training_runtime_update(old_rt, rt)) ==
        Strings{p + ": Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive",
                p + ".replicatedJobs[0].dependsOn: Invalid value: Value is immutable",
                p + ".network: Invalid value: Value is immutable",
                p + ".successPolicy: Invalid value: Value is immutable",
                p + ".failurePolicy: Invalid value: Value is immutable",
                p + ".startupPolicy: Invalid value: Value is immutable",
                p + ".volumeClaimPolicies: Invalid value: Value is immutable"});
  // Unchanged or newly added fields pass; dependsOn compares as a map.
  CHECK(trainer::validate_training_runtime_update(old_rt, old_rt).ok());
  const auto added = with_jobset(R"({"replicatedJobs": [{"name": "a",
    "dependsOn": [{"name": "b", "status": "Ready"}], "template": {"spec": {"template": {}}}}],
    "network": {"subdomain": "x"}})");
  CHECK(trainer::validate_training_runtime_update(with_jobset(R"({"replicatedJobs": [
    {"name": "a", "template": {"spec": {"template": {}}}}]})"),
                                                  added)
            .ok());
}
