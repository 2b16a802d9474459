// SPDX-License-Identifier: Apache-2.0
#include "jax/jax_plugin.hpp"

#include "common/trainer_env.hpp"
#include "trainer/plugin_support.hpp"

#include <string>

namespace trainer::plugins {
namespace {

namespace json = boost::json;
using namespace trainer::plugins::detail;

class JAXPlugin final : public CustomValidationPlugin, public EnforceMLPolicyPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "JAX"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kEnforceMLPolicy};
  }

  // Upstream implements Validate and accepts everything (no reserved JAX_* names: user env may
  // override them, reference 3.7).
  [[nodiscard]] ValidationResult validate(const Info& /*info*/, const TrainJob* /*old_job*/,
                                          const TrainJob& /*new_job*/,
                                          const PluginContext& /*ctx*/) override {
    return {};
  }

  [[nodiscard]] Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                               const PluginContext& /*ctx*/) override {
    const auto& ml = info.runtime_policy.ml_policy;
    if (!ml || !ml->jax) return {};

    PodSet* trainer_ps = info.find_pod_set_by_ancestor(kAncestorTrainer);
    if (trainer_ps != nullptr && trainer_ps->count && job.spec.trainer &&
        job.spec.trainer->num_nodes) {
      trainer_ps->count = *job.spec.trainer->num_nodes;
    }
    if (!job.spec.trainer) return {};
    Container* c = find_container_by_ancestor(info, kAncestorTrainer, kNodeName);
    if (c == nullptr) return {};

    const std::int64_t num_nodes =
        trainer_ps != nullptr && trainer_ps->count ? *trainer_ps->count : 1;
    // trainer.env is not upserted here: the JobSet builder adds it last, so it may override JAX_*.
    upsert_env(c->env, json::array{
                           env_value("JAX_NUM_PROCESSES", std::to_string(num_nodes)),
                           env_field_ref("JAX_PROCESS_ID", kJobCompletionIndexFieldPath),
                           env_value("JAX_COORDINATOR_ADDRESS",
                                     rank0_host(job) + ":" + std::to_string(kContainerTrainerPort)),
                       });
    upsert_port(c->ports, trainer_port());
    return {};
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_jax_plugin() {
  return std::make_unique<JAXPlugin>();
}

}  // namespace trainer::plugins
