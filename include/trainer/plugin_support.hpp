// SPDX-License-Identifier: Apache-2.0
//
// Helpers for plugin authors: the pieces every built-in plugin (and the framework itself) uses
// to look into `Info`, edit container lists, reference the TrainJob and size resources. Each
// follows upstream kubeflow/trainer (pkg/apply, pkg/runtime, pkg/runtime/framework/plugins) with
// the same identity and rounding rules, so an out-of-tree plugin written against this header
// renders exactly as a built-in one would. All functions are pure (no I/O, no global state) and
// safe to call from any thread on distinct arguments.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"
#include "trainer/quantity.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace trainer {

// ---- Names and constants ------------------------------------------------------------------

/// Label on a replicated job's template naming its role (`PodSet::ancestor`).
inline constexpr const char* kAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
/// `kAncestorLabel` value of the trainer nodes.
inline constexpr const char* kAncestorTrainer = "trainer";
/// `kAncestorLabel` value of the dataset initializer.
inline constexpr const char* kAncestorDatasetInitializer = "dataset-initializer";
/// `kAncestorLabel` value of the model initializer.
inline constexpr const char* kAncestorModelInitializer = "model-initializer";
/// The trainer replicated job and its main container are both called `node`.
inline constexpr const char* kNodeName = "node";
/// Port of the trainer nodes' rendezvous (torch master, JAX coordinator, XGBoost tracker).
inline constexpr std::int32_t kContainerTrainerPort = 29500;
/// apiVersion and kind of the JobSet a TrainJob renders to.
inline constexpr const char* kJobSetApiVersion = "jobset.x-k8s.io/v1alpha2";
inline constexpr const char* kJobSetKind = "JobSet";
/// The job-completion-index annotation path JobSet's Indexed Jobs expose to pods (for
/// `env_field_ref`).
inline constexpr const char* kJobCompletionIndexFieldPath =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";

/// `metadata.name` of the TrainJob ("" when unset).
[[nodiscard]] std::string job_name(const TrainJob& job);
/// `metadata.namespace` of the TrainJob, `default` when unset or empty.
[[nodiscard]] std::string train_job_namespace(const TrainJob& job);
/// DNS name of the rank-0 trainer pod: `<job>-node-0-0.<job>`.
[[nodiscard]] std::string rank0_host(const TrainJob& job);

// ---- Owner references ---------------------------------------------------------------------

/// The UID a build uses: `ctx.train_job_uid` when set, else the TrainJob's `metadata.uid` ("" when
/// neither is set).
[[nodiscard]] std::string effective_uid(const TrainJob& job, const PluginContext& ctx);

/// The controller ownerReference to the TrainJob that every object a plugin builds carries:
/// `{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, name, uid, controller: true,
/// blockOwnerDeletion: true}`, keys in that order. `uid` is normally `effective_uid(job, ctx)`.
[[nodiscard]] boost::json::object train_job_owner_reference(const TrainJob& job,
                                                            std::string_view uid);

/// `metadata` of an object owned by the TrainJob: `name`, the TrainJob's `namespace` when it has
/// a non-empty one, and `ownerReferences` holding `train_job_owner_reference(job, uid)`.
[[nodiscard]] boost::json::object owned_object_metadata(std::string name, const TrainJob& job,
                                                        std::string_view uid);

// ---- Pod set and container lookups --------------------------------------------------------
// PodSets themselves are found with `Info::find_pod_set_by_ancestor` / `find_pod_set_by_name`
// and a PodSet's container with `PodSet::find_container` (include/trainer/framework.hpp).

/// The regular container `container` of the first PodSet whose ancestor is `ancestor`; init
/// containers are not searched (upstream `FindContainerByPodSetAncestorContainerName`). nullptr
/// when there is no such PodSet or container.
[[nodiscard]] Container* find_container_by_ancestor(Info& info, std::string_view ancestor,
                                                    std::string_view container);
[[nodiscard]] const Container* find_container_by_ancestor(const Info& info,
                                                          std::string_view ancestor,
                                                          std::string_view container);
