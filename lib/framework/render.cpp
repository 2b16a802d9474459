// SPDX-License-Identifier: Apache-2.0
//
// The whole pipeline: admission, runtime snapshot, new_runtime_info, plugin phases, builders.
#include "trainer/render.hpp"

#include "framework/framework_internal.hpp"
#include "framework/json_path.hpp"
#include "framework/snapshot.hpp"
#include "runtimes/builtin_inputs.hpp"
#include "trainer/codec.hpp"

#include <optional>
#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;

std::string job_key(const TrainJob& job) {
  return detail::train_job_namespace(job) + "/" + job.metadata.name.value_or("");
}

// Why the controller would not act on `job`, or "" when it would.
std::string skip_reason(const TrainJob& job) {
  const std::string managed_by = job.spec.managed_by.value_or(kManagedByTrainer);
  if (managed_by != kManagedByTrainer) {
    return "TrainJob " + job_key(job) + " is managed by \"" + managed_by +
           "\", not by the built-in controller (" + kManagedByTrainer +
           "): no objects are created for it";
  }
  if (job.status) {
    for (const auto& c : job.status->conditions) {
      if ((c.type == "Complete" || c.type == "Failed") && c.status == "True") {
        return "TrainJob " + job_key(job) + " has finished (condition " + c.type +
               " is True): no objects are created for it";
      }
    }
  }
  return {};
}

Error runtime_not_found(const TrainJob& job) {
  const auto& ref = job.spec.runtime_ref;
  if (ref.kind.value_or(kClusterTrainingRuntimeKind) == kTrainingRuntimeKind) {
    return Error(ErrorCode::kNotFound,
                 "TrainingRuntime specified in TrainJob is not found: "
                 "trainingruntimes.trainer.kubeflow.org \"" +
                     ref.name + "\" not found");
  }
  return Error(ErrorCode::kNotFound,
               "not found ClusterTrainingRuntime specified in TrainJob: "
               "clustertrainingruntimes.trainer.kubeflow.org \"" +
                   ref.name + "\" not found");
}

// The given runtime when it is the one `job` references.
struct Selected {
  const TrainingRuntimeSpec* spec = nullptr;
  json::value object;
};

std::optional<Selected> select_runtime(const TrainJob& job, const RuntimeLookup& runtime) {
  const auto& ref = job.spec.runtime_ref;
  if (ref.api_group.value_or(kGroup) != kGroup) return std::nullopt;
  const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
  if (kind == kTrainingRuntimeKind && runtime.training_runtime != nullptr &&
      runtime.training_runtime->metadata.name.value_or("") == ref.name) {
    return Selected{&runtime.training_runtime->spec, to_json(*runtime.training_runtime)};
  }
  if (kind == kClusterTrainingRuntimeKind && runtime.cluster_training_runtime != nullptr &&
      runtime.cluster_training_runtime->metadata.name.value_or("") == ref.name) {
    return Selected{&runtime.cluster_training_runtime->spec,
                    to_json(*runtime.cluster_training_runtime)};
  }
  return std::nullopt;
}

// Objects given as inputs that exist in the cluster, then the caller's lookup.
RenderContext with_existing_objects(const RenderContext& ctx,
                                    const std::vector<json::value>* objects,
                                    std::string default_namespace) {
  RenderContext out = ctx;
  if (objects == nullptr || objects->empty()) return out;
  auto outer = ctx.lookup;
  out.lookup = [objects, outer, default_namespace](
                   std::string_view api_version, std::string_view kind, std::string_view ns,
                   std::string_view name) -> std::optional<json::value> {
    for (const auto& v : *objects) {
      if (!v.is_object()) continue;
      const auto& obj = v.get_object();
      if (detail::find_string(obj, "apiVersion").value_or("") != api_version ||
          detail::find_string(obj, "kind").value_or("") != kind) {
        continue;
      }
      const auto* meta = detail::find_object(obj, {"metadata"});
      if (meta == nullptr || detail::find_string(*meta, "name").value_or("") != name) continue;
      const std::string obj_ns = detail::find_string(*meta, "namespace").value_or("");
      if (obj_ns == ns || (obj_ns.empty() && ns == default_namespace)) return v;
    }
    if (outer) return outer(api_version, kind, ns, name);
    return std::nullopt;
  };
  return out;
}

std::string api_group_of(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string()
                                         : std::string(api_version.substr(0, slash));
}

