// SPDX-License-Identifier: Apache-2.0
//
// The JSON shape of the model (include/trainer/model.hpp), described once for the decoder and
// the encoder of struct_codec.hpp, with the rules where a type departs from the codec's
// defaults (codec_rules.hpp). Each description lists its members in upstream's Go struct order,
// which is the order the encoder writes them; the JSON name of a member comes from its C++ name
// (json_name.hpp). A field added to the model is one more member here.
//
// Kept out of the public header so that its users do not see Boost.Describe.
#pragma once

#include "api/codec_rules.hpp"
#include "trainer/model.hpp"

#include <boost/describe/class.hpp>

#include <array>
#include <string_view>

// Boost.Describe's macros hand an empty `__VA_ARGS__` on for the protected and private members
// a struct does not have; GCC's expansion uses `__VA_OPT__`, clang's is a GNU extension that
// -Wpedantic refuses in C++17.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-zero-variadic-macro-arguments"
#endif

namespace trainer {

// `ownerReferences` comes before `finalizers` in Go's ObjectMeta.
BOOST_DESCRIBE_STRUCT(ObjectMeta, (),
                      (name, generate_name, namespace_, uid, resource_version, generation,
                       creation_timestamp, deletion_timestamp, deletion_grace_period_seconds,
                       labels, annotations, owner_references, finalizers, managed_fields))

// ---- TrainJob --------------------------------------------------------------------------------

BOOST_DESCRIBE_STRUCT(RuntimeRef, (), (name, api_group, kind))
BOOST_DESCRIBE_STRUCT(LocalObjectReference, (), (name))
BOOST_DESCRIBE_STRUCT(StorageInitializer, (), (storage_uri, env, secret_ref))
BOOST_DESCRIBE_STRUCT(Initializer, (), (dataset, model))
BOOST_DESCRIBE_STRUCT(Trainer, (),
                      (image, command, args, env, num_nodes, resources_per_node, num_proc_per_node))
BOOST_DESCRIBE_STRUCT(ContainerPatch, (), (name, env, volume_mounts, security_context))
BOOST_DESCRIBE_STRUCT(PodSpecPatch, (),
                      (service_account_name, volumes, init_containers, containers,
                       image_pull_secrets, security_context, node_selector, affinity, tolerations,
                       scheduling_gates, termination_grace_period_seconds))
BOOST_DESCRIBE_STRUCT(PodTemplatePatch, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(JobSpecPatch, (), (template_))
BOOST_DESCRIBE_STRUCT(JobTemplatePatch, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(ReplicatedJobPatch, (), (name, template_))
BOOST_DESCRIBE_STRUCT(JobSetSpecPatch, (), (replicated_jobs))
BOOST_DESCRIBE_STRUCT(JobSetTemplatePatch, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(TrainingRuntimeSpecPatch, (), (template_))
BOOST_DESCRIBE_STRUCT(RuntimePatch, (), (manager, time, training_runtime_spec))
BOOST_DESCRIBE_STRUCT(TrainJobSpec, (),
                      (runtime_ref, initializer, trainer, runtime_patches, suspend,
                       active_deadline_seconds, managed_by))
BOOST_DESCRIBE_STRUCT(Condition, (),
                      (type, status, observed_generation, last_transition_time, reason, message))
BOOST_DESCRIBE_STRUCT(JobStatus, (), (name, ready, succeeded, failed, active, suspended))
BOOST_DESCRIBE_STRUCT(Metric, (), (name, value))
BOOST_DESCRIBE_STRUCT(TrainerStatus, (),
                      (progress_percentage, estimated_remaining_seconds, metrics,
                       last_updated_time))
BOOST_DESCRIBE_STRUCT(TrainJobStatus, (), (conditions, jobs_status, trainer_status))
BOOST_DESCRIBE_STRUCT(TrainJob, (), (api_version, kind, metadata, spec, status))

// ---- TrainingRuntime / ClusterTrainingRuntime ------------------------------------------------

BOOST_DESCRIBE_STRUCT(EnvInjectionTarget, (), (job_name, container_names))
BOOST_DESCRIBE_STRUCT(EnvInjection, (), (targets))
BOOST_DESCRIBE_STRUCT(TorchMLPolicySource, (), (env_injection))
BOOST_DESCRIBE_STRUCT(MPIMLPolicySource, (),
                      (num_proc_per_node, mpi_implementation, ssh_auth_mount_path,
                       run_launcher_as_node))
BOOST_DESCRIBE_STRUCT(FluxMLPolicySource, (), (num_proc_per_node))
BOOST_DESCRIBE_STRUCT(JAXMLPolicySource, (), ())
BOOST_DESCRIBE_STRUCT(XGBoostMLPolicySource, (), ())
BOOST_DESCRIBE_STRUCT(MLPolicy, (), (num_nodes, torch, mpi, flux, jax, xgboost))
BOOST_DESCRIBE_STRUCT(CoschedulingPodGroupPolicySource, (), (schedule_timeout_seconds))
BOOST_DESCRIBE_STRUCT(VolcanoPodGroupPolicySource, (), (network_topology))
BOOST_DESCRIBE_STRUCT(PodGroupPolicy, (), (coscheduling, volcano))
BOOST_DESCRIBE_STRUCT(JobSetTemplateSpec, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(TrainingRuntimeSpec, (), (ml_policy, pod_group_policy, template_))
BOOST_DESCRIBE_STRUCT(TrainingRuntime, (), (api_version, kind, metadata, spec))
BOOST_DESCRIBE_STRUCT(ClusterTrainingRuntime, (), (api_version, kind, metadata, spec))

// ---- OptimizationJob -------------------------------------------------------------------------

BOOST_DESCRIBE_STRUCT(Objective, (), (metric, direction))
BOOST_DESCRIBE_STRUCT(RandomSearch, (), (seed))
BOOST_DESCRIBE_STRUCT(GridSearch, (), ())
BOOST_DESCRIBE_STRUCT(SearchAlgorithm, (), (random, grid))
BOOST_DESCRIBE_STRUCT(RangeSearchSpace, (), (min, max, type))
BOOST_DESCRIBE_STRUCT(CategoricalSearchSpace, (), (choices))
BOOST_DESCRIBE_STRUCT(SearchSpace, (), (uniform, log_uniform, categorical))
BOOST_DESCRIBE_STRUCT(OptimizationParameter, (), (name, search_space))
BOOST_DESCRIBE_STRUCT(TrainJobTemplate, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(OptimizationJobSpec, (),
                      (objectives, search_algorithm, parameters, num_trials, parallel_trials,
                       train_job_template))
BOOST_DESCRIBE_STRUCT(ParameterAssignment, (), (name, value))
BOOST_DESCRIBE_STRUCT(ObjectiveMetricValue, (), (metric, value))
BOOST_DESCRIBE_STRUCT(OptimizationResult, (), (train_job_name, metrics, parameters))
BOOST_DESCRIBE_STRUCT(OptimizationJobStatus, (), (conditions, result))
BOOST_DESCRIBE_STRUCT(OptimizationJob, (), (api_version, kind, metadata, spec, status))

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

namespace detail {

/// The top-level kinds: kubectl and the API server expect `apiVersion`, `kind`, `metadata` and
/// `spec` on every object. `metav1.Condition`: its fields have no `omitempty`.
template <>
inline constexpr bool kWritesEmptyFields<Condition> = true;
template <>
inline constexpr bool kWritesEmptyFields<TrainJob> = true;
template <>
inline constexpr bool kWritesEmptyFields<TrainingRuntime> = true;
template <>
inline constexpr bool kWritesEmptyFields<ClusterTrainingRuntime> = true;
template <>
inline constexpr bool kWritesEmptyFields<OptimizationJob> = true;

/// A Go struct field without `omitzero`.
template <>
inline constexpr bool kWrittenWhenEmpty<&OptimizationParameter::search_space> = true;

/// Deprecated and always empty since Kubernetes 1.20.
template <>
inline constexpr std::array<std::string_view, 1> kDroppedFields<ObjectMeta>{"selfLink"};

}  // namespace detail
}  // namespace trainer
