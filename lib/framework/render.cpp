// SPDX-License-Identifier: Apache-2.0
//
// The whole pipeline: admission (lib/admission), runtime snapshot, new_runtime_info, plugin phases,
// builders.
#include "trainer/render.hpp"

#include "admission/admission_internal.hpp"
#include "api/struct_codec.hpp"
#include "framework/pod_count.hpp"
#include "framework/runtime_identity.hpp"
#include "framework/snapshot.hpp"
#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"
#include "validation/rules.hpp"

#include <optional>
#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;

using detail::job_key;

// Why the controller would not act on `job`, or "" when it would.
std::string skip_reason(const TrainJob& job) {
  const std::string managed_by = job.spec.managed_by.value_or(kManagedByTrainer);
  if (managed_by != kManagedByTrainer) {
    return "TrainJob " + job_key(job) + " is managed by \"" + managed_by +
           "\", not by the built-in controller (" + kManagedByTrainer +
           "): no objects are created for it";
  }
  if (const Condition* c = job.status ? finishing_condition(job.status->conditions) : nullptr) {
    return "TrainJob " + job_key(job) + " has finished (condition " + c->type +
           " is True): no objects are created for it";
  }
  return {};
}

Error runtime_not_found(const TrainJob& job) {
  const auto& ref = job.spec.runtime_ref;
  const bool namespaced = ref.kind.value_or(kClusterTrainingRuntimeKind) == kTrainingRuntimeKind;
  // The controller's wrapping of the client's NotFound error.
  const char* wrap = namespaced ? "TrainingRuntime specified in TrainJob is not found: "
                                : "not found ClusterTrainingRuntime specified in TrainJob: ";
  return Error(ErrorCode::kNotFound, wrap + detail::runtime_not_found_text(ref));
}

// The runtime `job` references, as the pipeline reads it: its spec and identity.
struct Selected {
  const TrainingRuntimeSpec* spec = nullptr;
  RuntimeIdentity identity;
};

// The runtimes of a match that the caller gives up (render_documents owns its admission's
// objects): encoded for the snapshot once the pipeline read them, they are moved into their
// JSON instead of copied. Null: copied.
struct GivenUp {
  TrainingRuntime* training_runtime = nullptr;
  ClusterTrainingRuntime* cluster_training_runtime = nullptr;
};

// The runtime `job` references among those of a lookup (its reference checked: kind, name,
// namespace), as admission resolves it.
RuntimeRefMatch match_runtime(const TrainJob& job, const RuntimeLookup& runtime) {
  AdmissionScope scope;
  if (runtime.training_runtime != nullptr)
    scope.training_runtimes.push_back(runtime.training_runtime);
  if (runtime.cluster_training_runtime != nullptr) {
    scope.cluster_training_runtimes.push_back(runtime.cluster_training_runtime);
  }
  return find_runtime(scope, job);
}

std::optional<Selected> select_runtime(const RuntimeRefMatch& match) {
  if (match.training_runtime != nullptr) {
    return Selected{&match.training_runtime->spec, detail::runtime_identity(match)};
  }
  if (match.cluster_training_runtime != nullptr) {
    return Selected{&match.cluster_training_runtime->spec, detail::runtime_identity(match)};
  }
  return std::nullopt;
}

// The JSON of the runtime `match` found (select_runtime found one), for its snapshot.
json::value runtime_json(const RuntimeRefMatch& match, const GivenUp& given_up) {
  if (given_up.training_runtime != nullptr) {
    return detail::to_value(detail::Enc{}, std::move(*given_up.training_runtime));
  }
  if (given_up.cluster_training_runtime != nullptr) {
    return detail::to_value(detail::Enc{}, std::move(*given_up.cluster_training_runtime));
  }
  return match.training_runtime != nullptr ? to_json(*match.training_runtime)
                                           : to_json(*match.cluster_training_runtime);
}

