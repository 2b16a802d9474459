// SPDX-License-Identifier: Apache-2.0
//
// The rendering pipeline: TrainJob + (Cluster)TrainingRuntime -> the objects the Kubeflow Trainer
// controller would apply, deterministically and offline (reference sections 3 and 8).
//
//   render_documents(docs, ctx)          admit(): decode, default, CRD/CEL + webhook + plugin rules
//     -> render(job, runtime, ctx)        snapshot, new_runtime_info, plugin phases, builders
//
// Phases run in upstream's order: EnforceMLPolicy, EnforcePodGroupPolicy, EnforcePodSpec,
// PreBuildSync, Build. Within a phase plugins run in the order the registry lists them (see
// docs/framework.md); enforce and build phases stop at the first error, validation collects all.
#pragma once

#include "trainer/admission.hpp"
#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"
#include "trainer/validation.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

/// Creates one plugin instance.
using PluginFactory = std::function<std::shared_ptr<Plugin>()>;

/// One entry of a plugin registry: the plugin's registry name and its factory.
struct RegistryEntry {
  std::string name;
  PluginFactory factory;
};

/// An ordered plugin registry. The order is the order of the plugins within every phase.
using Registry = std::vector<RegistryEntry>;

/// Every built-in plugin, in the documented order (docs/framework.md): JobSet, Torch, MPI, JAX,
/// XGBoost, Flux, PlainML, CoScheduling, Volcano, TrainJobStatus. `TrainJobStatus` is listed only
/// when its feature gate is on, as upstream registers it.
[[nodiscard]] Registry default_registry(const FeatureGates& gates);

/// The plugins of one pipeline, partitioned once per extension point (upstream `framework.New`).
/// Thread safety: the `run_*` functions may be called concurrently when the plugins' methods are
/// safe to call concurrently; the built-in plugins keep no state between calls, so a Framework
/// of built-in plugins may be shared between threads.
class Framework {
 public:
  /// The built-in plugins of `default_registry(options.feature_gates)` followed by `extra`, in
  /// the given order (the order within every phase), bound to `options`. Fails with `kInvalid`
  /// when a plugin of `extra` is null, has an empty name, takes a built-in plugin's name
  /// (`plugin name "Torch" is taken by a built-in plugin`) or another extra plugin's (`plugin
  /// name "Paddle" is already registered`), lists a phase in `phases()` whose interface it does
  /// not implement (`plugin "Paddle" lists phase EnforceMLPolicy but does not implement
  /// EnforceMLPolicyPlugin`), or when more than one plugin takes part in TrainJobStatus (`too
  /// many TrainJobStatus plugins are registered`). Plugins are shared: the Framework keeps a
  /// reference to each, as do the Frameworks `with_config` makes from it.
  [[nodiscard]] static Result<Framework> with_plugins(const FrameworkOptions& options,
                                                      std::vector<std::shared_ptr<Plugin>> extra);
  /// Instantiates every plugin of `registry`, in registry order, with the same checks.
  [[nodiscard]] static Result<Framework> from_registry(const Registry& registry,
                                                       const FrameworkOptions& options = {});

  /// The same plugins bound to another operator configuration (a local run's progress server
  /// sets the status port). Cheap: the plugins are shared, not copied.
  [[nodiscard]] Framework with_config(OperatorConfig config) const;

  Framework(Framework&&) noexcept = default;
  Framework& operator=(Framework&&) noexcept = default;
  Framework(const Framework&) = default;
  Framework& operator=(const Framework&) = default;
  ~Framework() = default;

  [[nodiscard]] const FeatureGates& feature_gates() const noexcept {
    return options_.feature_gates;
  }
  [[nodiscard]] const OperatorConfig& config() const noexcept { return options_.config; }

