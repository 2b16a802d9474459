// SPDX-License-Identifier: Apache-2.0
#include "plainml/plainml_plugin.hpp"

#include "common/trainer_env.hpp"
#include "trainer/plugin_support.hpp"

namespace trainer::plugins {
namespace {

using namespace trainer::plugins::detail;

class PlainMLPlugin final : public EnforceMLPolicyPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "PlainML"; }
  [[nodiscard]] Phases phases() const override { return {Phase::kEnforceMLPolicy}; }

  [[nodiscard]] Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                               const PluginContext& /*ctx*/) override {
    const auto& ml = info.runtime_policy.ml_policy;
    if (ml && (ml->torch || ml->mpi || ml->jax)) return {};
    if (!job.spec.trainer) return {};
    const Trainer& trainer = *job.spec.trainer;

    if (trainer.num_nodes) {
      PodSet* trainer_ps = info.find_pod_set_by_ancestor(kAncestorTrainer);
      if (trainer_ps != nullptr && trainer_ps->count) trainer_ps->count = *trainer.num_nodes;
    }
    if (Container* c = find_container_by_ancestor(info, kAncestorTrainer, kNodeName)) {
      upsert_env(c->env, env_in_apply_form(trainer.env));
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_plainml_plugin() {
  return std::make_unique<PlainMLPlugin>();
}

}  // namespace trainer::plugins
