// SPDX-License-Identifier: Apache-2.0
//
// JSON -> typed: every field reaches the model, wrong types name their path, unknown fields
// warn like kubectl, embedded Kubernetes objects are kept verbatim.
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::ErrorCode;
using trainer::test::json;
using trainer::test::one_doc;

namespace {

const char* const kHead = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n";

void require_type_error(const std::string& yaml, const std::string& path,
                        const std::string& message) {
  auto r = trainer::decode_train_job(one_doc(kHead + yaml));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kParse);
  CHECK(r.error().message == message);
  REQUIRE(r.error().fields.size() == 1);
  CHECK(r.error().fields[0].path == path);
  CHECK(r.error().fields[0].type == trainer::FieldErrorType::kTypeInvalid);
}

}  // namespace

TEST_CASE("a full TrainJob decodes into every model field", "[decode]") {
  const auto doc = one_doc(trainer::test::read_data("api/full-trainjob.yaml"));
  auto r = trainer::decode_train_job(doc);
  REQUIRE(r);
  CHECK(r->warnings.empty());
  const trainer::TrainJob& j = r->object;
  CHECK(j.metadata.name == "job");
  CHECK(j.metadata.generate_name == "job-");
  CHECK(j.metadata.namespace_ == "ns");
  CHECK(j.metadata.uid == "u-1");
  CHECK(j.metadata.resource_version == "7");
  CHECK(j.metadata.generation == 3);
  CHECK(j.metadata.creation_timestamp == "2025-01-01T00:00:00Z");
  CHECK(j.metadata.deletion_timestamp == "2025-01-02T00:00:00Z");
  CHECK(j.metadata.deletion_grace_period_seconds == 30);
  CHECK(j.metadata.labels == trainer::StringMap{{"app", "x"}, {"tier", "1"}});
  CHECK(j.metadata.annotations.at("note") == "true");
  CHECK(j.metadata.finalizers == std::vector<std::string>{"f/one"});
  CHECK(j.metadata.owner_references.size() == 1);
  CHECK(j.metadata.managed_fields.size() == 1);
  CHECK(j.spec.runtime_ref.name == "torch");
  CHECK(j.spec.runtime_ref.api_group == "trainer.kubeflow.org");
  CHECK(j.spec.runtime_ref.kind == "TrainingRuntime");
  REQUIRE(j.spec.initializer);
  REQUIRE(j.spec.initializer->dataset);
  CHECK(j.spec.initializer->dataset->storage_uri == "hf://d");
  CHECK(j.spec.initializer->dataset->env.at(0).at("name") == "A");
  CHECK(j.spec.initializer->dataset->secret_ref->name == "s");
  REQUIRE(j.spec.initializer->model);
  CHECK_FALSE(j.spec.initializer->model->secret_ref->name);
  REQUIRE(j.spec.trainer);
  CHECK(j.spec.trainer->image == "img:1");
  CHECK(j.spec.trainer->command == std::vector<std::string>{"torchrun", "train.py"});
  CHECK(j.spec.trainer->args == std::vector<std::string>{});
  CHECK(j.spec.trainer->env.at(0).at("valueFrom").at("fieldRef").at("fieldPath") == "x");
  CHECK(j.spec.trainer->num_nodes == 2);
  CHECK(j.spec.trainer->resources_per_node->at("limits").at("nvidia.com/gpu") == 1);
  CHECK(j.spec.trainer->num_proc_per_node == 4);
  REQUIRE(j.spec.runtime_patches.size() == 1);
  const auto& patch = j.spec.runtime_patches[0];
  CHECK(patch.manager == "kueue.x-k8s.io/manager");
  CHECK(patch.time == "2025-01-01T00:00:00Z");
  const auto& tmpl = patch.training_runtime_spec->template_;
  CHECK(tmpl->metadata->labels.at("l") == "v");
  const auto& rj = tmpl->spec->replicated_jobs.at(0);
  CHECK(rj.name == "node");
  CHECK(rj.template_->metadata->annotations.at("a") == "b");
  const auto& pod = rj.template_->spec->template_;
  CHECK(pod->metadata->labels.at("p") == "q");
  const auto& ps = *pod->spec;
  CHECK(ps.service_account_name == "sa");
  CHECK(ps.volumes.at(0).at("name") == "v");
  CHECK(ps.init_containers.at(0).name == "init");
  CHECK(ps.containers.at(0).name == "side");
  CHECK(ps.containers.at(0).env.at(0).at("name") == "E");
  CHECK(ps.containers.at(0).volume_mounts.at(0).at("mountPath") == "/m");
  CHECK(ps.containers.at(0).security_context->at("privileged") == false);
  CHECK(ps.image_pull_secrets.at(0).name == "pull");
  CHECK(ps.security_context->at("runAsUser") == 1000);
  CHECK(ps.node_selector.at("zone") == "a");
  CHECK(ps.affinity->contains("nodeAffinity"));
  CHECK(ps.tolerations.at(0).at("key") == "k");
  CHECK(ps.scheduling_gates.at(0).at("name") == "g");
  CHECK(ps.termination_grace_period_seconds == 10);
  CHECK(j.spec.suspend == true);
  CHECK(j.spec.active_deadline_seconds == 3600);
  CHECK(j.spec.managed_by == "kueue.x-k8s.io/multikueue");
  REQUIRE(j.status);
  CHECK(j.status->conditions.at(0).type == "Suspended");
  CHECK(j.status->conditions.at(0).observed_generation == 3);
  CHECK(j.status->conditions.at(0).message == "TrainJob is suspended");
  CHECK(j.status->jobs_status.at(0).name == "node");
  CHECK(j.status->jobs_status.at(0).ready == 1);
  CHECK(j.status->jobs_status.at(0).suspended == 0);
  CHECK(j.status->trainer_status->progress_percentage == 50);
  CHECK(j.status->trainer_status->estimated_remaining_seconds == 60);
  CHECK(j.status->trainer_status->metrics.at(0).value == "0.5");
  CHECK(j.status->trainer_status->last_updated_time == "2025-01-01T00:00:00Z");
}