/// The container `container` of the first PodSet named `pod_set`, regular containers first, then
/// init containers (upstream `FindContainerByPodSetName`). nullptr when not found.
[[nodiscard]] Container* find_container_by_pod_set_name(Info& info, std::string_view pod_set,
                                                        std::string_view container);
[[nodiscard]] const Container* find_container_by_pod_set_name(const Info& info,
                                                              std::string_view pod_set,
                                                              std::string_view container);

// ---- List upserts (upstream pkg/apply) ----------------------------------------------------
// An item that matches an existing one replaces the first match in place; otherwise it is
// appended. Lists are Kubernetes JSON arrays (`Container::env`, `ports`, `volume_mounts`,
// `PodSet::volumes`); entries that are not objects never match. Each upsert copies the items
// from a const argument and moves them from an rvalue one (a list built for the call, or one
// the caller gives up), with the same result.

/// Env vars match by `name`.
void upsert_env(boost::json::array& env, const boost::json::object& var);
void upsert_env(boost::json::array& env, boost::json::object&& var);
/// Each object of `vars` in order, as the single-var overload.
void upsert_env(boost::json::array& env, const boost::json::array& vars);
void upsert_env(boost::json::array& env, boost::json::array&& vars);
/// Container ports match by the same `containerPort` or the same `name`; an absent name equals
/// an absent name (upstream compares the two pointers' targets, nil == nil).
void upsert_port(boost::json::array& ports, const boost::json::object& port);
void upsert_port(boost::json::array& ports, boost::json::object&& port);
/// Volumes match by `name`.
void upsert_volume(boost::json::array& volumes, const boost::json::object& volume);
void upsert_volume(boost::json::array& volumes, boost::json::object&& volume);
/// Volume mounts match by `mountPath` (not by name).
void upsert_volume_mount(boost::json::array& mounts, const boost::json::object& mount);
void upsert_volume_mount(boost::json::array& mounts, boost::json::object&& mount);

/// `{"name": name, "value": value}`.
[[nodiscard]] boost::json::object env_value(std::string_view name, std::string_view value);
/// `{"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}`.
[[nodiscard]] boost::json::object env_field_ref(std::string_view name, std::string_view path);
/// An EnvVar as upstream's apply configuration carries it: `name`, `value` (kept even when
/// empty), `valueFrom` with `fieldRef.fieldPath` (apiVersion dropped), `resourceFieldRef`
/// (containerName, resource, divisor), `configMapKeyRef`/`secretKeyRef` (name, key, optional).
/// Other sources are dropped, as upstream's conversion drops them.
[[nodiscard]] boost::json::object env_to_apply_form(const boost::json::object& var);

// ---- Resources ----------------------------------------------------------------------------

/// Kubernetes `PodRequests` (k8s.io/component-helpers resource, default options) over a pod spec
/// in JSON form: max(sum of regular containers and restartable init containers, each init
/// container plus the sidecars started before it), pod-level requests for cpu/memory/hugepages
/// when set, plus `overhead`. Requests only. Errors: a quantity that does not parse (kParse,
/// naming the resource).
[[nodiscard]] Result<std::map<std::string, Quantity>> pod_requests(
    const boost::json::object& pod_spec);

/// Upstream `MergeResourceRequirements`: `limits` and `requests` merge per resource name (the
/// override wins), `claims` merge by `name`.
[[nodiscard]] boost::json::object merge_resource_requirements(const boost::json::object& base,
                                                              const boost::json::object& override_);

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
/// lexicographically first name. Errors: a quantity that does not parse.
[[nodiscard]] Result<std::int64_t> gpu_count_per_node(const boost::json::object& resources);

/// CPUs per node (upstream torch `getNumCPUPerNode`): `requests.cpu` rounded up, or when that is
/// absent or zero `limits.cpu` rounded up, else 0 (2.5 -> 3, 2500m -> 3, 0.7 -> 1). Errors: a
/// quantity that does not parse.
[[nodiscard]] Result<std::int64_t> cpu_count_per_node(const boost::json::object& resources);

}  // namespace trainer
