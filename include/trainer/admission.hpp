// SPDX-License-Identifier: Apache-2.0
//
// The one admission path of libtrainer. Every face admits through it: `trainerctl validate` and
// `render`, the C ABI (`trainer_document_validate`, `trainer_render`), `trainer.hpp`, the Go and
// Rust bindings (both wrap the C ABI), the local executor (through `render_documents`), the
// controller's reconciler and its admission webhooks (`admit_object`, `admit_update`).
//
//   admit(documents)        decode each document, apply the CRD defaults, then admit each
//     -> admit_object(...)    object in input order: a runtime by its CRD schema/CEL rules and
//                             its webhook; a TrainJob by its CRD schema/CEL rules, then the
//                             TrainJob webhook (runtime resolution) and every plugin's
//                             validation on the runtime info (reference 2.3, 2.3.1).
//
// The plugin step needs the framework (plugins, `new_runtime_info`), so this layer sits above
// `lib/framework/` and below the render pipeline (see docs/architecture.md).
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"
#include "trainer/validation.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

class Framework;  // include/trainer/render.hpp

/// The objects of one admission call, defaulted, in input order.
struct ObjectSet {
  std::vector<TrainJob> train_jobs;
  std::vector<TrainingRuntime> training_runtimes;
  std::vector<ClusterTrainingRuntime> cluster_training_runtimes;
  std::vector<OptimizationJob> optimization_jobs;
  /// Objects of other kinds (PriorityClass, Secret, ...): what already exists in the cluster.
  std::vector<boost::json::value> other_objects;
};

/// What admission found: warnings (kubectl prints them as `Warning: <text>`) and, when the
/// objects are rejected, every field error of every object.
struct Admission {
  ObjectSet objects;
  std::vector<std::string> warnings;
  std::vector<FieldError> errors;

  [[nodiscard]] bool ok() const noexcept { return errors.empty(); }
};

/// What admission does with a TrainJob whose referenced runtime is not among the inputs.
enum class MissingRuntime {
  /// The inputs are not the whole cluster (`trainerctl validate`, `trainer_document_validate`):
  /// the TrainJob is admitted by its own rules and a warning names the runtime it was not
  /// checked against. Where the inputs are a source of runtimes of the kind referenced (the
  /// built-in ones with `builtin_runtimes` for a ClusterTrainingRuntime, or any runtime of that
  /// kind among the inputs, unless `runtimes_from_cluster`), a runtime missing from them is
  /// taken as misspelt: the TrainJob is rejected with the webhook's not-found error and the
  /// warning names the closest runtime (`did you mean "torch-distributed"?`). So is a
  /// TrainingRuntime of that name that is among the inputs but in another namespace: the
  /// warning says where that runtime is.
  kWarn,
  /// The runtime is needed (render): the call fails with `kNotFound`, its message saying what
  /// was looked for and where a TrainingRuntime of that name is, `Error::fields` holding the
  /// webhook's not-found error. Reported only when the objects are otherwise admitted.
  kFail,
};

/// Options of `admit` (and of `render_documents`, which uses the same type).
struct AdmissionOptions {
  /// Namespace given to namespaced inputs (TrainJob, TrainingRuntime) that have none, as
  /// `kubectl --namespace` does; an input with another explicit namespace is refused. Empty:
  /// inputs without a namespace are in `default`.
  std::string namespace_;
  /// Called with every admission warning, also when the call then fails.
  std::function<void(std::string_view)> on_warning;
  /// Plugins, with their feature gates and operator configuration; `default_framework({})` when
  /// null.
  const Framework* framework = nullptr;
  /// When true, a TrainJob whose `runtimeRef` names a ClusterTrainingRuntime that is not among
  /// the inputs uses the built-in runtime of that name (include/trainer/runtimes.hpp), as if it
  /// had been given. A runtime among the inputs always takes precedence.
  bool builtin_runtimes = false;
  /// A TrainJob whose runtime is not among the inputs. `render_documents` ignores this field:
  /// it always uses `MissingRuntime::kFail`.
  MissingRuntime missing_runtime = MissingRuntime::kWarn;
  /// The inputs were completed with the runtimes of a cluster (`cluster::apply`): a missing
  /// runtime is then said to be neither among the inputs nor in the cluster, and a built-in one
  /// is to be installed there rather than enabled with `builtin_runtimes`.
  bool runtimes_from_cluster = false;
  /// Unknown fields are errors, as the API server's strict field validation makes them
  /// (`fieldValidation=Strict`, `kubectl --validate=strict`): the first Trainer object with any
  /// fails the call with `kParse` and the server's text, `TrainJob in version "v1alpha1" cannot
  /// be handled as a TrainJob: strict decoding error: unknown field "spec.trainer.numNode"`
  /// (every unknown field of that object, comma-separated). Otherwise each is a warning,
  /// `unknown field "<path>"`, as with `fieldValidation=Warn`.
  bool strict_fields = false;
};

