// SPDX-License-Identifier: Apache-2.0
// XGBoost plugin (reference 4.6): DMLC_* env with workers = nodes x max(GPUs, 1), port 29500,
// and the reserved-env validation (Forbidden per index).
#include "plugin_fixtures.hpp"
#include "xgboost/xgboost_plugin.hpp"

#include <catch2/catch.hpp>

using namespace fixtures;

namespace {

trainer::MLPolicy xgboost_policy() {
  trainer::MLPolicy p;
  p.xgboost = trainer::XGBoostMLPolicySource{};
  return p;
}

trainer::Result<void> enforce(trainer::Info& info, trainer::TrainJob& job) {
  auto plugin = trainer::plugins::make_xgboost_plugin();
  auto* p = dynamic_cast<trainer::EnforceMLPolicyPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  return p->enforce_ml_policy(info, job, trainer::RenderContext{});
}

std::string num_workers(trainer::TrainJob job, const char* runtime_resources = "{}",
                        std::int32_t count = 1) {
  auto info =
      info_with(xgboost_policy(), {trainer_pod_set(count)}, trainer_jobset_spec(runtime_resources));
  REQUIRE(enforce(info, job));
  return env_value(info.template_spec.pod_sets[0].containers[0], "DMLC_NUM_WORKER");
}

}  // namespace

TEST_CASE("XGBoost: env contract on CPU", "[xgboost]") {
  auto info = info_with(xgboost_policy(), {trainer_pod_set(1)});
  auto job = train_job("xgb");
  trainer_of(job).num_nodes = 3;
  REQUIRE(enforce(info, job));
  const auto& ps = info.template_spec.pod_sets[0];
  CHECK(ps.count == 3);
  CHECK(ps.containers[0].env == arr(R"([
    {"name":"DMLC_TRACKER_URI","value":"xgb-node-0-0.xgb"},
    {"name":"DMLC_TRACKER_PORT","value":"29500"},
    {"name":"DMLC_TASK_ID","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
    {"name":"DMLC_NUM_WORKER","value":"3"}])"));
  CHECK(ps.containers[0].ports == arr(R"([{"containerPort":29500}])"));
}

TEST_CASE("XGBoost: DMLC_NUM_WORKER with GPUs", "[xgboost]") {
  auto job = train_job();
  trainer_of(job).num_nodes = 2;
  SECTION("GPUs from the TrainJob") {
    trainer_of(job).resources_per_node = obj(R"({"limits":{"nvidia.com/gpu":"4"}})");
    CHECK(num_workers(job) == "8");
  }
  SECTION("GPUs from the runtime") {
    CHECK(num_workers(job, R"({"requests":{"nvidia.com/gpu":"2"}})") == "4");
  }
  SECTION("TrainJob resources without GPU replace the runtime's GPU (quirk Q5)") {
    trainer_of(job).resources_per_node = obj(R"({"requests":{"cpu":"8"}})");
    CHECK(num_workers(job, R"({"limits":{"nvidia.com/gpu":"2"}})") == "2");
  }
  SECTION("runtime count when numNodes is unset") {
    trainer_of(job).num_nodes.reset();
    CHECK(num_workers(job, R"({"limits":{"nvidia.com/gpu":"2"}})", 5) == "10");
  }
}

TEST_CASE("XGBoost: no action cases", "[xgboost]") {
  SECTION("no xgboost policy") {
    auto info = info_with(torch_policy(), {trainer_pod_set(1)});
    auto job = train_job();
    trainer_of(job).num_nodes = 3;
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  }
  SECTION("no trainer PodSet") {
    auto info = info_with(xgboost_policy(), {pod_set("node", std::nullopt, 1, {"node"})});
    auto job = train_job();
    trainer_of(job).num_nodes = 3;
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 1);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  }
  SECTION("no spec.trainer (quirk Q3)") {
    auto info = info_with(xgboost_policy(), {trainer_pod_set(2)});
    auto job = train_job();
    REQUIRE(enforce(info, job));
    CHECK(info.template_spec.pod_sets[0].count == 2);
    CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
    CHECK(info.template_spec.pod_sets[0].containers[0].ports.empty());
  }
}

TEST_CASE("XGBoost validation: reserved env names are Forbidden per index", "[xgboost]") {
  auto plugin = trainer::plugins::make_xgboost_plugin();
  CHECK(plugin->name() == "XGBoost");
  auto* v = dynamic_cast<trainer::CustomValidationPlugin*>(plugin.get());
  REQUIRE(v != nullptr);
  auto info = info_with(xgboost_policy(), {trainer_pod_set(1)});
  auto job = train_job();
  trainer_of(job).env = {obj(R"({"name":"OK","value":"1"})"),
                         obj(R"({"name":"DMLC_TRACKER_URI","value":"x"})"),
                         obj(R"({"name":"DMLC_TRACKER_PORT","value":"1"})"),
                         obj(R"({"name":"DMLC_TASK_ID","value":"0"})"),
                         obj(R"({"name":"DMLC_NUM_WORKER","value":"2"})"),
                         obj(R"({"name":"DMLC_TRACKER_URI","value":"again"})")};
  const auto result = v->validate(info, nullptr, job, trainer::RenderContext{});
  REQUIRE(result.errors.size() == 5);
  const std::vector<std::pair<const char*, const char*>> want = {
      {"spec.trainer.env[1]", "DMLC_TRACKER_URI is reserved for the XGBoost runtime"},
      {"spec.trainer.env[2]", "DMLC_TRACKER_PORT is reserved for the XGBoost runtime"},
      {"spec.trainer.env[3]", "DMLC_TASK_ID is reserved for the XGBoost runtime"},
      {"spec.trainer.env[4]", "DMLC_NUM_WORKER is reserved for the XGBoost runtime"},
      {"spec.trainer.env[5]", "DMLC_TRACKER_URI is reserved for the XGBoost runtime"}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(result.errors[i].type == trainer::FieldErrorType::kForbidden);
    CHECK(result.errors[i].path == want[i].first);
    CHECK(result.errors[i].detail == want[i].second);
  }
  CHECK(result.errors[0].to_string() ==
        "spec.trainer.env[1]: Forbidden: DMLC_TRACKER_URI is reserved for the XGBoost runtime");

  // Other policies: nothing to check.
  auto torch_info = info_with(torch_policy(), {trainer_pod_set(1)});
  CHECK(v->validate(torch_info, nullptr, job, trainer::RenderContext{}).errors.empty());
}
