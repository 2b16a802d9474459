// SPDX-License-Identifier: Apache-2.0
//
// Typed model of Kubeflow Trainer's API group `trainer.kubeflow.org/v1alpha1`: TrainJob,
// TrainingRuntime and ClusterTrainingRuntime, field for field as upstream's Go types.
//
// Mapping rules: a Go pointer is `std::optional`, a slice is `std::vector`, a map is `std::map`
// (ordered, so output is deterministic). Go slices are `omitempty`, so an empty vector and an
// absent list mean the same thing, except where upstream distinguishes nil from empty
// (`Trainer.command`/`args`), which are `std::optional<std::vector<...>>`.
// Kubernetes structures that Trainer only carries (env vars, resources, volumes, the JobSet
// spec, ...) are `boost::json` values so that fields unknown to us survive a round trip.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

inline constexpr const char* kGroup = "trainer.kubeflow.org";
inline constexpr const char* kVersion = "v1alpha1";
inline constexpr const char* kApiVersion = "trainer.kubeflow.org/v1alpha1";
inline constexpr const char* kTrainJobKind = "TrainJob";
inline constexpr const char* kTrainingRuntimeKind = "TrainingRuntime";
inline constexpr const char* kClusterTrainingRuntimeKind = "ClusterTrainingRuntime";
inline constexpr const char* kOptimizationJobKind = "OptimizationJob";
inline constexpr const char* kManagedByTrainer = "trainer.kubeflow.org/trainjob-controller";
inline constexpr const char* kManagedByMultiKueue = "kueue.x-k8s.io/multikueue";

using StringMap = std::map<std::string, std::string>;

/// `metav1.ObjectMeta`: the fields Trainer reads are typed; the server-managed lists that it only
/// carries (`ownerReferences`, `managedFields`) stay JSON.
struct ObjectMeta {
  std::optional<std::string> name;
  std::optional<std::string> generate_name;
  std::optional<std::string> namespace_;
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
  std::optional<std::int64_t> generation;
  std::optional<std::string> creation_timestamp;  ///< RFC 3339, as on the wire
  std::optional<std::string> deletion_timestamp;
  std::optional<std::int64_t> deletion_grace_period_seconds;
  StringMap labels;
  StringMap annotations;
  std::vector<std::string> finalizers;
  boost::json::array owner_references;  ///< `[]metav1.OwnerReference`
  boost::json::array managed_fields;    ///< `[]metav1.ManagedFieldsEntry`
};

// ---------------------------------------------------------------------------------------------
// TrainJob

/// Which (Cluster)TrainingRuntime a TrainJob instantiates.
struct RuntimeRef {
  std::string name;
  std::optional<std::string> api_group;  ///< defaults to `trainer.kubeflow.org`
  std::optional<std::string> kind;       ///< defaults to `ClusterTrainingRuntime`
};

/// `corev1.LocalObjectReference`.
struct LocalObjectReference {
  std::optional<std::string> name;  ///< defaults to "" (Kubernetes)
};

/// `DatasetInitializer` and `ModelInitializer` have the same shape upstream.
struct StorageInitializer {
  std::optional<std::string> storage_uri;
  std::vector<boost::json::object> env;  ///< `[]corev1.EnvVar`
  std::optional<LocalObjectReference> secret_ref;
};
using DatasetInitializer = StorageInitializer;
using ModelInitializer = StorageInitializer;

struct Initializer {
  std::optional<DatasetInitializer> dataset;
  std::optional<ModelInitializer> model;
};

/// Overrides of the trainer job (`spec.trainer`).
struct Trainer {
  std::optional<std::string> image;
  std::optional<std::vector<std::string>> command;
  std::optional<std::vector<std::string>> args;
  std::vector<boost::json::object> env;  ///< `[]corev1.EnvVar`
  std::optional<std::int32_t> num_nodes;
  std::optional<boost::json::object> resources_per_node;  ///< `corev1.ResourceRequirements`
  std::optional<std::int32_t> num_proc_per_node;
};

/// `ContainerPatch`: the container fields a runtime patch may set.
struct ContainerPatch {
  std::string name;
  std::vector<boost::json::object> env;            ///< `[]corev1.EnvVar`
  std::vector<boost::json::object> volume_mounts;  ///< `[]corev1.VolumeMount`
  std::optional<boost::json::object> security_context;
};

/// `PodSpecPatch`: the pod fields a runtime patch may set.
struct PodSpecPatch {
  std::optional<std::string> service_account_name;
  std::vector<boost::json::object> volumes;  ///< `[]corev1.Volume`
  std::vector<ContainerPatch> init_containers;
  std::vector<ContainerPatch> containers;
  std::vector<LocalObjectReference> image_pull_secrets;
  std::optional<boost::json::object> security_context;  ///< `corev1.PodSecurityContext`
  StringMap node_selector;
  std::optional<boost::json::object> affinity;        ///< `corev1.Affinity`
  std::vector<boost::json::object> tolerations;       ///< `[]corev1.Toleration`
  std::vector<boost::json::object> scheduling_gates;  ///< `[]corev1.PodSchedulingGate`
  std::optional<std::int64_t> termination_grace_period_seconds;
};