/// The runtimes and existing objects one TrainJob is admitted against, borrowed: every pointer
/// must stay valid while the scope is used.
struct AdmissionScope {
  std::vector<const TrainingRuntime*> training_runtimes;
  std::vector<const ClusterTrainingRuntime*> cluster_training_runtimes;
  /// Objects that exist in the cluster, consulted by plugins (before `ctx.lookup`).
  std::vector<const boost::json::value*> existing_objects;
  /// The namespace of an existing namespaced object that has none.
  std::string default_namespace = "default";
  /// See `AdmissionOptions::runtimes_from_cluster`.
  bool runtimes_from_cluster = false;
  /// The built-in ClusterTrainingRuntimes count as given (`AdmissionOptions::builtin_runtimes`):
  /// a ClusterTrainingRuntime that is neither among them nor in the scope does not exist.
  bool builtin_runtimes = false;

  /// A scope over every object of `objects`.
  [[nodiscard]] static AdmissionScope of(const ObjectSet& objects,
                                         std::string default_namespace = "default");
};

/// Admits decoded documents (see `parse_documents`): decodes and defaults every document, then
/// admits each object in input order with `admit_object`, against the runtimes and existing
/// objects among `documents`. Objects of other kinds than the Trainer kinds are objects
/// that exist in the cluster (consulted by plugins together with `ctx.lookup`). `ctx` gives the
/// plugins' context (feature gates, operator configuration, lookup); validation builds no
/// object, so it needs no UID, clock or keys.
/// Fails with `kParse` when a Trainer document has the wrong shape (field path in the error),
/// with `kInvalid` and no field errors for a TrainJob whose runtimeRef names an unregistered
/// kind (`unsupported runtime: <Kind>.<group>`), with `kInvalid` for documents without
/// `apiVersion`/`kind`, with a kind of the trainer.kubeflow.org group that libtrainer does not
/// know, or in another namespace than `options.namespace_`, and with `kNotFound` as
/// `MissingRuntime::kFail` says. Rule violations are not failures: they are reported in
/// `Admission::errors`, all of them.
/// A `v1` `List` document is admitted item by item (kubectl does the same).
[[nodiscard]] Result<Admission> admit(const std::vector<boost::json::value>& documents,
                                      const RenderContext& ctx = {},
                                      const AdmissionOptions& options = {});
/// The same, taking the documents over instead of copying them.
[[nodiscard]] Result<Admission> admit(std::vector<boost::json::value>&& documents,
                                      const RenderContext& ctx = {},
                                      const AdmissionOptions& options = {});

/// Admission of one defaulted TrainJob, as the API server admits it on create: its CRD
/// schema/CEL rules; when they pass, the TrainJob webhook: the runtimeRef must name a
/// registered runtime kind (else the call fails with `kInvalid`, `unsupported runtime: ...`),
/// the runtime is looked up in `scope` (a TrainingRuntime of that name in the TrainJob's
/// namespace, "default" when unset, or a ClusterTrainingRuntime of that name) and checked
/// (`validate_train_job_runtime`); when that passes, `new_runtime_info` and every plugin's
/// validation (`Framework::run_custom_validation`; `framework` null: `default_framework({})`).
/// A runtime that `scope` lacks is handled as `missing` says.
[[nodiscard]] Result<ValidationResult> admit_object(const TrainJob& job,
                                                    const AdmissionScope& scope,
                                                    const RenderContext& ctx = {},
                                                    const Framework* framework = nullptr,
                                                    MissingRuntime missing = MissingRuntime::kWarn);