TEST_CASE("a full runtime decodes into every model field", "[decode]") {
  const auto doc = one_doc(trainer::test::read_data("api/full-runtime.yaml"));
  auto r = trainer::decode_training_runtime(doc);
  REQUIRE(r);
  CHECK(r->warnings.empty());
  const auto& s = r->object.spec;
  CHECK(s.ml_policy->num_nodes == 2);
  CHECK(s.ml_policy->torch->env_injection->targets.at(0).job_name == "node");
  CHECK(s.ml_policy->torch->env_injection->targets.at(0).container_names ==
        std::vector<std::string>{"side"});
  CHECK(s.ml_policy->mpi->num_proc_per_node == 2);
  CHECK(s.ml_policy->mpi->mpi_implementation == "OpenMPI");
  CHECK(s.ml_policy->mpi->ssh_auth_mount_path == "/home/.ssh");
  CHECK(s.ml_policy->mpi->run_launcher_as_node == true);
  CHECK(s.ml_policy->flux->num_proc_per_node == 3);
  CHECK(s.ml_policy->jax);
  CHECK(s.ml_policy->xgboost);
  CHECK(s.pod_group_policy->coscheduling->schedule_timeout_seconds == 120);
  CHECK(s.pod_group_policy->volcano->network_topology->at("mode") == "soft");
  CHECK(s.template_.metadata.labels.at("t") == "u");
  CHECK(s.template_.spec.at("replicatedJobs").at(0).at("x-unknown-to-us") == "kept");
  // The same document is not a ClusterTrainingRuntime.
  auto wrong = trainer::decode_cluster_training_runtime(doc);
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code == ErrorCode::kParse);
  CHECK(wrong.error().message ==
        "kind: Invalid value: \"TrainingRuntime\": expected \"ClusterTrainingRuntime\"");
}

TEST_CASE("apiVersion and kind must match the decoder", "[decode]") {
  auto r = trainer::decode_train_job(json(R"({"apiVersion":"v1","kind":"TrainJob"})"));
  REQUIRE_FALSE(r);
  CHECK(r.error().message ==
        "apiVersion: Invalid value: \"v1\": expected \"trainer.kubeflow.org/v1alpha1\"");
  r = trainer::decode_train_job(json(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1"})"));
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "kind: Required value: must be \"TrainJob\"");
  r = trainer::decode_train_job(
      json(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime"})"));
  REQUIRE_FALSE(r);
  CHECK(r.error().fields.at(0).path == "kind");
  r = trainer::decode_train_job(json("[1]"));
  REQUIRE_FALSE(r);
  CHECK(r.error().message == "<document>: Invalid value: expected object, got array");
}

