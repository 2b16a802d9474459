// SPDX-License-Identifier: Apache-2.0
#include "mpi/mpi_plugin.hpp"

#include "common/trainer_env.hpp"
#include "mpi/mpi_objects.hpp"
#include "trainer/plugin_support.hpp"
#include "trainer/ssh.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <utility>

namespace trainer::plugins {
namespace {

namespace json = boost::json;
using namespace trainer::plugins::detail;
using namespace trainer::plugins::detail::mpi;

constexpr std::array<const char*, 4> kMpiReservedEnvNames = {
    kEnvHostfile, kEnvRshArgs, kEnvKeepFqdnHostnames, kEnvDefaultSlots};

bool is_mpi_reserved(std::string_view name) {
  return std::find(kMpiReservedEnvNames.begin(), kMpiReservedEnvNames.end(), name) !=
         kMpiReservedEnvNames.end();
}

const MPIMLPolicySource* mpi_policy(const Info& info) {
  const auto& ml = info.runtime_policy.ml_policy;
  return ml && ml->mpi ? &*ml->mpi : nullptr;
}

MPIMLPolicySource* mpi_policy(Info& info) {
  auto& ml = info.runtime_policy.ml_policy;
  return ml && ml->mpi ? &*ml->mpi : nullptr;
}

// The CRD default is OpenMPI, so an unset value (an undefaulted runtime) means OpenMPI.
// Upstream fails the same inputs with `MPI implementation for <pointer> doesn't supported`
// (reference Q7), and only once it reaches a launcher `node` container; we refuse them up front.
Result<void> check_implementation(const MPIMLPolicySource& mpi) {
  const std::string impl = mpi.mpi_implementation.value_or(kOpenMPI);
  if (impl == kOpenMPI) return {};
  return fail(ErrorCode::kUnsupported, "MPI implementation \"" + impl +
                                           "\" is not supported: only \"OpenMPI\" is implemented "
                                           "(mlPolicy.mpi.mpiImplementation)");
}

// The slots of each host: the TrainJob's numProcPerNode, else the runtime's, else (when that is
// 1) the GPUs of a node.
Result<std::int32_t> resolved_slots(const MPIMLPolicySource& mpi, const Info& info,
                                    const TrainJob& job) {
  if (job.spec.trainer && job.spec.trainer->num_proc_per_node) {
    return *job.spec.trainer->num_proc_per_node;
  }
  const std::int32_t runtime_slots = mpi.num_proc_per_node.value_or(1);
  if (runtime_slots != 1) return runtime_slots;
  auto gpus = gpu_count_per_node(resources_per_node(info, job));
  if (!gpus) return tl::unexpected(std::move(gpus.error()));
  if (*gpus <= 1) return runtime_slots;
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(*gpus, std::numeric_limits<std::int32_t>::max()));
}

// An MPI rank is a C int: the hostfile's slots (hosts x slots per host) must fit in one. The
// hosts are `numNodes` (the launcher among them with runLauncherAsNode), else the runtime's.
std::optional<FieldError> slots_error(const MPIMLPolicySource& mpi, const Info& info,
                                      const TrainJob& job) {
  auto slots = resolved_slots(mpi, info, job);
  if (!slots) return std::nullopt;  // the enforce step reports it
  // A plain pointer, not a copied optional: g++ 12 then sees no maybe-uninitialized read.
  const std::int32_t* job_nodes =
      job.spec.trainer && job.spec.trainer->num_nodes ? &*job.spec.trainer->num_nodes : nullptr;
  const std::int64_t hosts = std::max<std::int64_t>(
      job_nodes != nullptr ? *job_nodes : info.runtime_policy.ml_policy->num_nodes.value_or(1), 1);
  const std::int64_t total = hosts * std::max<std::int64_t>(*slots, 1);
  if (total <= kMaxMpiSlots) return std::nullopt;
  const bool job_slots = job.spec.trainer && job.spec.trainer->num_proc_per_node;
  const std::string why = ": " + std::to_string(hosts) + " nodes x " + std::to_string(*slots) +
                          " slots is " + std::to_string(total) + " MPI processes, more than " +
                          std::to_string(kMaxMpiSlots) + " (an MPI rank is a C int)";
  if (job_slots) {
    return field_invalid("spec.trainer.numProcPerNode", json::value(*slots),
                         "must be no more than " + std::to_string(kMaxMpiSlots / hosts) + why);
  }
  return field_invalid("spec.trainer.numNodes",
                       job_nodes != nullptr ? json::value(*job_nodes) : json::value(nullptr),
                       "must be no more than " +
                           std::to_string(kMaxMpiSlots / std::max<std::int64_t>(*slots, 1)) + why);
}

// Hosts of the hostfile: `node`, and `launcher` when it runs as a node (upstream `isNode`).
bool is_node(bool run_launcher_as_node, const PodSet& ps) {
  return (run_launcher_as_node && ps.name == kLauncher) || ps.name == kNodeName;
}

class MPIPlugin final : public CustomValidationPlugin,
                        public EnforceMLPolicyPlugin,
                        public ComponentBuilderPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "MPI"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kEnforceMLPolicy, Phase::kComponentBuilder};
  }

  [[nodiscard]] ValidationResult validate(const Info& info, const TrainJob* /*old_job*/,
                                          const TrainJob& new_job,
                                          const PluginContext& /*ctx*/) override {
    ValidationResult result;
    const MPIMLPolicySource* mpi = mpi_policy(info);
    if (mpi == nullptr || !new_job.spec.trainer) return result;
    const Trainer& trainer = *new_job.spec.trainer;
    // M1: launcher-as-node with several nodes needs both PodSets.
    if (trainer.num_nodes.value_or(1) >= 2 && mpi->run_launcher_as_node.value_or(false) &&
        (info.find_pod_set_by_name(kLauncher) == nullptr ||
         info.find_pod_set_by_name(kNodeName) == nullptr)) {
      result.errors.push_back(field_invalid(
          "spec.trainer.numNodes", json::value(*trainer.num_nodes),
          "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have "
          "either launcher and node"));
    }
    // M2: reserved OMPI_MCA_* names.
    if (auto reserved = reserved_env_error(trainer.env, is_mpi_reserved)) {
      result.errors.push_back(std::move(*reserved));
    }
    if (auto too_many = slots_error(*mpi, info, new_job)) {
      result.errors.push_back(std::move(*too_many));
    }
    return result;
  }

  [[nodiscard]] Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                               const PluginContext& /*ctx*/) override {
    MPIMLPolicySource* mpi = mpi_policy(info);
    if (mpi == nullptr) return {};
    if (auto ok = check_implementation(*mpi); !ok) return ok;
    const bool run_launcher_as_node = mpi->run_launcher_as_node.value_or(false);
    const Trainer* trainer = job.spec.trainer ? &*job.spec.trainer : nullptr;

    // Counts: the TrainJob's numNodes decides the `node` PodSet; with runLauncherAsNode one of
    // the nodes is the launcher.
    if (trainer != nullptr && trainer->num_nodes) {
      if (PodSet* node = info.find_pod_set_by_name(kNodeName); node != nullptr && node->count) {
        *node->count =
            run_launcher_as_node ? std::max(*trainer->num_nodes - 1, 1) : *trainer->num_nodes;
      }
    }

    // Slots, written back into the policy for the hostfile and the env.
    auto resolved = resolved_slots(*mpi, info, job);
    if (!resolved) return tl::unexpected(std::move(resolved.error()));
    if ((trainer != nullptr && trainer->num_proc_per_node) ||
        *resolved != mpi->num_proc_per_node.value_or(1)) {
      mpi->num_proc_per_node = *resolved;
    }
    const std::int32_t slots = mpi->num_proc_per_node.value_or(1);
    const std::string job_name_ = job_name(job);
    const std::string mount_path = mpi->ssh_auth_mount_path.value_or(kDefaultSshAuthMountPath);

    for (PodSet& ps : info.template_spec.pod_sets) {
      if (ps.name != kNodeName && ps.name != kLauncher) continue;
      const bool launcher = ps.name == kLauncher;
      upsert_volume(ps.volumes, ssh_auth_volume(job_name_));
      if (launcher) upsert_volume(ps.volumes, hostfile_volume(job_name_));
      // Only containers named `node` (reference Q8).
      for (Container& c : ps.containers) {
        if (c.name != kNodeName) continue;
        upsert_volume_mount(c.volume_mounts, volume_mount(kSshAuthVolumeName, mount_path));
        if (!launcher) continue;
        upsert_volume_mount(c.volume_mounts, volume_mount(kHostfileVolumeName, kHostfileDir));
        upsert_env(c.env, open_mpi_env(slots));
      }
    }
    return {};
  }

  [[nodiscard]] Result<std::vector<json::value>> build(const Info& info, const TrainJob& job,
                                                       const PluginContext& ctx) override {
    std::vector<json::value> objects;
    const MPIMLPolicySource* mpi = mpi_policy(info);
    if (mpi == nullptr) return objects;
    if (auto ok = check_implementation(*mpi); !ok) return tl::unexpected(std::move(ok.error()));
    const std::string job_name_ = job_name(job);
    const std::string uid = effective_uid(job, ctx);

    // The Secret is immutable: built only when none exists yet.
    const std::string secret_name = ssh_auth_secret_name(job_name_);
    if (!ctx.find("v1", "Secret", job.metadata.namespace_.value_or(""), secret_name)) {
      auto keys =
          ctx.inputs.generate_ssh_key ? ctx.inputs.generate_ssh_key() : generate_ssh_key_pair();
      if (!keys) {
        Error error = std::move(keys.error());
        error.message = "failed to build SSH Auth secret: " + error.message;
        return tl::unexpected(std::move(error));
      }
      objects.emplace_back(ssh_auth_secret(job, uid, *keys));
    }

    const bool run_launcher_as_node = mpi->run_launcher_as_node.value_or(false);
    const std::string slots = std::to_string(mpi->num_proc_per_node.value_or(1));
    std::string hostfile;
    for (const PodSet& ps : info.template_spec.pod_sets) {
      if (!is_node(run_launcher_as_node, ps)) continue;
      for (const auto& endpoint : ps.endpoints) {
        hostfile.append(endpoint).append(" slots=").append(slots).append("\n");
      }
    }
    objects.emplace_back(hostfile_config_map(job, uid, std::move(hostfile)));
    return objects;
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_mpi_plugin() {
  return std::make_unique<MPIPlugin>();
}

}  // namespace trainer::plugins
