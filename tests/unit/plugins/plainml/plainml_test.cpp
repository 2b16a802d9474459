// SPDX-License-Identifier: Apache-2.0
// PlainML plugin: the fallback for runtimes without a torch/mpi/jax policy (reference 4.4).
#include "plainml/plainml_plugin.hpp"
#include "plugin_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace fixtures;

namespace {

trainer::Result<void> enforce(trainer::Info& info, trainer::TrainJob& job) {
  auto plugin = trainer::plugins::make_plainml_plugin();
  auto* p = dynamic_cast<trainer::EnforceMLPolicyPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  return p->enforce_ml_policy(info, job, trainer::RenderContext{});
}

trainer::TrainJob job_with_nodes_and_env() {
  auto job = train_job();
  trainer_of(job).num_nodes = 3;
  trainer_of(job).env = {obj(R"({"name":"FOO","value":"user"})"),
                         obj(R"({"name":"BAR","value":"new"})")};
  return job;
}

}  // namespace

TEST_CASE("PlainML: name and no interfaces beyond EnforceMLPolicy", "[plainml]") {
  auto plugin = trainer::plugins::make_plainml_plugin();
  CHECK(plugin->name() == "PlainML");
  CHECK(dynamic_cast<trainer::CustomValidationPlugin*>(plugin.get()) == nullptr);
  CHECK(dynamic_cast<trainer::ComponentBuilderPlugin*>(plugin.get()) == nullptr);
}

TEST_CASE("PlainML: acts without mlPolicy and for xgboost/flux policies", "[plainml]") {
  std::vector<std::pair<const char*, std::optional<trainer::MLPolicy>>> runtimes;
  runtimes.emplace_back("no mlPolicy", std::nullopt);
  runtimes.emplace_back("empty mlPolicy", trainer::MLPolicy{});
  trainer::MLPolicy xgb;
  xgb.xgboost = trainer::XGBoostMLPolicySource{};
  runtimes.emplace_back("xgboost", xgb);
  trainer::MLPolicy flux;
  flux.flux = trainer::FluxMLPolicySource{1};
  runtimes.emplace_back("flux", flux);
  for (auto& [name, policy] : runtimes) {
    INFO(name);
    trainer::Info info;
    info.runtime_policy.ml_policy = policy;
    info.template_spec.pod_sets = {pod_set("init", "dataset-initializer", 1, {"node"}),
                                   trainer_pod_set(1)};
    info.template_spec.pod_sets[1].containers[0].env = arr(R"([{"name":"FOO","value":"runtime"}])");
    auto job = job_with_nodes_and_env();
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
    CHECK(info.template_spec.pod_sets[1].count == 3);
    CHECK(info.template_spec.pod_sets[1].containers[0].env ==
          arr(R"([{"name":"FOO","value":"user"},{"name":"BAR","value":"new"}])"));
    CHECK(info.template_spec.pod_sets[1].containers[0].ports.empty());
  }
}

TEST_CASE("PlainML: no action for torch, mpi and jax policies", "[plainml]") {
  trainer::MLPolicy torch;
  torch.torch = trainer::TorchMLPolicySource{};
  trainer::MLPolicy mpi;
  mpi.mpi = trainer::MPIMLPolicySource{};
  trainer::MLPolicy jax;
  jax.jax = trainer::JAXMLPolicySource{};
  for (const auto& policy : {torch, mpi, jax}) {
    auto info = info_with(policy, {trainer_pod_set(1)});
    auto job = job_with_nodes_and_env();
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  }
}

TEST_CASE("PlainML: edge cases", "[plainml]") {
  SECTION("no spec.trainer: nothing changes") {
    auto info = info_with(trainer::MLPolicy{}, {trainer_pod_set(2)});
    auto job = train_job();
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 2);
  }
  SECTION("numNodes unset keeps the count; env is still applied") {
    auto info = info_with(trainer::MLPolicy{}, {trainer_pod_set(2)});
    auto job = train_job();
    trainer_of(job).env = {obj(R"({"name":"A","value":"1"})")};
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 2);
    CHECK(env_value(info.template_spec.pod_sets[0].containers[0], "A") == "1");
  }
  SECTION("no trainer PodSet, or one without a node container") {
    auto info = info_with(trainer::MLPolicy{}, {pod_set("node", std::nullopt, 1, {"node"}),
                                                pod_set("t", "trainer", std::nullopt, {"main"})});
    auto job = job_with_nodes_and_env();
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
    CHECK(info.template_spec.pod_sets[1].count == std::nullopt);
    CHECK(info.template_spec.pod_sets[1].containers[0].env.empty());
  }
}
