// SPDX-License-Identifier: Apache-2.0
// Torch plugin: EnforceMLPolicy (counts, numProcPerNode, PET_* env, port, envInjection) and
// CustomValidation (envInjection targets, reserved env). Behaviours ported from upstream's
// torch_test.go with our own inputs.
#include "plugin_fixtures.hpp"
#include "torch/torch_plugin.hpp"

#include <catch2/catch.hpp>

using namespace fixtures;
using trainer::FieldErrorType;

namespace {

trainer::Result<void> enforce(trainer::Info& info, trainer::TrainJob& job) {
  auto plugin = trainer::plugins::make_torch_plugin();
  auto* p = dynamic_cast<trainer::EnforceMLPolicyPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  return p->enforce_ml_policy(info, job, trainer::RenderContext{});
}

trainer::ValidationResult validate(const trainer::Info& info, const trainer::TrainJob& job) {
  auto plugin = trainer::plugins::make_torch_plugin();
  auto* p = dynamic_cast<trainer::CustomValidationPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  return p->validate(info, nullptr, job, trainer::RenderContext{});
}

// Runs the plugin on one trainer PodSet and returns PET_NPROC_PER_NODE.
std::string nproc_for(trainer::TrainJob job, const char* runtime_resources = "{}") {
  auto info =
      info_with(torch_policy(), {trainer_pod_set()}, trainer_jobset_spec(runtime_resources));
  REQUIRE(enforce(info, job));
  return env_value(info.template_spec.pod_sets[0].containers[0], "PET_NPROC_PER_NODE");
}

trainer::TrainJob job_with_resources(const char* resources) {
  auto job = train_job();
  trainer_of(job).resources_per_node = obj(resources);
  return job;
}

}  // namespace

TEST_CASE("Torch: name and no action without a torch policy", "[torch]") {
  auto plugin = trainer::plugins::make_torch_plugin();
  CHECK(plugin->name() == "Torch");

  auto job = train_job();
  trainer_of(job).num_nodes = 3;
  trainer::Info no_policy;
  no_policy.template_spec.pod_sets = {trainer_pod_set()};
  REQUIRE(enforce(no_policy, job));
  CHECK(no_policy.template_spec.pod_sets[0].count == 1);
  CHECK(no_policy.template_spec.pod_sets[0].containers[0].env.empty());

  trainer::MLPolicy jax;
  jax.jax = trainer::JAXMLPolicySource{};
  auto other = info_with(jax, {trainer_pod_set()});
  REQUIRE(enforce(other, job));
  CHECK(other.template_spec.pod_sets[0].containers[0].env.empty());
  CHECK(validate(other, job).errors.empty());
}