// Gives namespaced Trainer inputs without a namespace the namespace of the call.
Result<void> apply_namespace(json::value& doc, const std::string& ns, bool explicit_ns) {
  if (!doc.is_object()) return {};
  auto& obj = doc.get_object();
  const std::string api_version = detail::find_string(obj, "apiVersion").value_or("");
  const std::string kind = detail::find_string(obj, "kind").value_or("");
  if (api_version == "v1" && kind == "List") {
    if (auto* items = detail::find_array(obj, "items")) {
      for (auto& item : *items) {
        auto r = apply_namespace(item, ns, explicit_ns);
        if (!r) return r;
      }
    }
    return {};
  }
  if (api_group_of(api_version) != kGroup ||
      (kind != kTrainJobKind && kind != kTrainingRuntimeKind)) {
    return {};
  }
  auto& meta = detail::ensure_object(obj, {"metadata"});
  const auto have = detail::find_string(meta, "namespace");
  if (!have || have->empty()) {
    meta["namespace"] = ns;
  } else if (explicit_ns && *have != ns) {
    return fail(ErrorCode::kInvalid, "the namespace from the provided object \"" + *have +
                                         "\" does not match the namespace \"" + ns +
                                         "\". You must pass '--namespace=" + *have +
                                         "' to perform this operation.");
  }
  return {};
}

const TrainingRuntimeSpec& spec_of(const RuntimeRefMatch& match) {
  return match.training_runtime != nullptr ? match.training_runtime->spec
                                           : match.cluster_training_runtime->spec;
}

}  // namespace

namespace {

// render(), with the runtime info of `job` on the live runtime when admission already computed
// it (it depends only on the TrainJob's spec and the runtime's), so that it is not built twice.
Result<RenderOutput> render_pipeline(const TrainJob& job_in, const RuntimeLookup& runtime,
                                     const RenderContext& ctx, const Framework* framework,
                                     std::optional<Info> live_info) {
  TrainJob job = job_in;
  if (!ctx.train_job_uid.empty()) job.metadata.uid = ctx.train_job_uid;
  job.metadata.namespace_ = detail::train_job_namespace(job);

  RenderOutput out;
  out.skipped_reason = skip_reason(job);
  if (!out.skipped_reason.empty()) return out;

  if (framework == nullptr) framework = &default_framework(ctx.feature_gates);

  // Step 0: the snapshot in preference to the live runtime.
  auto snapshot = detail::read_runtime_snapshot(job, ctx);
  if (!snapshot) return tl::unexpected(snapshot.error());
  TrainingRuntimeSpec snapshot_spec;
  const TrainingRuntimeSpec* spec = nullptr;
  if (*snapshot) {
    snapshot_spec = std::move(**snapshot);
    spec = &snapshot_spec;
    live_info.reset();
  } else {
    auto selected = select_runtime(job, runtime);
    if (!selected) return tl::unexpected(runtime_not_found(job));
    spec = selected->spec;
    out.objects.emplace_back(detail::runtime_snapshot_config_map(job, selected->object));
  }

  // Step 1: the runtime info; steps 2-5: the enforce and pre-build phases.
  Result<Info> info =
      live_info ? Result<Info>(std::move(*live_info)) : new_runtime_info(job, *spec);
  if (!info) return tl::unexpected(info.error());
  if (auto r = framework->run_enforce_ml_policy(*info, job); !r) return tl::unexpected(r.error());
  if (auto r = framework->run_enforce_pod_group_policy(*info, job); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = framework->run_enforce_pod_spec(*info, job, ctx); !r) {
    return tl::unexpected(r.error());
  }
  if (auto r = framework->run_pre_build_sync(*info, job); !r) return tl::unexpected(r.error());
  // Step 6: the builders.
  auto built = framework->run_component_builders(*info, job, ctx);
  if (!built) return tl::unexpected(built.error());
  for (auto& obj : *built) out.objects.push_back(std::move(obj));
  return out;
}

}  // namespace

Result<RenderOutput> render(const TrainJob& job, const RuntimeLookup& runtime,
                            const RenderContext& ctx, const Framework* framework) {
  return render_pipeline(job, runtime, ctx, framework, std::nullopt);
}