struct PodTemplatePatch {
  std::optional<ObjectMeta> metadata;
  std::optional<PodSpecPatch> spec;
};

struct JobSpecPatch {
  std::optional<PodTemplatePatch> template_;
};

struct JobTemplatePatch {
  std::optional<ObjectMeta> metadata;
  std::optional<JobSpecPatch> spec;
};

struct ReplicatedJobPatch {
  std::string name;
  std::optional<JobTemplatePatch> template_;
};

struct JobSetSpecPatch {
  std::vector<ReplicatedJobPatch> replicated_jobs;
};

struct JobSetTemplatePatch {
  std::optional<ObjectMeta> metadata;
  std::optional<JobSetSpecPatch> spec;
};

struct TrainingRuntimeSpecPatch {
  std::optional<JobSetTemplatePatch> template_;
};

/// One owner's patch of the runtime template (`spec.runtimePatches[]`, keyed by `manager`).
struct RuntimePatch {
  std::string manager;
  std::optional<std::string> time;  ///< `metav1.Time`, RFC 3339; stamped by the defaulter
  std::optional<TrainingRuntimeSpecPatch> training_runtime_spec;
};

struct TrainJobSpec {
  RuntimeRef runtime_ref;
  std::optional<Initializer> initializer;
  std::optional<Trainer> trainer;
  std::vector<RuntimePatch> runtime_patches;
  std::optional<bool> suspend;  ///< defaults to false
  /// Go `int64` with `omitempty`: absent and 0 both mean "no deadline"; kept optional so that an
  /// explicit 0 can be reported by validation (`minimum=1`).
  std::optional<std::int64_t> active_deadline_seconds;
  std::optional<std::string>
      managed_by;  ///< defaults to `trainer.kubeflow.org/trainjob-controller`
};

/// `metav1.Condition`.
struct Condition {
  std::string type;
  std::string status;  ///< "True", "False" or "Unknown"
  std::optional<std::int64_t> observed_generation;
  std::string last_transition_time;  ///< RFC 3339
  std::string reason;
  std::string message;
};

/// Per replicated-job counters copied from the JobSet status (`status.jobsStatus[]`).
struct JobStatus {
  std::string name;
  std::optional<std::int32_t> ready;
  std::optional<std::int32_t> succeeded;
  std::optional<std::int32_t> failed;
  std::optional<std::int32_t> active;
  std::optional<std::int32_t> suspended;
};

struct Metric {
  std::string name;
  std::string value;
};

/// Progress reported by the training code through the status server.
struct TrainerStatus {
  std::optional<std::int32_t> progress_percentage;
  std::optional<std::int32_t> estimated_remaining_seconds;
  std::vector<Metric> metrics;
  std::optional<std::string> last_updated_time;  ///< required when trainerStatus is present
};

struct TrainJobStatus {
  std::vector<Condition> conditions;
  std::vector<JobStatus> jobs_status;
  std::optional<TrainerStatus> trainer_status;
};

/// The condition that ends a TrainJob (`Complete` or `Failed`, status `True`) among `conditions`,
/// or null while it runs: the one test of "finished" that the controller, the renderer and the
/// local executor share. Any list of conditions with `type` and `status` strings.
template <class Conditions>
[[nodiscard]] auto finishing_condition(const Conditions& conditions)
    -> decltype(&*std::begin(conditions)) {
  for (const auto& c : conditions) {
    if ((c.type == "Complete" || c.type == "Failed") && c.status == "True") return &c;
  }
  return nullptr;
}

struct TrainJob {
  std::string api_version = kApiVersion;
  std::string kind = kTrainJobKind;
  ObjectMeta metadata;
  TrainJobSpec spec;
  std::optional<TrainJobStatus> status;
};

// ---------------------------------------------------------------------------------------------
// TrainingRuntime / ClusterTrainingRuntime

struct EnvInjectionTarget {
  std::string job_name;
  std::vector<std::string> container_names;
};

struct EnvInjection {
  std::vector<EnvInjectionTarget> targets;
};

struct TorchMLPolicySource {
  std::optional<EnvInjection> env_injection;
};

struct MPIMLPolicySource {
  std::optional<std::int32_t> num_proc_per_node;   ///< defaults to 1
  std::optional<std::string> mpi_implementation;   ///< defaults to `OpenMPI`
  std::optional<std::string> ssh_auth_mount_path;  ///< defaults to `/root/.ssh`
  std::optional<bool> run_launcher_as_node;        ///< defaults to false
};

struct FluxMLPolicySource {
  std::optional<std::int32_t> num_proc_per_node;  ///< defaults to 1
};

struct JAXMLPolicySource {};
struct XGBoostMLPolicySource {};

