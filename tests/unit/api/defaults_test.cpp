// SPDX-License-Identifier: Apache-2.0
//
// CRD schema defaulting (reference 1.13): each default, explicit values kept, idempotence.
#include "trainer/defaults.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::json;
using trainer::test::one_doc;

namespace {

trainer::TrainJob job_from(const std::string& spec_yaml) {
  auto r = trainer::decode_train_job(
      one_doc("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: j\n"
              "spec:\n" +
              spec_yaml));
  if (!r) throw std::runtime_error(r.error().message);
  return r->object;
}

trainer::TrainingRuntime runtime_from(const std::string& spec_yaml) {
  auto r = trainer::decode_training_runtime(one_doc(
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nspec:\n" + spec_yaml));
  if (!r) throw std::runtime_error(r.error().message);
  return r->object;
}

}  // namespace

TEST_CASE("TrainJob defaults", "[defaults]") {
  auto job = job_from(
      "  runtimeRef:\n    name: r\n  initializer:\n    dataset:\n      secretRef: {}\n"
      "    model:\n      storageUri: s\n");
  trainer::apply_defaults(job);
  CHECK(job.spec.suspend == false);
  CHECK(job.spec.managed_by == "trainer.kubeflow.org/trainjob-controller");
  CHECK(job.spec.runtime_ref.api_group == "trainer.kubeflow.org");
  CHECK(job.spec.runtime_ref.kind == "ClusterTrainingRuntime");
  CHECK(job.spec.initializer->dataset->secret_ref->name == "");
  // No secretRef: none is invented.
  CHECK_FALSE(job.spec.initializer->model->secret_ref);
  const auto once = trainer::to_json(job);
  trainer::apply_defaults(job);
  CHECK(trainer::to_json(job) == once);
}

TEST_CASE("TrainJob defaults keep explicit values", "[defaults]") {
  auto job = job_from(
      "  runtimeRef:\n    name: r\n    apiGroup: other.io\n    kind: TrainingRuntime\n"
      "  suspend: true\n  managedBy: kueue.x-k8s.io/multikueue\n"
      "  initializer:\n    model:\n      secretRef: {name: m}\n");
  const auto before = trainer::to_json(job);
  trainer::apply_defaults(job);
  CHECK(trainer::to_json(job) == before);
}

TEST_CASE("runtime policy defaults", "[defaults]") {
  auto rt = runtime_from(
      "  mlPolicy:\n    mpi: {}\n    flux: {}\n"
      "  podGroupPolicy:\n    coscheduling: {}\n    volcano:\n      networkTopology: {}\n");
  trainer::apply_defaults(rt);
  const auto& mpi = *rt.spec.ml_policy->mpi;
  CHECK(mpi.num_proc_per_node == 1);
  CHECK(mpi.mpi_implementation == "OpenMPI");
  CHECK(mpi.ssh_auth_mount_path == "/root/.ssh");
  CHECK(mpi.run_launcher_as_node == false);
  CHECK(rt.spec.ml_policy->flux->num_proc_per_node == 1);
  CHECK(rt.spec.pod_group_policy->coscheduling->schedule_timeout_seconds == 60);
  CHECK(*rt.spec.pod_group_policy->volcano->network_topology ==
        json(R"({"mode":"hard","highestTierAllowed":1})").get_object());
  const auto once = trainer::to_json(rt);
  trainer::apply_defaults(rt);
  CHECK(trainer::to_json(rt) == once);
}

TEST_CASE("runtime policy defaults keep explicit values and absent sections", "[defaults]") {
  auto rt = runtime_from(
      "  mlPolicy:\n    mpi:\n      numProcPerNode: 4\n      mpiImplementation: \"\"\n"
      "      sshAuthMountPath: /x\n      runLauncherAsNode: true\n"
      "  podGroupPolicy:\n    coscheduling:\n      scheduleTimeoutSeconds: 5\n"
      "    volcano:\n      networkTopology: {mode: soft, highestTierAllowed: 3}\n");
  const auto before = trainer::to_json(rt);
  trainer::apply_defaults(rt);
  CHECK(trainer::to_json(rt) == before);
  // Volcano without networkTopology gets none.
  auto bare = runtime_from("  podGroupPolicy:\n    volcano: {}\n  mlPolicy:\n    torch: {}\n");
  trainer::apply_defaults(bare);
  CHECK_FALSE(bare.spec.pod_group_policy->volcano->network_topology);
  CHECK_FALSE(bare.spec.ml_policy->mpi);
  CHECK_FALSE(bare.spec.ml_policy->flux);
  CHECK_FALSE(bare.spec.pod_group_policy->coscheduling);
}

TEST_CASE("JobSet template defaults", "[defaults]") {
  auto rt = runtime_from(R"(  template:
    spec:
      failurePolicy:
        maxRestarts: 3
      replicatedJobs:
        - name: a
          template:
            spec:
              template:
                spec:
                  initContainers:
                    - name: i
                      ports: [{containerPort: 1}]
                  containers:
                    - name: c
                      ports:
                        - containerPort: 29500
                        - containerPort: 29501
                          protocol: UDP
        - name: b
          replicas: 3
          groupName: workers
)");
  trainer::apply_defaults(rt);
  CHECK(boost::json::value(rt.spec.template_.spec) == json(R"({
    "failurePolicy": {"maxRestarts": 3, "restartStrategy": "Recreate"},
    "replicatedJobs": [
      {"name": "a", "template": {"spec": {"template": {"spec": {
        "initContainers": [{"name": "i", "ports": [{"containerPort": 1, "protocol": "TCP"}]}],
        "containers": [{"name": "c", "ports": [
          {"containerPort": 29500, "protocol": "TCP"},
          {"containerPort": 29501, "protocol": "UDP"}]}]}}}},
       "groupName": "default", "replicas": 1},
      {"name": "b", "replicas": 3, "groupName": "workers"}]})"));
  const auto once = trainer::to_json(rt);
  trainer::apply_defaults(rt);
  CHECK(trainer::to_json(rt) == once);
  // Without a failurePolicy, none is added.
  auto plain = runtime_from("  template:\n    spec:\n      replicatedJobs: [{name: x}]\n");
  trainer::apply_defaults(plain);
  CHECK_FALSE(plain.spec.template_.spec.contains("failurePolicy"));
}

TEST_CASE("conformance runtimes already carry their defaults", "[defaults]") {
  // Case 21 relies on nothing; applying defaults must not change a fully spelled-out runtime.
  for (const char* id : {"08", "09", "18"}) {
    INFO(id);
    auto r = trainer::decode_training_runtime(
        one_doc(trainer::test::read_data(std::string("api/conformance/") + id + "-runtime.yaml")));
    REQUIRE(r);
    const auto before = trainer::to_json(r->object);
    trainer::apply_defaults(r->object);
    CHECK(trainer::to_json(r->object) == before);
  }
}

TEST_CASE("ClusterTrainingRuntime gets the same defaults", "[defaults]") {
  auto r = trainer::decode_cluster_training_runtime(
      one_doc("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\n"
              "spec:\n  podGroupPolicy:\n    coscheduling: {}\n"));
  REQUIRE(r);
  trainer::apply_defaults(r->object);
  CHECK(r->object.spec.pod_group_policy->coscheduling->schedule_timeout_seconds == 60);
}