TEST_CASE("wrong JSON types name the exact field path", "[decode]") {
  require_type_error("spec:\n  trainer:\n    numNodes: two\n", "spec.trainer.numNodes",
                     "spec.trainer.numNodes: Invalid value: \"two\": expected int32");
  require_type_error("spec:\n  trainer:\n    numNodes: 2147483648\n", "spec.trainer.numNodes",
                     "spec.trainer.numNodes: Invalid value: 2147483648: expected int32");
  require_type_error("spec:\n  trainer:\n    numNodes: 1.5\n", "spec.trainer.numNodes",
                     "spec.trainer.numNodes: Invalid value: 1.5: expected int32");
  require_type_error("spec:\n  runtimePatches:\n  - manager: m\n  - manager: [1]\n",
                     "spec.runtimePatches[1].manager",
                     "spec.runtimePatches[1].manager: Invalid value: expected string, got array");
  require_type_error("metadata:\n  labels:\n    foo: 1\n", "metadata.labels[foo]",
                     "metadata.labels[foo]: Invalid value: 1: expected string");
  require_type_error("spec:\n  suspend: \"yes\"\n", "spec.suspend",
                     "spec.suspend: Invalid value: \"yes\": expected boolean");
  require_type_error("spec:\n  trainer: []\n", "spec.trainer",
                     "spec.trainer: Invalid value: expected object, got array");
  require_type_error("spec:\n  trainer:\n    command: run\n", "spec.trainer.command",
                     "spec.trainer.command: Invalid value: \"run\": expected array");
  require_type_error("spec:\n  trainer:\n    env: [1]\n", "spec.trainer.env[0]",
                     "spec.trainer.env[0]: Invalid value: 1: expected object");
  require_type_error("spec:\n  activeDeadlineSeconds: 9223372036854775808\n",
                     "spec.activeDeadlineSeconds",
                     "spec.activeDeadlineSeconds: Invalid value: 9223372036854775808: expected "
                     "int64");
  require_type_error("status:\n  jobsStatus:\n  - name: a\n    ready: x\n",
                     "status.jobsStatus[0].ready",
                     "status.jobsStatus[0].ready: Invalid value: \"x\": expected int32");
}

TEST_CASE("int32 bounds are accepted exactly", "[decode]") {
  auto r = trainer::decode_train_job(one_doc(std::string(kHead) +
                                             "spec:\n  trainer:\n    numNodes: -2147483648\n"
                                             "    numProcPerNode: 2147483647\n"));
  REQUIRE(r);
  CHECK(r->object.spec.trainer->num_nodes == INT32_MIN);
  CHECK(r->object.spec.trainer->num_proc_per_node == INT32_MAX);
}

TEST_CASE("null means absent, as in Go", "[decode]") {
  auto r =
      trainer::decode_train_job(one_doc(
          std::string(kHead) + "metadata:\n  creationTimestamp: null\n  labels: ~\n"
                               "spec:\n  trainer: null\n  suspend:\n  runtimeRef:\n    name: x\n"));
  REQUIRE(r);
  CHECK_FALSE(r->object.metadata.creation_timestamp);
  CHECK(r->object.metadata.labels.empty());
  CHECK_FALSE(r->object.spec.trainer);
  CHECK_FALSE(r->object.spec.suspend);
}

TEST_CASE("unknown fields warn like kubectl, in document order", "[decode]") {
  auto r = trainer::decode_train_job(one_doc(
      std::string(kHead) +
      "metadata:\n  name: x\n  selfLink: /old\n  bogus: 1\nspec:\n  foo: 1\n"
      "  trainer:\n    numNodes: 1\n    gpus: 2\n    env:\n    - name: A\n      whatever: kept\n"
      "  runtimePatches:\n  - manager: m\n    extra: 1\n  bar: 2\nstatus:\n  phase: x\n"
      "extraTop: 1\n"));
  REQUIRE(r);
  CHECK(r->warnings == std::vector<std::string>{
                           "unknown field \"metadata.bogus\"",
                           "unknown field \"spec.foo\"",
                           "unknown field \"spec.trainer.gpus\"",
                           "unknown field \"spec.runtimePatches[0].extra\"",
                           "unknown field \"spec.bar\"",
                           "unknown field \"status.phase\"",
                           "unknown field \"extraTop\"",
                       });
  // Embedded core/v1 objects are carried, not checked.
  CHECK(r->object.spec.trainer->env.at(0).at("whatever") == "kept");
  auto rt = trainer::decode_training_runtime(
      one_doc("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\n"
              "spec:\n  mlPolicy:\n    jax: {a: 1}\n  template:\n    spec: {anything: [1]}\n"));
  REQUIRE(rt);
  CHECK(rt->warnings == std::vector<std::string>{"unknown field \"spec.mlPolicy.jax.a\""});
}
