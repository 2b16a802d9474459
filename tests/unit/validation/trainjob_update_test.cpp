// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::env;
using trainer::test::json_object;
using trainer::test::rendered;
using trainer::test::valid_job;
using Strings = std::vector<std::string>;

TEST_CASE("an unchanged TrainJob passes update validation", "[validation][update]") {
  auto job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->num_nodes = 2;
  CHECK(trainer::validate_train_job_update(job, job).ok());
}

TEST_CASE("immutable TrainJob fields", "[validation][update]") {
  const auto old_job = [] {
    auto j = valid_job();
    j.spec.initializer = trainer::Initializer{};
    j.spec.initializer->dataset = trainer::DatasetInitializer{};
    j.spec.initializer->dataset->storage_uri = "hf://a";
    j.spec.trainer = trainer::Trainer{};
    j.spec.trainer->num_nodes = 1;
    j.spec.active_deadline_seconds = 60;
    return j;
  }();
  auto job = old_job;
  job.spec.runtime_ref.name = "other";
  job.spec.initializer->dataset->storage_uri = "hf://b";
  job.spec.trainer->num_nodes = 2;
  job.spec.active_deadline_seconds = 120;
  job.spec.managed_by = trainer::kManagedByMultiKueue;
  job.spec.suspend = true;  // mutable
  CHECK(
      rendered(trainer::validate_train_job_update(old_job, job)) ==
      Strings{"spec.runtimeRef: Invalid value: field is immutable",
              "spec.initializer: Invalid value: field is immutable",
              "spec.trainer: Invalid value: field is immutable",
              "spec.activeDeadlineSeconds: Invalid value: 120: field is immutable",
              "spec.managedBy: Invalid value: \"kueue.x-k8s.io/multikueue\": field is immutable"});
}

TEST_CASE("transition rules apply only to fields present in both objects", "[validation][update]") {
  auto old_job = valid_job();
  old_job.spec.managed_by.reset();
  auto job = valid_job();
  job.spec.trainer = trainer::Trainer{};
  job.spec.trainer->num_nodes = 4;
  job.spec.initializer = trainer::Initializer{};
  job.spec.active_deadline_seconds = 5;
  // Adding fields is not blocked by `self == oldSelf`.
  CHECK(trainer::validate_train_job_update(old_job, job).ok());
  // Nor is removing them.
  CHECK(trainer::validate_train_job_update(job, old_job).ok());
}

TEST_CASE("list-map fields compare without regard to order", "[validation][update]") {
  auto old_job = valid_job();
  old_job.spec.trainer = trainer::Trainer{};
  old_job.spec.trainer->env = {env("A", "1"), env("B", "2")};
  auto job = old_job;
  job.spec.trainer->env = {env("B", "2"), env("A", "1")};
  CHECK(trainer::validate_train_job_update(old_job, job).ok());
  // Atomic lists keep their order.
  old_job.spec.trainer->command = std::vector<std::string>{"a", "b"};
  job.spec.trainer->command = std::vector<std::string>{"b", "a"};
  CHECK(rendered(trainer::validate_train_job_update(old_job, job)) ==
        Strings{"spec.trainer: Invalid value: field is immutable"});
}

namespace {

trainer::RuntimePatch patch(const char* manager, const trainer::PodSpecPatch& pod) {
  trainer::RuntimePatch p;
  p.manager = manager;
  trainer::ReplicatedJobPatch rj;
  rj.name = "node";
  rj.template_.emplace().spec.emplace().template_.emplace().spec = pod;
  p.training_runtime_spec.emplace().template_.emplace().spec.emplace().replicated_jobs.push_back(
      rj);
  return p;
}

trainer::PodSpecPatch full_pod() {
  trainer::PodSpecPatch pod;
  pod.service_account_name = "sa";
  pod.volumes = {json_object(R"({"name":"v","emptyDir":{}})")};
  trainer::ContainerPatch c;
  c.name = "node";
  c.env = {env("A", "1")};
  pod.init_containers = {c};
  pod.containers = {c};
  pod.image_pull_secrets = {{std::string("secret")}};
  pod.security_context = json_object(R"({"runAsUser":1000})");
  pod.termination_grace_period_seconds = 30;
  pod.node_selector = {{"k", "v"}};
  return pod;
}

}  // namespace

