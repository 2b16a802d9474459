// SPDX-License-Identifier: Apache-2.0
//
// A Training Operator v1 job read for conversion: its replica specs with the defaults the v1
// controllers applied in memory (reference 1.4: canonical type names, replicas, restartPolicy,
// the default port), checked with the v1 webhooks' rules (reference 1.5). The per-kind
// converters (v1_<kind>.cpp) turn it into `Group`s, one per replicatedJob of the generated
// runtime; v1_build.cpp assembles the TrainingRuntime and the TrainJob from them.
#pragma once

#include "convert/diagnostics.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::convert::detail {

/// What differs between the six v1 kinds in their shared handling (reference 1.2).
struct KindInfo {
  std::string_view kind;                     ///< `PyTorchJob`
  std::string_view specs_field;              ///< `pytorchReplicaSpecs`
  std::string_view container;                ///< the default container name, `pytorch`
  std::string_view port_name;                ///< `pytorchjob-port`
  std::int64_t port = 0;                     ///< 23456
  std::string_view restart;                  ///< the default restartPolicy
  std::vector<std::string_view> types;       ///< allowed replica types; empty: any (TFJob)
  std::string_view operator_name;            ///< `pytorchjob-controller`
  bool needs_default_container = true;       ///< the webhook requires a container of that name
  bool add_port = true;                      ///< defaulting appends the port (not MPI)
  std::int64_t default_replicas_worker = 1;  ///< MPI: Worker defaults to 0
};

/// One replica type of the v1 job, defaulted.
struct Role {
  std::string type;  ///< canonical, `Worker`
  std::string key;   ///< the map key as written, `worker`
  std::string path;  ///< `spec.pytorchReplicaSpecs.Worker` (the key as written)
  std::int64_t replicas = 1;
  std::string restart_policy;
  boost::json::object pod_template;  ///< the replica's `template`, with the default port added
};

struct V1Job {
  const KindInfo* info = nullptr;
  std::string name;
  std::string ns;
  boost::json::object metadata;
  boost::json::object spec;
  std::vector<Role> roles;  ///< in the kind's type order (then the rest sorted)

  [[nodiscard]] const Role* role(std::string_view type) const;
  /// The pods of every role; read_v1_job refused a job whose sum exceeds kMaxPodsPerTrainJob.
  [[nodiscard]] std::int64_t total_replicas() const;
  /// The role's default container's port named `info->port_name`, else the kind's default.
  [[nodiscard]] std::int64_t port(const Role& role) const;
};

/// A count of pods or of processes per pod (`replicas`, `nprocPerNode`, `slotsPerWorker`) at
/// `path`: an integer from `min` to trainer::kMaxPodsPerTrainJob, so that no sum or product
/// of counts the conversion computes can overflow. Otherwise a refusal naming the path and the
/// limit, and nullopt.
[[nodiscard]] std::optional<std::int64_t> read_count(const boost::json::value& value,
                                                     const std::string& path, std::int64_t min,
                                                     Diagnostics& diag);

/// Reads and defaults `job`; the webhook refusals go to `diag` as errors. Nothing when the
/// object cannot be read at all (then `diag` holds why).
[[nodiscard]] std::optional<V1Job> read_v1_job(const boost::json::object& job, const KindInfo& info,
                                               std::string default_ns, Diagnostics& diag);

/// One replicatedJob of the generated runtime.
struct Group {
  std::string name;  ///< `node`, `worker`, `ps`, `launcher`
  const Role* role = nullptr;
  std::int64_t count = 1;
  /// The replicatedJob of `trainjob-ancestor-step: trainer`, the one `trainer.*` and numNodes
  /// apply to. Only MPI sets it: its container is renamed `node`, which that label requires;
  /// the others keep v1's container names, so their counts come from `parallelism`.
  bool trainer_ancestor = false;
  /// Env appended to the target containers after their own env (v1 appended too); a variable
  /// the container already defines is kept as the user wrote it.
  boost::json::array env;
  /// Whether `env` goes to every container (PyTorch, XGBoost, JAX, Paddle) or only to the
  /// default-named one (TFJob's TF_CONFIG).
  bool all_containers = true;
  /// One Job per pod: the replicatedJob has `count` Jobs of one pod each instead of one Job of
  /// `count` pods. JobSet numbers the Jobs of all replicatedJobs in order
  /// (`jobset.sigs.k8s.io/job-global-index`), so a rank that continues an earlier group's
  /// (a Worker's after the Master's) is a fieldRef, where the completion index would need
  /// arithmetic that env expansion cannot do. The replica index is then the Job's index.
  bool pod_per_job = false;
  /// MPI: the index of the container renamed `node` (the MPI plugin mounts the hostfile and
  /// SSH keys into `node` containers), and the command it gets when it has none.
  std::optional<std::size_t> rename_to_node;
  /// Added to the Job's spec (TFJob: the successPolicy of "Worker 0 succeeded").
  boost::json::object job_fields;
  boost::json::array default_command;
};

/// The raw replica spec of `role` as written (for the webhook rules that see undefaulted values).
[[nodiscard]] const boost::json::object* raw_replica_spec(const V1Job& job, const Role& role);

/// A Group whose env goes to every container, one Job of `count` pods.
[[nodiscard]] Group make_group(std::string name, const Role* role, std::int64_t count,
                               bool trainer_ancestor, boost::json::array env = {});

/// The name of the env variable, defined first in every converted container, that holds the
/// pod's completion index; later entries use `$(V1_REPLICA_INDEX)` (reference 3.6).
inline constexpr std::string_view kIndexVar = "V1_REPLICA_INDEX";
/// `kIndexVar` as the `$(...)` reference an env value or command expands.
inline constexpr std::string_view kIndexRef = "$(V1_REPLICA_INDEX)";

/// The fieldPaths of a pod's completion index in its Job, of its Job's index in the
/// replicatedJob, and of its Job's index across all replicatedJobs (JobSet puts the last two
/// on every Job's pod template; the local executor on every pod).
inline constexpr std::string_view kCompletionIndexField =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";
inline constexpr std::string_view kJobIndexField =
    "metadata.annotations['jobset.sigs.k8s.io/job-index']";
inline constexpr std::string_view kGlobalIndexField =
    "metadata.annotations['jobset.sigs.k8s.io/job-global-index']";

/// `<job>-<replicatedJob>-<jobIndex>-<i>.<job>`: a JobSet pod's address (reference 3.3).
[[nodiscard]] std::string pod_address(std::string_view job, std::string_view rjob,
                                      std::int64_t job_index, std::int64_t index);
/// `<job>-<replicatedJob>-0-<i>.<job>`: pod `i` of the replicatedJob's one Job.
[[nodiscard]] std::string pod_address(std::string_view job, std::string_view rjob,
                                      std::int64_t index);
/// `{name, value}`.
[[nodiscard]] boost::json::object env_var(std::string_view name, std::string value);
/// `{name, valueFrom: {fieldRef: {fieldPath}}}`.
[[nodiscard]] boost::json::object env_field(std::string_view name, std::string_view field_path);
/// Whether two roles' pod templates are the same (then one `node` replicatedJob runs both).
[[nodiscard]] bool same_template(const Role& a, const Role& b);

}  // namespace trainer::convert::detail