TEST_CASE("Torch: full env contract for a multi-node GPU job", "[torch]") {
  auto job = train_job("mnist", "team-a");
  auto& t = trainer_of(job);
  t.num_nodes = 2;
  t.env = {obj(R"({"name":"FOO","value":"bar"})")};
  t.resources_per_node = obj(R"({"limits":{"nvidia.com/gpu":4}})");
  auto info = info_with(torch_policy(), {trainer_pod_set(1)});
  // An unnamed runtime port is replaced by the unnamed trainer port (upstream's nil == nil).
  info.template_spec.pod_sets[0].containers[0].ports = arr(R"([{"containerPort":8080}])");

  REQUIRE(enforce(info, job));
  const auto& ps = info.template_spec.pod_sets[0];
  CHECK(ps.count == 2);
  CHECK(ps.containers[0].env == arr(R"([
    {"name":"FOO","value":"bar"},
    {"name":"PET_NNODES","value":"2"},
    {"name":"PET_NPROC_PER_NODE","value":"auto"},
    {"name":"PET_NODE_RANK","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
    {"name":"PET_MASTER_ADDR","value":"mnist-node-0-0.mnist"},
    {"name":"PET_MASTER_PORT","value":"29500"}])"));
  CHECK(ps.containers[0].ports == arr(R"([{"containerPort":29500}])"));
  CHECK(job.spec.trainer->command == std::nullopt);
}

TEST_CASE("Torch: trainJob numNodes overrides the PodSet count; absent keeps it", "[torch]") {
  auto info = info_with(torch_policy(), {trainer_pod_set(4)});
  auto job = train_job();
  trainer_of(job);
  REQUIRE(enforce(info, job));
  CHECK(info.template_spec.pod_sets[0].count == 4);
  CHECK(env_value(info.template_spec.pod_sets[0].containers[0], "PET_NNODES") == "4");

  auto zero = info_with(torch_policy(), {trainer_pod_set(4)});
  trainer_of(job).num_nodes = 0;  // 0 is accepted by the CRD and written as is
  REQUIRE(enforce(zero, job));
  CHECK(zero.template_spec.pod_sets[0].count == 0);
  CHECK(env_value(zero.template_spec.pod_sets[0].containers[0], "PET_NNODES") == "0");

  // A PodSet without a count is left alone and PET_NNODES falls back to 1.
  auto no_count = info_with(torch_policy(), {pod_set("node", "trainer", std::nullopt, {"node"})});
  trainer_of(job).num_nodes = 5;
  REQUIRE(enforce(no_count, job));
  CHECK(no_count.template_spec.pod_sets[0].count == std::nullopt);
  CHECK(env_value(no_count.template_spec.pod_sets[0].containers[0], "PET_NNODES") == "1");
}

TEST_CASE("Torch: numProcPerNode resolution", "[torch]") {
  SECTION("explicit value wins, even with GPUs") {
    auto job = job_with_resources(R"({"limits":{"nvidia.com/gpu":8}})");
    trainer_of(job).num_proc_per_node = 3;
    CHECK(nproc_for(job) == "3");
  }
  SECTION("auto is kept when a GPU is requested") {
    CHECK(nproc_for(job_with_resources(R"({"requests":{"example.com/gpu":"2"}})")) == "auto");
  }
  SECTION("GPU limit only") {
    CHECK(nproc_for(job_with_resources(R"({"limits":{"amd.com/GPU":"1"}})")) == "auto");
  }
  SECTION("zero GPU request falls back to the GPU limit") {
    CHECK(
        nproc_for(job_with_resources(
            R"({"requests":{"nvidia.com/gpu":"0","cpu":"2"},"limits":{"nvidia.com/gpu":"1"}})")) ==
        "auto");
  }
  SECTION("CPU limit") {
    CHECK(nproc_for(job_with_resources(R"({"limits":{"cpu":"4"}})")) == "4");
  }
  SECTION("CPU request without limit") {
    CHECK(nproc_for(job_with_resources(R"({"requests":{"cpu":"3"}})")) == "3");
  }
  SECTION("CPU request wins over the limit") {
    CHECK(nproc_for(job_with_resources(R"({"requests":{"cpu":"2"},"limits":{"cpu":"6"}})")) == "2");
  }
  SECTION("zero CPU request uses the limit") {
    CHECK(nproc_for(job_with_resources(R"({"requests":{"cpu":"0"},"limits":{"cpu":"6"}})")) == "6");
  }
  SECTION("fractional CPU rounds up: 2.5 -> 3") {
    CHECK(nproc_for(job_with_resources(R"({"limits":{"cpu":"2.5"}})")) == "3");
    CHECK(nproc_for(job_with_resources(R"({"limits":{"cpu":2.5}})")) == "3");
    CHECK(nproc_for(job_with_resources(R"({"requests":{"cpu":"3.7"}})")) == "4");
  }
  SECTION("millicores round up: 2500m -> 3") {
    CHECK(nproc_for(job_with_resources(R"({"requests":{"cpu":"2500m"}})")) == "3");
  }
  SECTION("low CPU limit rounds up to 1") {
    CHECK(nproc_for(job_with_resources(R"({"limits":{"cpu":"700m"}})")) == "1");
  }
  SECTION("no resources at all -> 1") {
    auto job = train_job();
    trainer_of(job);
    CHECK(nproc_for(job) == "1");
  }
  SECTION("no TrainJob resources: the runtime's GPU decides") {
    auto job = train_job();
    trainer_of(job);
    CHECK(nproc_for(job, R"({"limits":{"nvidia.com/gpu":"2"}})") == "auto");
    CHECK(nproc_for(job, R"({"requests":{"cpu":"5"}})") == "5");
  }
  SECTION("TrainJob resources replace the runtime's for the derivation (quirk Q5)") {
    auto job = job_with_resources(R"({"requests":{"cpu":"4"}})");
    CHECK(nproc_for(job, R"({"limits":{"nvidia.com/gpu":"2"}})") == "4");
  }
  SECTION("an unparsable quantity is an error") {
    auto job = job_with_resources(R"({"limits":{"cpu":"four"}})");
    auto info = info_with(torch_policy(), {trainer_pod_set()});
    auto r = enforce(info, job);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == trainer::ErrorCode::kInvalid);
  }
}

TEST_CASE("Torch: trainer.env values precede PET_* and user values cannot displace them",
          "[torch]") {
  auto info = info_with(torch_policy(), {trainer_pod_set()});
  info.template_spec.pod_sets[0].containers[0].env =
      arr(R"([{"name":"RUNTIME","value":"r"},{"name":"FOO","value":"runtime"}])");
  auto job = train_job();
  trainer_of(job).env = {
      obj(R"({"name":"FOO","value":"user"})"),
      obj(R"({"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}})")};
  REQUIRE(enforce(info, job));
  const auto& c = info.template_spec.pod_sets[0].containers[0];
  CHECK(env_names(c) == std::vector<std::string>{"RUNTIME", "FOO", "POD", "PET_NNODES",
                                                 "PET_NPROC_PER_NODE", "PET_NODE_RANK",
                                                 "PET_MASTER_ADDR", "PET_MASTER_PORT"});
  CHECK(env_value(c, "FOO") == "user");
  // Apply form drops the fieldRef apiVersion.
  CHECK(*find_env(c, "POD") ==
        obj(R"({"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}})"));
}

