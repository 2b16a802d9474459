// SPDX-License-Identifier: Apache-2.0
// JAX plugin (reference 4.5): JAX_* env, port 29500, node count; validation accepts everything.
#include "jax/jax_plugin.hpp"
#include "plugin_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace fixtures;

namespace {

trainer::MLPolicy jax_policy() {
  trainer::MLPolicy p;
  p.jax = trainer::JAXMLPolicySource{};
  return p;
}

trainer::Result<void> enforce(trainer::Info& info, trainer::TrainJob& job) {
  auto plugin = trainer::plugins::make_jax_plugin();
  auto* p = dynamic_cast<trainer::EnforceMLPolicyPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  return p->enforce_ml_policy(info, job, trainer::RenderContext{});
}

}  // namespace

TEST_CASE("JAX: env contract and port", "[jax]") {
  auto info = info_with(jax_policy(), {trainer_pod_set(1)});
  info.template_spec.pod_sets[0].containers[0].env =
      arr(R"([{"name":"JAX_NUM_PROCESSES","value":"99"},{"name":"KEEP","value":"k"}])");
  auto job = train_job("jax-job");
  trainer_of(job).num_nodes = 4;
  trainer_of(job).env = {obj(R"({"name":"USER_ENV","value":"u"})")};
  REQUIRE(enforce(info, job));
  const auto& ps = info.template_spec.pod_sets[0];
  CHECK(ps.count == 4);
  // trainer.env is left to the JobSet builder (so it can override JAX_*).
  CHECK(ps.containers[0].env == arr(R"([
    {"name":"JAX_NUM_PROCESSES","value":"4"},
    {"name":"KEEP","value":"k"},
    {"name":"JAX_PROCESS_ID","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
    {"name":"JAX_COORDINATOR_ADDRESS","value":"jax-job-node-0-0.jax-job:29500"}])"));
  CHECK(ps.containers[0].ports == arr(R"([{"containerPort":29500}])"));
}

TEST_CASE("JAX: count from the runtime when numNodes is unset", "[jax]") {
  auto info = info_with(jax_policy(), {trainer_pod_set(2)});
  auto job = train_job();
  trainer_of(job);
  REQUIRE(enforce(info, job));
  CHECK(info.template_spec.pod_sets[0].count == 2);
  CHECK(env_value(info.template_spec.pod_sets[0].containers[0], "JAX_NUM_PROCESSES") == "2");
}

TEST_CASE("JAX: no action cases", "[jax]") {
  SECTION("no jax policy") {
    auto info = info_with(torch_policy(), {trainer_pod_set(1)});
    auto job = train_job();
    trainer_of(job).num_nodes = 3;
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  }
  SECTION("no spec.trainer: no env or port (quirk Q3)") {
    auto info = info_with(jax_policy(), {trainer_pod_set(1)});
    auto job = train_job();
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
    CHECK(info.template_spec.pod_sets[0].containers[0].ports.empty());
  }
  SECTION("trainer PodSet without a node container: count only") {
    auto info = info_with(jax_policy(), {pod_set("node", "trainer", 1, {"main"})});
    auto job = train_job();
    trainer_of(job).num_nodes = 2;
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 2);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  }
}

TEST_CASE("JAX: validation accepts everything, including JAX_* user env", "[jax]") {
  auto plugin = trainer::plugins::make_jax_plugin();
  CHECK(plugin->name() == "JAX");
  auto* v = dynamic_cast<trainer::CustomValidationPlugin*>(plugin.get());
  REQUIRE(v != nullptr);
  auto info = info_with(jax_policy(), {trainer_pod_set(1)});
  auto job = train_job();
  trainer_of(job).env = {obj(R"({"name":"JAX_NUM_PROCESSES","value":"1"})")};
  const auto result = v->validate(info, nullptr, job, trainer::RenderContext{});
  CHECK(result.ok());
  CHECK(result.warnings.empty());
}