/// Admission of one defaulted OptimizationJob: its CRD schema/CEL rules (reference 1.15); when
/// they pass, its `trainJobTemplate` is admitted like a TrainJob in the OptimizationJob's
/// namespace (runtime resolution, the runtime webhook checks and every plugin's validation, as
/// `admit_object(TrainJob)` says), its errors reported under `spec.trainJobTemplate`.
[[nodiscard]] Result<ValidationResult> admit_object(const OptimizationJob& job,
                                                    const AdmissionScope& scope,
                                                    const RenderContext& ctx = {},
                                                    const Framework* framework = nullptr,
                                                    MissingRuntime missing = MissingRuntime::kWarn);
/// Admission of one defaulted TrainingRuntime: its CRD schema/CEL rules and its webhook.
[[nodiscard]] ValidationResult admit_object(const TrainingRuntime& runtime);
/// Admission of one defaulted ClusterTrainingRuntime: its CRD schema/CEL rules and its webhook.
[[nodiscard]] ValidationResult admit_object(const ClusterTrainingRuntime& runtime);

/// Admission of an update, as the API server admits it with the object it replaces (the
/// admission webhooks' UPDATE): as `admit_object`, but with the CRD rules of an update
/// (`validate_train_job_update`: the schema rules and the `self == oldSelf` rules) and with
/// `old_job` handed to every plugin's validation, so that upstream's update rules hold (the
/// JobSet plugin's: `runtimePatches` change only while suspended, and not while the JobSet runs).
[[nodiscard]] Result<ValidationResult> admit_update(const TrainJob& old_job, const TrainJob& job,
                                                    const AdmissionScope& scope,
                                                    const RenderContext& ctx = {},
                                                    const Framework* framework = nullptr,
                                                    MissingRuntime missing = MissingRuntime::kWarn);
/// An OptimizationJob update: `validate_optimization_job_update` (the spec is immutable), then
/// its template admitted as on create.
[[nodiscard]] Result<ValidationResult> admit_update(const OptimizationJob& old_job,
                                                    const OptimizationJob& job,
                                                    const AdmissionScope& scope,
                                                    const RenderContext& ctx = {},
                                                    const Framework* framework = nullptr,
                                                    MissingRuntime missing = MissingRuntime::kWarn);
/// A runtime update: `validate_training_runtime_update` / `validate_cluster_training_runtime_
/// update` (upstream's webhooks: none for a TrainingRuntime, the create rule without the
/// deprecation warning for a ClusterTrainingRuntime; the embedded JobSet immutability rules).
[[nodiscard]] ValidationResult admit_update(const TrainingRuntime& old_runtime,
                                            const TrainingRuntime& runtime);
[[nodiscard]] ValidationResult admit_update(const ClusterTrainingRuntime& old_runtime,
                                            const ClusterTrainingRuntime& runtime);

/// The runtime of `scope` that `job.spec.runtimeRef` (defaulted) names: a TrainingRuntime in
/// the job's namespace (namespace "default" when unset) or a ClusterTrainingRuntime.
struct RuntimeRefMatch {
  const TrainingRuntime* training_runtime = nullptr;
  const ClusterTrainingRuntime* cluster_training_runtime = nullptr;
  [[nodiscard]] bool found() const noexcept {
    return training_runtime != nullptr || cluster_training_runtime != nullptr;
  }
};
[[nodiscard]] RuntimeRefMatch find_runtime(const AdmissionScope& scope, const TrainJob& job);

/// How admission sorts an object by its `apiVersion` and `kind`.
enum class TrainerKind {
  kNone,                    ///< not of the trainer.kubeflow.org group: an existing object
  kTrainJob,                ///< trainer.kubeflow.org TrainJob
  kTrainingRuntime,         ///< trainer.kubeflow.org TrainingRuntime
  kClusterTrainingRuntime,  ///< trainer.kubeflow.org ClusterTrainingRuntime
  kOptimizationJob,         ///< trainer.kubeflow.org OptimizationJob
  kUnknown,                 ///< another kind of the trainer.kubeflow.org group
};
[[nodiscard]] TrainerKind trainer_kind(std::string_view api_version,
                                       std::string_view kind) noexcept;

}  // namespace trainer