TEST_CASE("Torch: no spec.trainer means nothing for the main container (quirk Q3)", "[torch]") {
  auto info = info_with(torch_policy(), {trainer_pod_set()});
  auto job = train_job();
  REQUIRE(enforce(info, job));
  CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  CHECK(info.template_spec.pod_sets[0].containers[0].ports.empty());
}

TEST_CASE("Torch: the main container is the regular `node` container of the trainer PodSet",
          "[torch]") {
  // Only the first trainer-ancestor PodSet counts, and init containers named node are ignored.
  auto info = info_with(
      torch_policy(), {pod_set("launcher", "trainer", 1, {"other"}, {"node"}), trainer_pod_set()});
  auto job = train_job();
  trainer_of(job).num_nodes = 2;
  REQUIRE(enforce(info, job));
  CHECK(info.template_spec.pod_sets[0].count == 2);
  CHECK(info.template_spec.pod_sets[0].init_containers[0].env.empty());
  CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  CHECK(info.template_spec.pod_sets[1].count == 1);
  CHECK(info.template_spec.pod_sets[1].containers[0].env.empty());
}

TEST_CASE("Torch: envInjection", "[torch]") {
  auto policy = torch_policy();
  auto target = [](std::string job, std::vector<std::string> containers) {
    return trainer::EnvInjectionTarget{std::move(job), std::move(containers)};
  };
  const auto all_pet = arr(R"([
    {"name":"PET_NNODES","value":"2"},
    {"name":"PET_NPROC_PER_NODE","value":"1"},
    {"name":"PET_NODE_RANK","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
    {"name":"PET_MASTER_ADDR","value":"test-job-node-0-0.test-job"},
    {"name":"PET_MASTER_PORT","value":"29500"}])");

  SECTION("into an init container; trainer.env is not injected") {
    policy.torch->env_injection = trainer::EnvInjection{{target("node", {"preflight"})}};
    auto info =
        info_with(policy, {pod_set("node", "trainer", 1, {"node"}, {"preflight", "other"})});
    info.template_spec.pod_sets[0].init_containers[0].env = arr(R"([{"name":"KEEP","value":"1"}])");
    auto job = train_job();
    trainer_of(job).num_nodes = 2;
    trainer_of(job).env = {obj(R"({"name":"USER","value":"u"})")};
    REQUIRE(enforce(info, job));
    const auto& init = info.template_spec.pod_sets[0].init_containers;
    auto want = arr(R"([{"name":"KEEP","value":"1"}])");
    for (const auto& v : all_pet) want.push_back(v);
    CHECK(init[0].env == want);
    CHECK(init[1].env.empty());
    CHECK(init[0].ports.empty());
    CHECK(env_value(info.template_spec.pod_sets[0].containers[0], "USER") == "u");
  }
  SECTION("several containers, sidecars and other jobs; unlisted containers unchanged") {
    policy.torch->env_injection = trainer::EnvInjection{
        {target("node", {"sidecar", "preflight"}), target("checker", {"probe"})}};
    auto info = info_with(
        policy, {pod_set("node", "trainer", 1, {"node", "sidecar"}, {"preflight", "untouched"}),
                 pod_set("checker", std::nullopt, 1, {"probe"})});
    auto job = train_job();
    trainer_of(job).num_nodes = 2;
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].containers[1].env == all_pet);
    CHECK(info.template_spec.pod_sets[0].init_containers[0].env == all_pet);
    CHECK(info.template_spec.pod_sets[0].init_containers[1].env.empty());
    CHECK(info.template_spec.pod_sets[1].containers[0].env == all_pet);
  }
  SECTION("a regular container is found before an init container of the same name") {
    policy.torch->env_injection = trainer::EnvInjection{{target("node", {"dup"})}};
    auto info = info_with(policy, {pod_set("node", "trainer", 1, {"node", "dup"}, {"dup"})});
    auto job = train_job();
    trainer_of(job).num_nodes = 2;
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].containers[1].env == all_pet);
    CHECK(info.template_spec.pod_sets[0].init_containers[0].env.empty());
  }
  SECTION("targets get PET_* and master envs even without spec.trainer") {
    policy.torch->env_injection = trainer::EnvInjection{{target("node", {"preflight"})}};
    auto info = info_with(policy, {pod_set("node", "trainer", 1, {"node"}, {"preflight"})});
    auto job = train_job();
    REQUIRE(enforce(info, job));
    CHECK(env_value(info.template_spec.pod_sets[0].init_containers[0], "PET_NNODES") == "1");
    CHECK(env_value(info.template_spec.pod_sets[0].init_containers[0], "PET_MASTER_ADDR") ==
          "test-job-node-0-0.test-job");
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  }
  SECTION("empty targets inject nothing") {
    policy.torch->env_injection = trainer::EnvInjection{};
    auto info = info_with(policy, {pod_set("node", "trainer", 1, {"node"}, {"preflight"})});
    auto job = train_job();
    trainer_of(job);
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].init_containers[0].env.empty());
  }
  SECTION("a missing container is a reconcile error") {
    policy.torch->env_injection = trainer::EnvInjection{{target("node", {"missing"})}};
    auto info = info_with(policy, {trainer_pod_set()});
    auto job = train_job();
    trainer_of(job);
    auto r = enforce(info, job);
    REQUIRE_FALSE(r);
    CHECK(
        r.error().message ==
        "envInjection target podSet \"node\" container \"missing\" not found in runtime template");
  }
  SECTION("a missing job is a reconcile error") {
    policy.torch->env_injection = trainer::EnvInjection{{target("ghost", {"c"})}};
    auto info = info_with(policy, {trainer_pod_set()});
    auto job = train_job();
    auto r = enforce(info, job);
    REQUIRE_FALSE(r);
    CHECK(r.error().message ==
          "envInjection target podSet \"ghost\" container \"c\" not found in runtime template");
  }
}