namespace {

// `infos`, when not null, receives for each admitted TrainJob the runtime info its plugin
// validation ran on (nullopt when it did not get that far).
Result<Admission> admit_normalized(const std::vector<json::value>& documents,
                                   const RenderContext& ctx, const RenderDocumentsOptions& options,
                                   const std::string& ns,
                                   std::vector<std::optional<Info>>* infos = nullptr) {
  auto admitted = admit(documents);
  if (!admitted) return admitted;
  Admission& adm = *admitted;
  const Framework* framework =
      options.framework != nullptr ? options.framework : &default_framework(ctx.feature_gates);
  const RenderContext vctx = with_existing_objects(ctx, &adm.objects.other_objects, ns);
  if (infos != nullptr) infos->assign(adm.objects.train_jobs.size(), std::nullopt);
  for (std::size_t index = 0; index < adm.objects.train_jobs.size(); ++index) {
    const TrainJob& job = adm.objects.train_jobs[index];
    const auto match = find_runtime(adm.objects, job);
    if (!match.found()) continue;
    // The plugins run in the TrainJob webhook, after the schema rules passed and the runtime
    // was found.
    if (!validate_train_job(job).ok()) continue;
    auto webhook = validate_train_job_runtime(
        job, RuntimeLookup{match.training_runtime, match.cluster_training_runtime});
    if (!webhook || !webhook->ok()) continue;
    auto info = new_runtime_info(job, spec_of(match));
    if (!info) {
      // Upstream ignores this error and would run the plugins on a nil Info (a crash); the
      // patches that cannot be applied are reported instead.
      const json::value job_json = to_json(job);
      const auto* patches = detail::find_array(job_json.at("spec").get_object(), "runtimePatches");
      adm.errors.push_back(field_invalid("spec.runtimePatches",
                                         patches != nullptr ? json::value(*patches) : json::value(),
                                         info.error().message));
      continue;
    }
    auto result = framework->run_custom_validation(*info, nullptr, job, vctx);
    for (auto& w : result.warnings) adm.warnings.push_back(std::move(w));
    for (auto& e : result.errors) adm.errors.push_back(std::move(e));
    if (infos != nullptr) (*infos)[index] = std::move(*info);
  }
  if (options.on_warning) {
    for (const auto& w : adm.warnings) options.on_warning(w);
  }
  return admitted;
}

Result<std::vector<json::value>> normalize_namespaces(std::vector<json::value> docs,
                                                      const RenderDocumentsOptions& options,
                                                      const std::string& ns) {
  if (options.builtin_runtimes) {
    auto added = detail::add_referenced_builtin_runtimes(docs);
    if (!added) return tl::unexpected(added.error());
  }
  for (auto& doc : docs) {
    auto r = apply_namespace(doc, ns, !options.namespace_.empty());
    if (!r) return tl::unexpected(r.error());
  }
  return docs;
}

}  // namespace

Result<Admission> admit_documents(const std::vector<json::value>& documents,
                                  const RenderContext& ctx, const RenderDocumentsOptions& options) {
  const std::string ns = options.namespace_.empty() ? std::string("default") : options.namespace_;
  auto docs = normalize_namespaces(documents, options, ns);
  if (!docs) return tl::unexpected(docs.error());
  return admit_normalized(*docs, ctx, options, ns);
}

Result<RenderOutput> render_documents(const std::vector<json::value>& documents,
                                      const RenderContext& ctx,
                                      const RenderDocumentsOptions& options) {
  return render_documents(std::vector<json::value>(documents), ctx, options);
}

Result<RenderOutput> render_documents(std::vector<json::value>&& documents,
                                      const RenderContext& ctx,
                                      const RenderDocumentsOptions& options) {
  const std::string ns = options.namespace_.empty() ? std::string("default") : options.namespace_;
  auto docs = normalize_namespaces(std::move(documents), options, ns);
  if (!docs) return tl::unexpected(docs.error());
  std::vector<std::optional<Info>> infos;
  auto admitted = admit_normalized(*docs, ctx, options, ns, &infos);
  if (!admitted) return tl::unexpected(admitted.error());
  Admission& adm = *admitted;
  if (!adm.ok()) return tl::unexpected(Error::invalid(std::move(adm.errors)));
  if (adm.objects.train_jobs.size() != 1) {
    return fail(ErrorCode::kInvalid, "render needs exactly one TrainJob among the inputs, found " +
                                         std::to_string(adm.objects.train_jobs.size()));
  }
  const TrainJob& job = adm.objects.train_jobs.front();
  const auto match = find_runtime(adm.objects, job);
  if (!match.found()) {
    const auto& ref = job.spec.runtime_ref;
    const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
    std::string message = "TrainJob " + job_key(job) + " references " + kind + " \"" + ref.name +
                          "\", which is not among the inputs";
    if (kind == kTrainingRuntimeKind) {
      message = "TrainJob " + job_key(job) + " references TrainingRuntime \"" + ref.name +
                "\" in namespace \"" + detail::train_job_namespace(job) +
                "\", which is not among the inputs";
      for (const auto& rt : adm.objects.training_runtimes) {
        if (rt.metadata.name == ref.name) {
          message += " (a TrainingRuntime of that name is in namespace \"" +
                     rt.metadata.namespace_.value_or("") +
                     "\"; a TrainingRuntime must be in the TrainJob's namespace)";
          break;
        }
      }
    }
    Error e(ErrorCode::kNotFound, std::move(message));
    if (auto webhook = validate_train_job_runtime(job, RuntimeLookup{}); webhook) {
      e.fields = std::move(webhook->errors);
    }
    return tl::unexpected(std::move(e));
  }
  const RenderContext rctx = with_existing_objects(ctx, &adm.objects.other_objects, ns);
  auto out =
      render_pipeline(job, RuntimeLookup{match.training_runtime, match.cluster_training_runtime},
                      rctx, options.framework, std::move(infos.front()));
  if (!out) return out;
  out->warnings = std::move(adm.warnings);
  return out;
}

}  // namespace trainer