  /// Every plugin's `validate`; warnings and errors of all plugins, in plugin order.
  [[nodiscard]] ValidationResult run_custom_validation(const Info& info, const TrainJob* old_job,
                                                       const TrainJob& new_job,
                                                       const RenderContext& ctx) const;
  /// Every ML-policy plugin in order. A plugin may change the TrainJob's `spec` only: one that
  /// changes anything else (`metadata.namespace`, `metadata.uid`, `status`, ...) fails the call
  /// with kInvalid `plugin "<name>": enforceMLPolicy: trainJob.<path>: Forbidden: ...`.
  [[nodiscard]] Result<void> run_enforce_ml_policy(Info& info, TrainJob& job,
                                                   const RenderContext& ctx) const;
  [[nodiscard]] Result<void> run_enforce_pod_group_policy(Info& info, const TrainJob& job,
                                                          const RenderContext& ctx) const;
  [[nodiscard]] Result<void> run_enforce_pod_spec(Info& info, const TrainJob& job,
                                                  const RenderContext& ctx) const;
  [[nodiscard]] Result<void> run_pre_build_sync(Info& info, const TrainJob& job,
                                                const RenderContext& ctx) const;
  /// Objects of every builder, concatenated in plugin order. Each must be of a namespaced kind
  /// (`ctx.namespaced`, else a fixed table: docs/plugins.md), in the TrainJob's namespace (set
  /// where missing) and controlled by the TrainJob (its ownerReference added where no controller
  /// is named); anything else fails the call with kInvalid `plugin "<name>": build:
  /// objects[<i>]...: Forbidden: ...` naming the object.
  [[nodiscard]] Result<std::vector<boost::json::value>> run_component_builders(
      const Info& info, const TrainJob& job, const RenderContext& ctx) const;
  /// The same objects and errors, for a caller that gives `info` up (a render): the first
  /// builder that takes the Info (`ComponentBuilderPlugin::takes_info`, the JobSet plugin) runs
  /// after the other builders, through `build_taking_info`, so that it may move the runtime's
  /// JobSet template and the PodSets' lists out of `info` instead of copying them. Its objects
  /// keep their place, and when a builder after it fails, its own error, if it has one, still
  /// comes first.
  [[nodiscard]] Result<std::vector<boost::json::value>> run_component_builders(
      Info&& info, const TrainJob& job, const RenderContext& ctx) const;

  /// The TrainJobStatus plugin's `status`, when the framework has one; else nothing.
  [[nodiscard]] Result<void> run_status(const TrainJob& job, boost::json::object& status,
                                        const RenderContext& ctx) const;

  [[nodiscard]] const std::vector<std::shared_ptr<Plugin>>& plugins() const noexcept {
    return plugins_;
  }

 private:
  Framework() = default;
  [[nodiscard]] Result<void> partition_plugins();
  [[nodiscard]] PluginContext context(const RenderContext& ctx) const noexcept {
    return PluginContext{ctx, options_.feature_gates, options_.config};
  }

  FrameworkOptions options_;
  std::vector<std::shared_ptr<Plugin>> plugins_;
  std::vector<CustomValidationPlugin*> custom_validation_;
  std::vector<EnforceMLPolicyPlugin*> enforce_ml_policy_;
  std::vector<EnforcePodGroupPolicyPlugin*> enforce_pod_group_policy_;
  std::vector<EnforcePodSpecPlugin*> enforce_pod_spec_;
  std::vector<PreComponentBuilderPlugin*> pre_component_builder_;
  std::vector<ComponentBuilderPlugin*> component_builder_;
  // The index in component_builder_ of the builder that takes the Info, or its size.
  std::size_t info_taker_ = 0;
  std::vector<TrainJobStatusPlugin*> train_job_status_;
};

/// The Framework of `default_registry(gates)`, built once per gate setting and shared: its
/// built-in plugins keep no state, so it may be used from any number of threads. This is what
/// `render`, `admit` and `render_documents` use when no framework is given (with the gates off)
/// and its operator configuration is the default one.
[[nodiscard]] const Framework& default_framework(const FeatureGates& gates);

