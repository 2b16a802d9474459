// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::rendered;
using trainer::test::valid_runtime;
using Strings = std::vector<std::string>;

namespace {

trainer::TrainingRuntime runtime() {
  return valid_runtime<trainer::TrainingRuntime>("torch");
}

}  // namespace

TEST_CASE("a well-formed runtime is valid", "[validation][runtime]") {
  CHECK(trainer::validate_training_runtime(runtime()).ok());
  CHECK(trainer::validate_cluster_training_runtime(
            valid_runtime<trainer::ClusterTrainingRuntime>("torch"))
            .ok());
}

TEST_CASE("runtime spec minProperties", "[validation][runtime]") {
  trainer::TrainingRuntime rt;
  rt.metadata.name = "empty";
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{"spec: Invalid value: 0: spec in body should have at least 1 properties"});
  rt.spec.pod_group_policy = trainer::PodGroupPolicy{};
  CHECK(trainer::validate_training_runtime(rt).ok());
  rt.spec.pod_group_policy.reset();
  rt.spec.template_.metadata.labels["a"] = "b";
  CHECK(trainer::validate_training_runtime(rt).ok());
}

TEST_CASE("mlPolicy allows at most one source", "[validation][runtime]") {
  auto rt = runtime();
  rt.spec.ml_policy->torch.reset();
  CHECK(trainer::validate_training_runtime(rt).ok());  // plain runtime
  rt.spec.ml_policy->jax = trainer::JAXMLPolicySource{};
  CHECK(trainer::validate_training_runtime(rt).ok());
  rt.spec.ml_policy->xgboost = trainer::XGBoostMLPolicySource{};
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{"spec.mlPolicy: Invalid value: Only one of the policy can be configured"});
}

TEST_CASE("MPI and Flux policy rules", "[validation][runtime]") {
  auto rt = runtime();
  rt.spec.ml_policy->torch.reset();
  rt.spec.ml_policy->mpi = trainer::MPIMLPolicySource{1, "OpenMPI", "/root/.ssh", false};
  CHECK(trainer::validate_training_runtime(rt).ok());
  rt.spec.ml_policy->mpi->mpi_implementation = "";
  CHECK(trainer::validate_training_runtime(rt).ok());
  rt.spec.ml_policy->mpi = trainer::MPIMLPolicySource{0, "Intel", std::string(4097, 'p'), true};
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{"spec.mlPolicy.mpi.numProcPerNode: Invalid value: 0: NumProcPerNode in mpiPolicy "
                "must be >= 1",
                "spec.mlPolicy.mpi.mpiImplementation: Unsupported value: \"Intel\": supported "
                "values: \"OpenMPI\", \"\"",
                "spec.mlPolicy.mpi.sshAuthMountPath: Too long: may not be more than 4096 bytes"});

  rt.spec.ml_policy->mpi.reset();
  rt.spec.ml_policy->flux = trainer::FluxMLPolicySource{1};
  CHECK(trainer::validate_training_runtime(rt).ok());
  rt.spec.ml_policy->flux->num_proc_per_node = 0;
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{"spec.mlPolicy.flux.numProcPerNode: Invalid value: 0: NumProcPerNode in "
                "fluxPolicy must be >= 1"});
}

TEST_CASE("torch envInjection targets", "[validation][runtime]") {
  auto rt = runtime();
  auto& torch = *rt.spec.ml_policy->torch;
  torch.env_injection = trainer::EnvInjection{};
  auto& targets = torch.env_injection->targets;
  targets.push_back({"launcher", {"sidecar", "helper"}});
  CHECK(trainer::validate_training_runtime(rt).ok());

  targets.push_back({"launcher", {"node", "a", "a", std::string(64, 'c')}});
  targets.push_back({"", {}});
  targets.push_back({std::string(254, 'j'), std::vector<std::string>(9, "x")});
  const std::string p = "spec.mlPolicy.torch.envInjection.targets";
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{p + "[1]: Duplicate value: {\"jobName\":\"launcher\"}",
                p + "[1].containerNames[2]: Duplicate value: \"a\"",
                p + "[1].containerNames[3]: Too long: may not be more than 63 bytes",
                p + "[1].containerNames: Invalid value: containerNames must not include the main "
                    "node container because PET_* envs are always injected into it",
                p + "[2].containerNames: Required value", p + "[2].jobName: Required value",
                p + "[3].jobName: Too long: may not be more than 253 bytes",
                p + "[3].containerNames: Too many: 9: must have at most 8 items",
                p + "[3].containerNames[1]: Duplicate value: \"x\""});

  targets.assign(17, {"j", {"c"}});
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i].job_name = "j" + std::to_string(i);
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{p + ": Too many: 17: must have at most 16 items"});
}

TEST_CASE("volcano networkTopology", "[validation][runtime]") {
  auto rt = runtime();
  rt.spec.pod_group_policy = trainer::PodGroupPolicy{};
  rt.spec.pod_group_policy->coscheduling = trainer::CoschedulingPodGroupPolicySource{60};
  rt.spec.pod_group_policy->volcano = trainer::VolcanoPodGroupPolicySource{};
  rt.spec.pod_group_policy->volcano->network_topology =
      trainer::test::json_object(R"({"mode":"soft","highestTierAllowed":2})");
  CHECK(trainer::validate_training_runtime(rt).ok());
  rt.spec.pod_group_policy->volcano->network_topology =
      trainer::test::json_object(R"({"mode":"strict","highestTierAllowed":"one"})");
  const std::string p = "spec.podGroupPolicy.volcano.networkTopology";
  CHECK(rendered(trainer::validate_training_runtime(rt)) ==
        Strings{p + ".mode: Unsupported value: \"strict\": supported values: \"hard\", \"soft\"",
                p + ".highestTierAllowed: Invalid value: \"string\": " + p +
                    ".highestTierAllowed in body must be of type integer: \"string\""});
}

TEST_CASE("TrainingRuntime update skips the webhook but keeps CRD rules", "[validation][runtime]") {
  auto old_rt = runtime();
  auto rt = runtime();
  rt.spec.template_.spec["replicatedJobs"].as_array()[0].as_object()["replicas"] = 2;
  CHECK(trainer::validate_training_runtime_update(old_rt, rt).ok());
  CHECK(!trainer::validate_training_runtime(rt).ok());
  rt.spec.ml_policy->jax = trainer::JAXMLPolicySource{};
  CHECK(rendered(trainer::validate_training_runtime_update(old_rt, rt)) ==
        Strings{"spec.mlPolicy: Invalid value: Only one of the policy can be configured"});
}
