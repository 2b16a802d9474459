// SPDX-License-Identifier: Apache-2.0
#include "torch/torch_plugin.hpp"

#include "common/trainer_env.hpp"
#include "torch/torchtune.hpp"
#include "trainer/plugin_support.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace trainer::plugins {
namespace {

namespace json = boost::json;
using namespace trainer::plugins::detail;

constexpr std::array<const char*, 5> kTorchReservedEnvNames = {
    "PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"};

bool is_torch_reserved(std::string_view name) {
  return std::find(kTorchReservedEnvNames.begin(), kTorchReservedEnvNames.end(), name) !=
         kTorchReservedEnvNames.end();
}

const TorchMLPolicySource* torch_policy(const Info& info) {
  const auto& ml = info.runtime_policy.ml_policy;
  return ml && ml->torch ? &*ml->torch : nullptr;
}

json::object env_injection_target_json(const EnvInjectionTarget& target) {
  json::array names;
  for (const auto& c : target.container_names) names.emplace_back(c);
  return json::object{{"jobName", target.job_name}, {"containerNames", std::move(names)}};
}

std::string target_not_found(const EnvInjectionTarget& target, const std::string& container) {
  return "envInjection target podSet \"" + target.job_name + "\" container \"" + container +
         "\" not found in runtime template";
}

class TorchPlugin final : public CustomValidationPlugin, public EnforceMLPolicyPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "Torch"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kEnforceMLPolicy};
  }

  [[nodiscard]] ValidationResult validate(const Info& info, const TrainJob* /*old_job*/,
                                          const TrainJob& new_job,
                                          const PluginContext& /*ctx*/) override {
    ValidationResult result;
    const TorchMLPolicySource* torch = torch_policy(info);
    if (torch == nullptr) return result;

    // T1: every envInjection target must exist (regular containers, then init containers).
    if (torch->env_injection) {
      for (const auto& target : torch->env_injection->targets) {
        for (const auto& container : target.container_names) {
          if (find_container_by_pod_set_name(info, target.job_name, container) != nullptr) {
            continue;
          }
          result.errors.push_back(field_invalid("spec.runtimeRef",
                                                env_injection_target_json(target),
                                                target_not_found(target, container)));
        }
      }
    }

    if (!new_job.spec.trainer) return result;
    const Trainer& trainer = *new_job.spec.trainer;
    // T2: reserved PET_* names.
    if (auto reserved = reserved_env_error(trainer.env, is_torch_reserved)) {
      result.errors.push_back(std::move(*reserved));
    }
    // T3: torchtune.
    if (is_torchtune_command(trainer.command)) {
      for (auto& e : validate_torchtune(info, new_job)) result.errors.push_back(std::move(e));
    }
    return result;
  }

  [[nodiscard]] Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                               const PluginContext& /*ctx*/) override {
    const TorchMLPolicySource* torch = torch_policy(info);
    if (torch == nullptr) return {};

    PodSet* trainer_ps = info.find_pod_set_by_ancestor(kAncestorTrainer);
    if (trainer_ps != nullptr && trainer_ps->count && job.spec.trainer &&
        job.spec.trainer->num_nodes) {
      trainer_ps->count = *job.spec.trainer->num_nodes;
    }

    ProcPerNode proc_per_node = ProcPerNode::automatic();
    if (job.spec.trainer && job.spec.trainer->num_proc_per_node) {
      proc_per_node = ProcPerNode::of(*job.spec.trainer->num_proc_per_node);
    }
    const json::object resources = resources_per_node(info, job);
    auto gpus = gpu_count_per_node(resources);
    if (!gpus) return tl::unexpected<Error>(gpus.error());
    if (proc_per_node.is_auto && *gpus == 0) {
      auto cpus = cpu_count_per_node(resources);
      if (!cpus) return tl::unexpected<Error>(cpus.error());
      proc_per_node = ProcPerNode::of(std::max<std::int64_t>(1, *cpus));
    }

    Container* trainer_container = nullptr;
    if (job.spec.trainer) {
      trainer_container = find_container_by_ancestor(info, kAncestorTrainer, kNodeName);
      if (trainer_container != nullptr) {
        upsert_env(trainer_container->env, env_in_apply_form(job.spec.trainer->env));
      }
    }

    const std::int64_t num_nodes =
        trainer_ps != nullptr && trainer_ps->count ? *trainer_ps->count : 1;
    // Built for each container they go into, and moved into its env there.
    const auto pet_envs = [&] {
      return json::array{
          env_value("PET_NNODES", std::to_string(num_nodes)),
          env_value("PET_NPROC_PER_NODE", proc_per_node.to_string()),
          env_field_ref("PET_NODE_RANK", kJobCompletionIndexFieldPath),
      };
    };
    const auto master_envs = [&] {
      return json::array{
          env_value("PET_MASTER_ADDR", rank0_host(job)),
          env_value("PET_MASTER_PORT", std::to_string(kContainerTrainerPort)),
      };
    };

    if (trainer_container != nullptr) {
      upsert_env(trainer_container->env, pet_envs());
      auto& command = job.spec.trainer->command;
      if (!is_torchtune_command(command)) {
        upsert_env(trainer_container->env, master_envs());
      } else {
        for (auto& token : torchtune_command_suffix(info, job, num_nodes, proc_per_node, *gpus)) {
          command->push_back(std::move(token));
        }
      }
      upsert_port(trainer_container->ports, trainer_port());
    }

    // envInjection targets always get the PET_* and master envs, even for torchtune and without
    // spec.trainer: they are auxiliary containers (preflight checks, sidecars).
    if (torch->env_injection) {
      for (const auto& target : torch->env_injection->targets) {
        for (const auto& name : target.container_names) {
          Container* container = find_container_by_pod_set_name(info, target.job_name, name);
          if (container == nullptr)
            return fail(ErrorCode::kInvalid, target_not_found(target, name));
          upsert_env(container->env, pet_envs());
          upsert_env(container->env, master_envs());
        }
      }
    }
    return {};
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_torch_plugin() {
  return std::make_unique<TorchPlugin>();
}

}  // namespace trainer::plugins