/// Upstream `newRuntimeInfo` (reference 3.6): JobSet labels/annotations from the runtime template
/// and the patches, runtime patches applied in order with strategic-merge-patch semantics
/// (replicated jobs back in template order), `resourcesPerNode` merged into the trainer `node`
/// container, one PodSet per replicated job with its count and single-pod requests.
/// Fails when a patch cannot be applied or a resource quantity does not parse.
[[nodiscard]] Result<Info> new_runtime_info(const TrainJob& job, const TrainingRuntimeSpec& spec);

/// What a render produced.
struct RenderOutput {
  /// The objects to apply, in order: the runtime snapshot ConfigMap (when it does not exist
  /// yet), then every builder's objects in plugin order (JobSet, MPI, Flux, PodGroups, ...).
  std::vector<boost::json::value> objects;
  /// Admission warnings (render_documents only).
  std::vector<std::string> warnings;
  /// Non-empty when the controller would not act on the TrainJob at all (managed by another
  /// controller, or already finished); `objects` is then empty. A sentence the CLI can print.
  std::string skipped_reason;
};

/// Renders an admitted (defaulted, validated) TrainJob against its runtime (`runtime` names
/// exactly one of a TrainingRuntime or a ClusterTrainingRuntime, or none when the runtime
/// snapshot found through `ctx.lookup` is to be used); it is used when it is the runtime the
/// TrainJob references, as `find_runtime` decides (a TrainingRuntime in the TrainJob's namespace),
/// else the render fails with `kNotFound`. The TrainJob's UID is `ctx.train_job_uid` (or its own
/// `metadata.uid` when that is empty); a missing namespace means `default`.
/// The snapshot ConfigMap `<job>-runtime-snapshot` returned by `ctx.lookup` is used in preference
/// to `runtime`, as upstream does; it is validated (owner UID, data key, runtime identity) with
/// upstream's messages. `framework` (with its feature gates and operator configuration) defaults
/// to `default_framework({})`.
[[nodiscard]] Result<RenderOutput> render(const TrainJob& job, const RuntimeLookup& runtime,
                                          const RenderContext& ctx,
                                          const Framework* framework = nullptr);

/// A random RFC 4122 version 4 UUID (lower-case, 36 characters), from getrandom(2).
[[nodiscard]] std::string random_uuid();

/// The context of a render that takes its outside inputs from this machine: `uid` (a random
/// UUID when empty), the system clock in UTC as RFC 3339 for `now`, and fresh ECDSA P-521 key
/// pairs from OpenSSL for `generate_ssh_key`.
[[nodiscard]] RenderContext system_render_context(std::string uid = {});

/// Options of `render_documents`: those of admission (`missing_runtime` is not used: render
/// needs the runtime).
using RenderDocumentsOptions = AdmissionOptions;

/// `trainerctl render`: admits `documents` with `admit` (the one admission path, with
/// `MissingRuntime::kFail`), then renders their only TrainJob. Errors:
/// - `kInvalid`: not exactly one TrainJob; an input in another namespace than
///   `options.namespace_`; any admission error (all field errors in `Error::fields`);
/// - `kNotFound`: the runtime the TrainJob references is not among the inputs (the message says
///   what was looked for and, when a TrainingRuntime of that name is in another namespace,
///   where it is; `Error::fields` holds the webhook's `spec.runtimeRef` error);
/// - any error of `render`.
/// A TrainJob managed by another controller (`spec.managedBy`) renders nothing:
/// `RenderOutput::skipped_reason` says why.
[[nodiscard]] Result<RenderOutput> render_documents(
    const std::vector<boost::json::value>& documents, const RenderContext& ctx,
    const RenderDocumentsOptions& options = {});
/// The same, taking the documents over instead of copying them.
[[nodiscard]] Result<RenderOutput> render_documents(std::vector<boost::json::value>&& documents,
                                                    const RenderContext& ctx,
                                                    const RenderDocumentsOptions& options = {});

}  // namespace trainer
