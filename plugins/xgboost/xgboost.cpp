// SPDX-License-Identifier: Apache-2.0
#include "xgboost/xgboost_plugin.hpp"

#include "common/trainer_env.hpp"
#include "trainer/plugin_support.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace trainer::plugins {
namespace {

namespace json = boost::json;
using namespace trainer::plugins::detail;

constexpr std::array<std::string_view, 4> kXgboostReservedEnvNames = {
    "DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"};

bool has_xgboost_policy(const Info& info) {
  const auto& ml = info.runtime_policy.ml_policy;
  return ml && ml->xgboost;
}

class XGBoostPlugin final : public CustomValidationPlugin, public EnforceMLPolicyPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "XGBoost"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kEnforceMLPolicy};
  }

  [[nodiscard]] ValidationResult validate(const Info& info, const TrainJob* /*old_job*/,
                                          const TrainJob& new_job,
                                          const PluginContext& /*ctx*/) override {
    ValidationResult result;
    if (!has_xgboost_policy(info) || !new_job.spec.trainer) return result;
    const auto& env = new_job.spec.trainer->env;
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string_view name = env_name(env[i]);
      if (std::find(kXgboostReservedEnvNames.begin(), kXgboostReservedEnvNames.end(), name) ==
          kXgboostReservedEnvNames.end()) {
        continue;
      }
      result.errors.push_back(
          field_forbidden("spec.trainer.env[" + std::to_string(i) + "]",
                          std::string(name) + " is reserved for the XGBoost runtime"));
    }
    return result;
  }

  [[nodiscard]] Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                               const PluginContext& /*ctx*/) override {
    if (!has_xgboost_policy(info)) return {};
    PodSet* trainer_ps = info.find_pod_set_by_ancestor(kAncestorTrainer);
    if (trainer_ps == nullptr) return {};
    if (trainer_ps->count && job.spec.trainer && job.spec.trainer->num_nodes) {
      trainer_ps->count = *job.spec.trainer->num_nodes;
    }
    if (!job.spec.trainer) return {};
    Container* c = find_container_by_ancestor(info, kAncestorTrainer, kNodeName);
    if (c == nullptr) return {};

    const std::int64_t num_nodes = trainer_ps->count ? *trainer_ps->count : 1;
    // GPU training: one worker per GPU; CPU training: one worker per node.
    auto gpus = gpu_count_per_node(resources_per_node(info, job));
    if (!gpus) return tl::unexpected<Error>(gpus.error());
    const std::int64_t workers_per_node = *gpus > 0 ? *gpus : 1;

    upsert_env(c->env,
               json::array{
                   env_value("DMLC_TRACKER_URI", rank0_host(job)),
                   env_value("DMLC_TRACKER_PORT", std::to_string(kContainerTrainerPort)),
                   env_field_ref("DMLC_TASK_ID", kJobCompletionIndexFieldPath),
                   env_value("DMLC_NUM_WORKER", std::to_string(num_nodes * workers_per_node)),
               });
    upsert_port(c->ports, trainer_port());
    return {};
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_xgboost_plugin() {
  return std::make_unique<XGBoostPlugin>();
}

}  // namespace trainer::plugins