TEST_CASE("immutable runtime patch pod fields", "[validation][update]") {
  auto old_job = valid_job();
  old_job.spec.runtime_patches = {patch("kueue.x-k8s.io/manager", full_pod())};
  auto pod = full_pod();
  pod.service_account_name = "other";
  pod.volumes = {json_object(R"({"name":"v","emptyDir":{"medium":"Memory"}})")};
  pod.init_containers[0].env = {env("A", "2")};
  pod.containers[0].env = {env("B", "1")};
  pod.image_pull_secrets = {{std::string("other")}};
  pod.security_context = json_object(R"({"runAsUser":0})");
  pod.termination_grace_period_seconds = 10;
  pod.node_selector = {{"k", "changed"}};  // mutable
  auto job = valid_job();
  job.spec.runtime_patches = {patch("kueue.x-k8s.io/manager", pod)};
  const std::string base =
      "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec."
      "template.spec.";
  CHECK(rendered(trainer::validate_train_job_update(old_job, job)) ==
        Strings{base + "serviceAccountName: Invalid value: \"other\": field is immutable",
                base + "volumes: Invalid value: field is immutable",
                base + "initContainers: Invalid value: field is immutable",
                base + "containers: Invalid value: field is immutable",
                base + "imagePullSecrets: Invalid value: field is immutable",
                base + "securityContext: Invalid value: field is immutable",
                base + "terminationGracePeriodSeconds: Invalid value: 10: field is immutable"});
}

TEST_CASE("runtime patches are correlated by manager and job name", "[validation][update]") {
  auto old_job = valid_job();
  old_job.spec.runtime_patches = {patch("kueue.x-k8s.io/manager", full_pod())};
  auto changed = full_pod();
  changed.service_account_name = "other";

  // A patch of another manager is a new entry: nothing to compare it with.
  auto job = valid_job();
  job.spec.runtime_patches = {patch("example.com/sdk", changed)};
  CHECK(trainer::validate_train_job_update(old_job, job).ok());

  // Renaming the manager replaces the entry, so `manager: self == oldSelf` never fails.
  job.spec.runtime_patches = {patch("example.com/renamed", full_pod())};
  CHECK(trainer::validate_train_job_update(old_job, job).ok());

  // Same manager, same job, reordered among other patches: still correlated.
  job.spec.runtime_patches = {patch("example.com/sdk", full_pod()),
                              patch("kueue.x-k8s.io/manager", changed)};
  CHECK(rendered(trainer::validate_train_job_update(old_job, job)) ==
        Strings{"spec.runtimePatches[1].trainingRuntimeSpec.template.spec.replicatedJobs[0]."
                "template.spec.template.spec.serviceAccountName: Invalid value: \"other\": field "
                "is immutable"});

  // A different replicated job name is a different entry.
  auto other_job = patch("kueue.x-k8s.io/manager", changed);
  other_job.training_runtime_spec->template_->spec->replicated_jobs[0].name = "launcher";
  job.spec.runtime_patches = {other_job};
  CHECK(trainer::validate_train_job_update(old_job, job).ok());
}

TEST_CASE("patch lists compare as maps and empty lists count as absent", "[validation][update]") {
  auto old_job = valid_job();
  auto pod = full_pod();
  trainer::ContainerPatch second;
  second.name = "sidecar";
  pod.containers.push_back(second);
  old_job.spec.runtime_patches = {patch("kueue.x-k8s.io/manager", pod)};
  auto reordered = pod;
  std::swap(reordered.containers[0], reordered.containers[1]);
  auto job = valid_job();
  job.spec.runtime_patches = {patch("kueue.x-k8s.io/manager", reordered)};
  CHECK(trainer::validate_train_job_update(old_job, job).ok());

  auto cleared = pod;
  cleared.containers.clear();
  cleared.security_context.reset();
  job.spec.runtime_patches = {patch("kueue.x-k8s.io/manager", cleared)};
  CHECK(trainer::validate_train_job_update(old_job, job).ok());
}

TEST_CASE("update also runs the create rules on the new object", "[validation][update]") {
  const auto old_job = valid_job();
  auto job = valid_job();
  job.spec.managed_by = "x";
  CHECK(rendered(trainer::validate_train_job_update(old_job, job)) ==
        Strings{"spec.managedBy: Invalid value: \"x\": ManagedBy must be "
                "trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set",
                "spec.managedBy: Invalid value: \"x\": field is immutable"});
}
