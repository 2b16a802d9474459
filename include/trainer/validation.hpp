// SPDX-License-Identifier: Apache-2.0
//
// Admission rules of Kubeflow Trainer that do not depend on a plugin: the CRD schema and CEL
// rules (reference 1.2-1.11) and the runtime webhooks (2.4). Every rule runs and every violation
// is collected, with upstream's field paths and messages. Inputs are expected to be defaulted
// (`apply_defaults`), as the API server validates defaulted objects.
//
// Errors come in the objects' field order (a field's own rules before its children's). CEL rules
// declared on a schema root are reported at the path `<nil>`, as the API server prints them. The
// table of every rule, path and message is docs/validation.md.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <string>
#include <vector>

namespace trainer {

/// The most pods one TrainJob may ask for, summed over every replicated job (initializers,
/// launcher and trainer nodes). The API server accepts any int32 `numNodes`; rendering, running
/// and reconciling a job beyond this size would only exhaust memory, so admission refuses it with
/// a field error. Upstream's largest real jobs are tens of thousands of nodes. docs/yaml.md lists
/// it with the other limits.
inline constexpr long long kMaxPodsPerTrainJob = 100000;

/// Warnings (admission warnings, kubectl prints them as `Warning: ...`) and field errors.
struct ValidationResult {
  std::vector<std::string> warnings;
  std::vector<FieldError> errors;

  [[nodiscard]] bool ok() const noexcept { return errors.empty(); }
  /// `kInvalid` error with all field errors; only meaningful when `!ok()`.
  [[nodiscard]] Error to_error() const { return Error::invalid(errors); }
  void merge(ValidationResult other);
};

/// Schema + CEL rules of a TrainJob on create (name format, managedBy, numProcPerNode, storage
/// URIs, lengths and list sizes, `status` rules when a status is present, ...).
[[nodiscard]] ValidationResult validate_train_job(const TrainJob& job);
/// The same rules on update plus the `self == oldSelf` immutability rules (which, like CEL
/// transition rules, only apply to fields present in both objects).
[[nodiscard]] ValidationResult validate_train_job_update(const TrainJob& old_job,
                                                         const TrainJob& new_job);

/// Schema + CEL rules of an OptimizationJob (reference 1.15): exactly one objective, 1..100
/// uniquely named parameters with exactly one search space each, decimal `min`/`max` with
/// `min < max` (and `min > 0` for `logUniform`), trial counts 1..100 with `parallelTrials <=
/// numTrials`, grid search over categorical parameters only, a template without name/namespace
/// whose spec passes the TrainJob spec rules (reported under `spec.trainJobTemplate.spec`).
[[nodiscard]] ValidationResult validate_optimization_job(const OptimizationJob& job);
/// The same on update, plus `OptimizationJobSpec is immutable and cannot be updated after
/// creation` when the spec changed.
[[nodiscard]] ValidationResult validate_optimization_job_update(const OptimizationJob& old_job,
                                                                const OptimizationJob& new_job);

/// Schema + CEL rules of a runtime (mlPolicy one-of, policy minimums, envInjection, embedded
/// JobSet rules) and the runtime webhook rule on the ancestor-labelled replicated jobs.
/// `ClusterTrainingRuntime` create adds the deprecation warning for
/// `trainer.kubeflow.org/support: deprecated`. Runtimes labelled
/// `trainer.kubeflow.org/webhook-validation: disabled` skip the webhook rules, as upstream.
[[nodiscard]] ValidationResult validate_training_runtime(const TrainingRuntime& runtime);
[[nodiscard]] ValidationResult validate_cluster_training_runtime(
    const ClusterTrainingRuntime& runtime);
/// Update: TrainingRuntime updates skip the webhook (upstream returns nil); ClusterTrainingRuntime
/// updates run it without the warning. Both check the embedded JobSet `Value is immutable` rules.
[[nodiscard]] ValidationResult validate_training_runtime_update(const TrainingRuntime& old_rt,
                                                                const TrainingRuntime& new_rt);
[[nodiscard]] ValidationResult validate_cluster_training_runtime_update(
    const ClusterTrainingRuntime& old_rt, const ClusterTrainingRuntime& new_rt);

/// The runtime a TrainJob references, as the TrainJob webhook sees it: at most one is set.
struct RuntimeLookup {
  const TrainingRuntime* training_runtime = nullptr;
  const ClusterTrainingRuntime* cluster_training_runtime = nullptr;
};

/// The TrainJob webhook's own checks (reference 2.3 steps 1-2, without plugin rules): the
/// runtimeRef group/kind must be a registered runtime (`unsupported runtime: <Kind>.<group>` as
/// a plain `kInvalid` error message with no field errors), the referenced runtime must exist
/// (`spec.runtimeRef` / `spec.RuntimeRef` messages as upstream) and a deprecated
/// ClusterTrainingRuntime adds the deprecation warning.
[[nodiscard]] Result<ValidationResult> validate_train_job_runtime(const TrainJob& job,
                                                                  const RuntimeLookup& runtime);

}  // namespace trainer