// render(), with the runtime `job` references and, when admission already computed them, the
// runtime info on it (it depends only on the TrainJob's spec and the runtime's) and the runtime's
// YAML for its snapshot, so that nothing is looked up or built twice.
Result<RenderOutput> render_pipeline(TrainJob job, const RuntimeRefMatch& runtime,
                                     const GivenUp& given_up, const RenderContext& ctx,
                                     const Framework* framework, std::optional<Info> live_info,
                                     std::optional<std::string> runtime_yaml) {
  if (!ctx.train_job_uid.empty()) job.metadata.uid = ctx.train_job_uid;
  job.metadata.namespace_ = train_job_namespace(job);

  RenderOutput out;
  out.skipped_reason = skip_reason(job);
  if (!out.skipped_reason.empty()) return out;

  if (framework == nullptr) framework = &default_framework({});

  // Step 0: the snapshot in preference to the live runtime.
  auto snapshot = detail::read_runtime_snapshot(job, ctx);
  if (!snapshot) return tl::unexpected(snapshot.error());
  TrainingRuntimeSpec snapshot_spec;
  const TrainingRuntimeSpec* spec = nullptr;
  RuntimeIdentity identity;
  if (*snapshot) {
    snapshot_spec = std::move((*snapshot)->spec);
    identity = std::move((*snapshot)->identity);
    spec = &snapshot_spec;
    live_info.reset();
  } else {
    auto selected = select_runtime(runtime);
    if (!selected) return tl::unexpected(runtime_not_found(job));
    spec = selected->spec;
    identity = std::move(selected->identity);
  }

  // Step 1: the runtime info; steps 2-5: the enforce and pre-build phases.
  Result<Info> info =
      live_info ? Result<Info>(std::move(*live_info)) : new_runtime_info(job, *spec);
  if (!info) return tl::unexpected(info.error());
  // Admission refuses this too; render() may be called without it (the controller, embedders,
  // a runtime snapshot), and no step below should be sized by an unbounded count.
  if (auto too_many = detail::check_pod_count(*info, job)) {
    return tl::unexpected(Error::invalid({std::move(*too_many)}));
  }
  info->runtime = std::move(identity);
  // The live runtime's snapshot, once nothing reads the runtime any more (its JSON may take its
  // template: GivenUp).
  if (!*snapshot) {
    out.objects.emplace_back(detail::runtime_snapshot_config_map(
        job,
        runtime_yaml ? std::move(*runtime_yaml) : encode_yaml(runtime_json(runtime, given_up))));
  }
  if (auto r = framework->run_enforce_ml_policy(*info, job, ctx); !r)
    return tl::unexpected(r.error());
  if (auto r = framework->run_enforce_pod_group_policy(*info, job, ctx); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = framework->run_enforce_pod_spec(*info, job, ctx); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = framework->run_pre_build_sync(*info, job, ctx); !r) return tl::unexpected(r.error());
  // Step 6: the builders. Nothing reads the Info after them: the JobSet builder may take the
  // runtime's JobSet template out of it instead of copying it.
  auto built = framework->run_component_builders(std::move(*info), job, ctx);
  if (!built) return tl::unexpected(built.error());
  for (auto& obj : *built) out.objects.push_back(std::move(obj));
  return out;
}

}  // namespace

Result<RenderOutput> render(const TrainJob& job, const RuntimeLookup& runtime,
                            const RenderContext& ctx, const Framework* framework) {
  return render_pipeline(job, match_runtime(job, runtime), GivenUp{}, ctx, framework, std::nullopt,
                         std::nullopt);
}

Result<RenderOutput> render_documents(const std::vector<json::value>& documents,
                                      const RenderContext& ctx,
                                      const RenderDocumentsOptions& options) {
  return render_documents(std::vector<json::value>(documents), ctx, options);
}

Result<RenderOutput> render_documents(std::vector<json::value>&& documents,
                                      const RenderContext& ctx,
                                      const RenderDocumentsOptions& options) {
  // Render needs the runtime: admission reports one that is not among the inputs as kNotFound.
  AdmissionOptions admission_options = options;
  admission_options.missing_runtime = MissingRuntime::kFail;
  std::vector<detail::AdmittedJob> jobs;
  auto admitted = detail::admit(std::move(documents), ctx, admission_options, &jobs);
  if (!admitted) return tl::unexpected(admitted.error());
  Admission& adm = *admitted;
  if (!adm.ok()) return tl::unexpected(Error::invalid(std::move(adm.errors)));
  if (adm.objects.train_jobs.size() != 1) {
    return fail(ErrorCode::kInvalid, "render needs exactly one TrainJob among the inputs, found " +
                                         std::to_string(adm.objects.train_jobs.size()));
  }
  TrainJob& job = adm.objects.train_jobs.front();
  const std::string ns = options.namespace_.empty() ? std::string("default") : options.namespace_;
  const AdmissionScope scope = AdmissionScope::of(adm.objects, ns);
  // The runtime admission resolved (pointers into adm.objects, which outlive the render).
  const RuntimeRefMatch& match = jobs.front().runtime;
  if (!match.found()) {
    return fail(ErrorCode::kInternal,
                "admission accepted TrainJob " + job_key(job) + " without its runtime");
  }
  const RenderContext rctx =
      detail::with_existing_objects(ctx, scope.existing_objects, scope.default_namespace);
  // Nothing reads the admitted TrainJob and runtime after the render: they are given up to it.
  const GivenUp given_up{
      detail::owned_runtime(adm.objects.training_runtimes, match.training_runtime),
      detail::owned_runtime(adm.objects.cluster_training_runtimes, match.cluster_training_runtime)};
  auto out = render_pipeline(std::move(job), match, given_up, rctx, options.framework,
                             std::move(jobs.front().info), std::move(jobs.front().runtime_yaml));
  if (!out) return out;
  out->warnings = std::move(adm.warnings);
  return out;
}

}  // namespace trainer