struct MLPolicy {
  std::optional<std::int32_t> num_nodes;  ///< nil means 1
  std::optional<TorchMLPolicySource> torch;
  std::optional<MPIMLPolicySource> mpi;
  std::optional<FluxMLPolicySource> flux;
  std::optional<JAXMLPolicySource> jax;
  std::optional<XGBoostMLPolicySource> xgboost;
};

struct CoschedulingPodGroupPolicySource {
  std::optional<std::int32_t> schedule_timeout_seconds;  ///< defaults to 60
};

struct VolcanoPodGroupPolicySource {
  /// Volcano's `NetworkTopologySpec` (`mode` defaults to `hard`, `highestTierAllowed` to 1).
  std::optional<boost::json::object> network_topology;
};

struct PodGroupPolicy {
  std::optional<CoschedulingPodGroupPolicySource> coscheduling;
  std::optional<VolcanoPodGroupPolicySource> volcano;
};

/// The JobSet template of a runtime: labels/annotations for the JobSet plus the
/// `jobset.x-k8s.io/v1alpha2` `JobSetSpec`, carried verbatim.
struct JobSetTemplateSpec {
  ObjectMeta metadata;
  boost::json::object spec;
};

struct TrainingRuntimeSpec {
  std::optional<MLPolicy> ml_policy;
  std::optional<PodGroupPolicy> pod_group_policy;
  JobSetTemplateSpec template_;
};

/// Namespaced runtime; `kind` is `TrainingRuntime`.
struct TrainingRuntime {
  std::string api_version = kApiVersion;
  std::string kind = kTrainingRuntimeKind;
  ObjectMeta metadata;
  TrainingRuntimeSpec spec;
};

/// Cluster-scoped runtime; same shape as `TrainingRuntime`, `kind` is `ClusterTrainingRuntime`.
struct ClusterTrainingRuntime {
  std::string api_version = kApiVersion;
  std::string kind = kClusterTrainingRuntimeKind;
  ObjectMeta metadata;
  TrainingRuntimeSpec spec;
};

// ---------------------------------------------------------------------------------------------
// OptimizationJob (hyperparameter tuning; reference 1.15, training-operator-v1-and-tuning 5.1)

enum class ObjectiveDirection { kMinimize, kMaximize };

struct Objective {
  std::string metric;                           ///< 1..64 characters
  std::optional<ObjectiveDirection> direction;  ///< CRD default `Minimize`
};

struct RandomSearch {
  std::optional<std::int64_t> seed;
};
struct GridSearch {};

/// Exactly one member is set (CRD default `{random: {}}`).
struct SearchAlgorithm {
  std::optional<RandomSearch> random;
  std::optional<GridSearch> grid;
};

enum class ParameterType { kFloat, kInt };

/// `uniform` / `logUniform`: bounds as the decimal strings the API carries.
struct RangeSearchSpace {
  std::string min;
  std::string max;
  std::optional<ParameterType> type;  ///< CRD default `Float`
};

struct CategoricalSearchSpace {
  std::vector<std::string> choices;  ///< 1..100, each at most 64 characters
};

/// Exactly one member is set.
struct SearchSpace {
  std::optional<RangeSearchSpace> uniform;
  std::optional<RangeSearchSpace> log_uniform;
  std::optional<CategoricalSearchSpace> categorical;
};

struct OptimizationParameter {
  std::string name;  ///< 1..64 characters, unique (list-map key)
  SearchSpace search_space;
};

/// The TrainJob every trial is made from; `metadata` may not set name or namespace.
struct TrainJobTemplate {
  ObjectMeta metadata;
  TrainJobSpec spec;
};

struct OptimizationJobSpec {
  std::vector<Objective> objectives;  ///< exactly one
  std::optional<SearchAlgorithm> search_algorithm;
  std::vector<OptimizationParameter> parameters;  ///< 1..100
  std::optional<std::int32_t> num_trials;         ///< 1..100, CRD default 1
  std::optional<std::int32_t> parallel_trials;    ///< 1..100, CRD default 1, <= numTrials
  TrainJobTemplate train_job_template;
};

struct ParameterAssignment {
  std::string name;
  std::string value;
};

/// An objective's value, as text (`0.25`).
struct ObjectiveMetricValue {
  std::string metric;
  std::string value;
};

/// The best trial.
struct OptimizationResult {
  std::string train_job_name;
  /// The best trial's objective value. Not in upstream's API at the pinned commit: it is the
  /// shape of upstream's proposal for a result's metrics (kubeflow/trainer#3799, `metrics` of an
  /// optimal trial) and Katib's `currentOptimalTrial.observation`; a cluster whose CRD lacks
  /// the field is not sent it (docs/upstream-differences.md).
  std::vector<ObjectiveMetricValue> metrics;
  std::vector<ParameterAssignment> parameters;
};

struct OptimizationJobStatus {
  std::vector<Condition> conditions;
  std::optional<OptimizationResult> result;
};

struct OptimizationJob {
  std::string api_version = kApiVersion;
  std::string kind = kOptimizationJobKind;
  ObjectMeta metadata;
  OptimizationJobSpec spec;
  std::optional<OptimizationJobStatus> status;
};

}  // namespace trainer