TEST_CASE("Torch validation: envInjection targets (T1)", "[torch][validation]") {
  auto policy = torch_policy();
  policy.torch->env_injection =
      trainer::EnvInjection{{trainer::EnvInjectionTarget{"node", {"preflight", "missing-a"}},
                             trainer::EnvInjectionTarget{"ghost", {"missing-b"}}}};
  auto info = info_with(policy, {pod_set("node", "trainer", 1, {"node"}, {"preflight"})});
  auto job = train_job();
  const auto result = validate(info, job);
  REQUIRE(result.errors.size() == 2);
  CHECK(result.errors[0].type == FieldErrorType::kInvalid);
  CHECK(result.errors[0].path == "spec.runtimeRef");
  CHECK(result.errors[0].value ==
        json::value(obj(R"({"jobName":"node","containerNames":["preflight","missing-a"]})")));
  CHECK(
      result.errors[0].detail ==
      "envInjection target podSet \"node\" container \"missing-a\" not found in runtime template");
  CHECK(
      result.errors[1].detail ==
      "envInjection target podSet \"ghost\" container \"missing-b\" not found in runtime template");
}

TEST_CASE("Torch validation: reserved envs (T2)", "[torch][validation]") {
  auto info = info_with(torch_policy(), {trainer_pod_set()});
  auto job = train_job();
  SECTION("ordinary env is accepted") {
    trainer_of(job).env = {obj(R"({"name":"NCCL_DEBUG","value":"INFO"})")};
    CHECK(validate(info, job).errors.empty());
  }
  SECTION("reserved names are listed once, sorted") {
    trainer_of(job).env = {obj(R"({"name":"test","value":"value"})"),
                           obj(R"({"name":"PET_NPROC_PER_NODE","value":"value"})"),
                           obj(R"({"name":"PET_MASTER_PORT","value":"1"})"),
                           obj(R"({"name":"PET_NPROC_PER_NODE","value":"again"})")};
    const auto result = validate(info, job);
    REQUIRE(result.errors.size() == 1);
    const auto& e = result.errors[0];
    CHECK(e.type == FieldErrorType::kInvalid);
    CHECK(e.path == "spec.trainer.env");
    CHECK(e.detail ==
          "must not have reserved envs, invalid envs configured: [PET_MASTER_PORT "
          "PET_NPROC_PER_NODE]");
    CHECK(e.value == json::value(arr(R"([{"name":"test","value":"value"},
      {"name":"PET_NPROC_PER_NODE","value":"value"},{"name":"PET_MASTER_PORT","value":"1"},
      {"name":"PET_NPROC_PER_NODE","value":"again"}])")));
  }
  SECTION("every reserved name") {
    for (const char* name : {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR",
                             "PET_MASTER_PORT"}) {
      trainer_of(job).env = {json::object{{"name", name}, {"value", "x"}}};
      const auto result = validate(info, job);
      REQUIRE(result.errors.size() == 1);
      CHECK(result.errors[0].detail ==
            std::string("must not have reserved envs, invalid envs configured: [") + name + "]");
    }
  }
}
