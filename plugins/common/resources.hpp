// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the ML-policy plugins (torch, plainml, jax, xgboost, flux): the lookups of
// upstream's runtime.Info (kubeflow/trainer pkg/runtime/runtime.go) with their exact semantics,
// and the per-node GPU/CPU derivation of reference 3.8. Internal to trainer_core.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::plugins::detail {

inline constexpr const char* kAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
inline constexpr const char* kAncestorTrainer = "trainer";
/// The trainer job and its main container are both called `node`.
inline constexpr const char* kNode = "node";
/// Port of the trainer nodes' rendezvous (torch master, JAX coordinator, XGBoost tracker).
inline constexpr std::int32_t kContainerTrainerPort = 29500;

/// First PodSet whose ancestor is `ancestor` (upstream `FindPodSetByAncestor`).
[[nodiscard]] PodSet* find_pod_set_by_ancestor(Info& info, std::string_view ancestor);
[[nodiscard]] const PodSet* find_pod_set_by_ancestor(const Info& info, std::string_view ancestor);
/// First PodSet named `name` (upstream `FindPodSetByName`).
[[nodiscard]] PodSet* find_pod_set_by_name(Info& info, std::string_view name);
/// The regular container `container` of the first PodSet with that ancestor; init containers are
/// not searched (upstream `FindContainerByPodSetAncestorContainerName`).
[[nodiscard]] Container* find_container_by_ancestor(Info& info, std::string_view ancestor,
                                                    std::string_view container);
[[nodiscard]] const Container* find_container_by_ancestor(const Info& info,
                                                          std::string_view ancestor,
                                                          std::string_view container);
/// The container `container` of the first PodSet named `pod_set`, regular containers first, then
/// init containers (upstream `FindContainerByPodSetName`).
[[nodiscard]] Container* find_container_by_pod_set_name(Info& info, std::string_view pod_set,
                                                        std::string_view container);
[[nodiscard]] const Container* find_container_by_pod_set_name(const Info& info,
                                                              std::string_view pod_set,
                                                              std::string_view container);

/// The trainer `node` container's resources from the (patched, resource-merged) JobSet template:
/// the first replicated job named `node` or labelled ancestor `trainer` that has a container
/// named `node` decides (upstream `ExtractResourcePerNodeFromRuntime`). A container without a
/// `resources` stanza counts as empty resources, as upstream's typed conversion gives every
/// container one. nullopt when no such job/container exists.
[[nodiscard]] std::optional<boost::json::object> extract_resource_per_node_from_runtime(
    const Info& info);

/// The resources plugins derive GPU/CPU counts from: the TrainJob's `resourcesPerNode` alone when
/// set (not the merged result, as upstream), else the runtime's (above), else empty.
[[nodiscard]] boost::json::object resources_per_node(const Info& info, const TrainJob& job);

/// GPUs per node (upstream `GetNumGPUPerNode`): the first resource in `requests` whose name
/// contains `gpu` (case-insensitive), as an integer rounded up; when that is 0, the same over
/// `limits`. Upstream picks among several `*gpu*` names in Go map order; we pick the
/// lexicographically first name. Quantities that do not parse are an error (kInvalid).
[[nodiscard]] Result<std::int64_t> gpu_count_per_node(const boost::json::object& resources);

/// CPUs per node (upstream torch `getNumCPUPerNode`): `requests.cpu` rounded up, or when that is
/// absent or zero `limits.cpu` rounded up, else 0 (2.5 -> 3, 2500m -> 3, 0.7 -> 1).
[[nodiscard]] Result<std::int64_t> cpu_count_per_node(const boost::json::object& resources);

/// `metadata.name` of the TrainJob ("" when unset).
[[nodiscard]] std::string job_name(const TrainJob& job);
/// DNS name of the rank-0 trainer pod: `<job>-node-0-0.<job>`.
[[nodiscard]] std::string rank0_host(const TrainJob& job);
/// `{"containerPort": 29500}`, no name or protocol, as upstream adds it.
[[nodiscard]] boost::json::object trainer_port();
/// The TrainJob's `spec.trainer.env` in apply form (upstream `apply.EnvVars`).
[[nodiscard]] boost::json::array env_in_apply_form(const std::vector<boost::json::object>& env);
/// The TrainJob's `spec.trainer.env` as given, e.g. as the value of a field error.
[[nodiscard]] boost::json::array env_as_json(const std::vector<boost::json::object>& env);
/// The `name` of an EnvVar ("" when absent).
[[nodiscard]] std::string_view env_name(const boost::json::object& var);
/// The reserved-env rule of the Torch (`PET_*`) and MPI (`OMPI_MCA_*`) plugins: one Invalid
/// `spec.trainer.env` error naming, sorted and once each as Go's `%v` of a sets.List, every name
/// of `env` that `reserved` holds for; nullopt when there is none.
[[nodiscard]] std::optional<FieldError> reserved_env_error(
    const std::vector<boost::json::object>& env, bool (*reserved)(std::string_view name));
/// True when the trainer command is exactly `["tune", "run"]`.
[[nodiscard]] bool is_torchtune_command(const std::optional<std::vector<std::string>>& command);

/// The controller owner reference to the TrainJob every built object carries. `uid` is the
/// TrainJob UID (RenderContext::train_job_uid, else metadata.uid).
[[nodiscard]] boost::json::object owner_reference(const TrainJob& job, std::string_view uid);
/// The UID a build uses: the context's when set, else the TrainJob's own.
[[nodiscard]] std::string effective_uid(const TrainJob& job, const RenderContext& ctx);

}  // namespace trainer::plugins::detail
