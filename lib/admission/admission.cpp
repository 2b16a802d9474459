// SPDX-License-Identifier: Apache-2.0
#include "admission/admission_internal.hpp"

#include "api/decode_taking.hpp"
#include "framework/pod_count.hpp"
#include "framework/runtime_identity.hpp"
#include "framework/runtime_info.hpp"
#include "runtimes/builtin_inputs.hpp"
#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/json_path.hpp"
#include "trainer/names.hpp"
#include "trainer/plugin_support.hpp"
#include "trainer/render.hpp"
#include "trainer/runtimes.hpp"
#include "trainer/validation.hpp"
#include "validation/rules.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;

using detail::job_key;

constexpr std::string_view kDefaultNamespace = "default";

std::string_view namespace_or_default(const std::optional<std::string>& ns) {
  return ns && !ns->empty() ? std::string_view(*ns) : kDefaultNamespace;
}

// The group part of `apiVersion` ("" for the core group, "v1").
std::string_view api_group(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

// ---- One TrainJob ------------------------------------------------------------------------------

// The runtime a TrainJob references but `scope` lacks: what was looked for, and whether a
// TrainingRuntime of that name is among the inputs in another namespace.
struct MissingRuntimeText {
  std::string sentence;
  bool elsewhere = false;
};

// The runtimes of the kind `job` references that `scope` knows: those given (TrainingRuntimes
// in the job's namespace) and, for a ClusterTrainingRuntime, the built-in ones when they count.
std::vector<std::string> known_runtimes(const TrainJob& job, const AdmissionScope& scope) {
  std::vector<std::string> names;
  if (job.spec.runtime_ref.kind.value_or(kClusterTrainingRuntimeKind) == kTrainingRuntimeKind) {
    const auto job_ns = namespace_or_default(job.metadata.namespace_);
    for (const auto* rt : scope.training_runtimes) {
      if (namespace_or_default(rt->metadata.namespace_) == job_ns) {
        names.push_back(rt->metadata.name.value_or(""));
      }
    }
    return names;
  }
  for (const auto* rt : scope.cluster_training_runtimes) {
    names.push_back(rt->metadata.name.value_or(""));
  }
  if (scope.builtin_runtimes) {
    for (const auto& builtin : builtin_runtimes()) names.emplace_back(builtin.name);
  }
  return names;
}

// Whether `scope` holds every runtime of the kind `job` references (the built-in ones, or those
// of that kind given), so that one it lacks is misspelt rather than elsewhere in the cluster.
bool runtimes_known(const TrainJob& job, const AdmissionScope& scope) {
  if (scope.runtimes_from_cluster) return false;
  if (job.spec.runtime_ref.kind.value_or(kClusterTrainingRuntimeKind) == kTrainingRuntimeKind) {
    return !scope.training_runtimes.empty();
  }
  return scope.builtin_runtimes || !scope.cluster_training_runtimes.empty();
}

// `; did you mean "<name>"?` for the known runtime closest to the one `job` references, or "".
std::string did_you_mean(const TrainJob& job, const AdmissionScope& scope) {
  const auto closest = closest_name(job.spec.runtime_ref.name, known_runtimes(job, scope));
  return closest ? "; did you mean \"" + *closest + "\"?" : std::string();
}

// `subject` names the object in the sentence ("TrainJob ns/name" when empty).
MissingRuntimeText describe_missing_runtime(const TrainJob& job, const AdmissionScope& scope,
                                            const std::string& subject) {
  const std::string who = subject.empty() ? "TrainJob " + job_key(job) : subject;
  const auto& ref = job.spec.runtime_ref;
  const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
  MissingRuntimeText out;
  const char* where = scope.runtimes_from_cluster
                          ? "which is neither among the inputs nor in the cluster"
                      : scope.builtin_runtimes && kind == kClusterTrainingRuntimeKind
                          ? "which is neither among the inputs nor a built-in runtime"
                          : "which is not among the inputs";
  if (kind != kTrainingRuntimeKind) {
    out.sentence =
        who + " references " + kind + " \"" + ref.name + "\", " + where + did_you_mean(job, scope);
    return out;
  }
  out.sentence = who + " references TrainingRuntime \"" + ref.name + "\" in namespace \"" +
                 train_job_namespace(job) + "\", " + where;
  for (const auto* rt : scope.training_runtimes) {
    if (rt->metadata.name == ref.name) {
      out.sentence += " (a TrainingRuntime of that name is in namespace \"" +
                      std::string(namespace_or_default(rt->metadata.namespace_)) +
                      "\"; a TrainingRuntime must be in the TrainJob's namespace)";
      out.elsewhere = true;
      break;
    }
  }
  if (!out.elsewhere) out.sentence += did_you_mean(job, scope);
  return out;
}

const TrainingRuntimeSpec& spec_of(const RuntimeRefMatch& match) {
  return match.training_runtime != nullptr ? match.training_runtime->spec
                                           : match.cluster_training_runtime->spec;
}

// The runtime info of `job` on `runtime`, which the caller gives up (AdmittedJob): the runtime is
// written out for its snapshot first, into `runtime_yaml`, then its JobSet template moves into
// the info instead of being copied.
template <class Runtime>
Result<Info> runtime_info_taking(const TrainJob& job, Runtime& runtime, std::string& runtime_yaml) {
  json::object& held = runtime.spec.template_.spec;
  if (held.empty()) {
    runtime_yaml = encode_yaml(to_json(runtime));
    return new_runtime_info(job, runtime.spec);
  }
  // The rest of the runtime is encoded around a placeholder that keeps the template's place
  // among its fields, then the template takes that place.
  json::object jobset_spec = std::move(held);
  held = json::object{{"", nullptr}};
  json::value doc = to_json(runtime);
  held = json::object();
  json::object* template_ = find_object(doc.get_object(), {"spec", "template"});
  json::value* slot = template_ != nullptr ? template_->if_contains("spec") : nullptr;
  if (slot == nullptr || !slot->is_object()) {
    // Not how the codec writes a runtime; copied then, as without a taker.
    held = std::move(jobset_spec);
    runtime_yaml = encode_yaml(to_json(runtime));
    return new_runtime_info(job, runtime.spec);
  }
  *slot = std::move(jobset_spec);
  runtime_yaml = encode_yaml(doc);
  return detail::new_runtime_info(job, runtime.spec, std::move(slot->get_object()));
}

// admit_object(job, ...); `info`, when not null, receives the runtime info the plugins ran on;
// `subject`, when not empty, names the object in warnings (an OptimizationJob's template).
// `give_up`, when not null, holds the runtime `job` references and nothing admitted after `job`
// reads it: its JobSet template moves into the info (AdmittedJob::runtime_yaml).
Result<ValidationResult> admit_train_job(const TrainJob& job, const AdmissionScope& scope,
                                         const RenderContext& ctx, const Framework* framework,
                                         MissingRuntime missing, detail::AdmittedJob* admitted,
                                         const std::string& subject = {},
                                         const TrainJob* old_job = nullptr,
                                         ObjectSet* give_up = nullptr) {
  ValidationResult out =
      old_job != nullptr ? validate_train_job_update(*old_job, job) : validate_train_job(job);
  // The API server calls the validating webhook only for objects that pass the CRD schema.
  if (!out.ok()) return out;

  const RuntimeRefMatch match = find_runtime(scope, job);
  if (admitted != nullptr) admitted->runtime = match;
  if (!match.found()) {
    // The webhook decides what a runtime it cannot find means: `unsupported runtime` for a kind
    // that is not a registered runtime kind, its `spec.runtimeRef` not-found error otherwise.
    auto webhook = validate_train_job_runtime(job, RuntimeLookup{});
    if (!webhook) return tl::unexpected(std::move(webhook).error());
    MissingRuntimeText text = describe_missing_runtime(job, scope, subject);
    if (missing == MissingRuntime::kFail) {
      // Upstream's NotFound text first, as kubectl would show it.
      Error error(
          ErrorCode::kNotFound,
          detail::runtime_not_found_text(job.spec.runtime_ref) + ": " + text.sentence +
              detail::builtin_runtime_hint(job.spec.runtime_ref, scope.runtimes_from_cluster));
      error.fields = std::move(webhook->errors);
      return tl::unexpected(std::move(error));
    }
    if (text.elsewhere) {
      out.merge(std::move(*webhook));
      out.warnings.push_back(std::move(text.sentence));
    } else if (runtimes_known(job, scope)) {
      // Every runtime of that kind is known here: one that is missing is misspelt.
      out.merge(std::move(*webhook));
      out.warnings.push_back(
          text.sentence +
          detail::builtin_runtime_hint(job.spec.runtime_ref, scope.runtimes_from_cluster));
    } else {
      out.warnings.push_back(
          text.sentence + ": the " + (subject.empty() ? "TrainJob" : "TrainJob template") +
          " was not checked against it" +
          detail::builtin_runtime_hint(job.spec.runtime_ref, scope.runtimes_from_cluster));
    }
    return out;
  }

  auto webhook = validate_train_job_runtime(
      job, RuntimeLookup{match.training_runtime, match.cluster_training_runtime});
  if (!webhook) return tl::unexpected(std::move(webhook).error());
  out.merge(std::move(*webhook));
  // The plugins run in the TrainJob webhook after the runtime was found and accepted.
  if (!out.ok()) return out;

  TrainingRuntime* taken_runtime =
      give_up != nullptr && admitted != nullptr
          ? detail::owned_runtime(give_up->training_runtimes, match.training_runtime)
          : nullptr;
  ClusterTrainingRuntime* taken_cluster_runtime =
      give_up != nullptr && admitted != nullptr
          ? detail::owned_runtime(give_up->cluster_training_runtimes,
                                  match.cluster_training_runtime)
          : nullptr;
  std::string runtime_yaml;
  auto runtime_info = taken_runtime != nullptr
                          ? runtime_info_taking(job, *taken_runtime, runtime_yaml)
                      : taken_cluster_runtime != nullptr
                          ? runtime_info_taking(job, *taken_cluster_runtime, runtime_yaml)
                          : new_runtime_info(job, spec_of(match));
  if (!runtime_info) {
    // Upstream ignores this error and would run the plugins on a nil Info (a crash); the
    // patches that cannot be applied are reported instead.
    const json::value job_json = to_json(job);
    const auto* patches = find_array(job_json.at("spec").get_object(), "runtimePatches");
    out.errors.push_back(field_invalid("spec.runtimePatches",
                                       patches != nullptr ? json::value(*patches) : json::value(),
                                       runtime_info.error().message));
    return out;
  }
  runtime_info->runtime = detail::runtime_identity(match);
  if (auto too_many = detail::check_pod_count(*runtime_info, job)) {
    out.errors.push_back(std::move(*too_many));
  }
  const Framework& plugins = framework != nullptr ? *framework : default_framework({});
  out.merge(plugins.run_custom_validation(
      *runtime_info, old_job, job,
      detail::with_existing_objects(ctx, scope.existing_objects, scope.default_namespace)));
  if (admitted != nullptr) {
    admitted->info = std::move(*runtime_info);
    if (taken_runtime != nullptr || taken_cluster_runtime != nullptr) {
      admitted->runtime_yaml = std::move(runtime_yaml);
    }
  }
  return out;
}

// admit_object(OptimizationJob): its own rules, then its template as a TrainJob.
Result<ValidationResult> admit_optimization_job(const OptimizationJob& job,
                                                const AdmissionScope& scope,
                                                const RenderContext& ctx,
                                                const Framework* framework, MissingRuntime missing,
                                                const OptimizationJob* old_job = nullptr) {
  ValidationResult out = old_job != nullptr ? validate_optimization_job_update(*old_job, job)
                                            : validate_optimization_job(job);
  if (!out.ok()) return out;
  const std::string subject = "OptimizationJob " +
                              std::string(namespace_or_default(job.metadata.namespace_)) + "/" +
                              job.metadata.name.value_or("") + " (trainJobTemplate)";
  const TrainJob trial = detail::template_train_job(job);
  detail::AdmittedJob trial_admitted;
  auto admitted = admit_train_job(trial, scope, ctx, framework, missing, &trial_admitted, subject);
  if (!admitted) {
    Error error = std::move(admitted).error();
    detail::reroot_template_errors(error.fields);
    return tl::unexpected(std::move(error));
  }
  detail::reroot_template_errors(admitted->errors);
  const bool trial_ok = admitted->ok();
  out.merge(std::move(*admitted));
  // The trials that run at once are one TrainJob's worth of pods at most (docs/yaml.md).
  if (trial_ok && trial_admitted.info) {
    const std::int64_t trial_pods = detail::count_pods(*trial_admitted.info, trial);
    const std::int64_t parallel = job.spec.parallel_trials.value_or(1);
    if (trial_pods > 0 && parallel > kMaxPodsPerTrainJob / trial_pods) {
      out.errors.push_back(field_invalid(
          "spec.parallelTrials", json::value(parallel),
          "must be no more than " + std::to_string(kMaxPodsPerTrainJob / trial_pods) +
              ": each trial has " + std::to_string(trial_pods) +
              " pods, and the trials that run at once may have at most " +
              std::to_string(kMaxPodsPerTrainJob) + " pods, the most pods a TrainJob may have"));
    }
  }
  return out;
}

// ---- Documents ---------------------------------------------------------------------------------

// Gives namespaced Trainer inputs without a namespace the namespace of the call.
Result<void> apply_namespace(json::value& doc, const std::string& ns, bool explicit_ns) {
  if (!doc.is_object()) return {};
  auto& obj = doc.get_object();
  const std::string api_version = find_string(obj, "apiVersion").value_or("");
  const std::string kind = find_string(obj, "kind").value_or("");
  if (api_version == "v1" && kind == "List") {
    if (auto* items = find_array(obj, "items")) {
      for (auto& item : *items) {
        auto r = apply_namespace(item, ns, explicit_ns);
        if (!r) return r;
      }
    }
    return {};
  }
  const TrainerKind sort = trainer_kind(api_version, kind);
  if (sort != TrainerKind::kTrainJob && sort != TrainerKind::kTrainingRuntime &&
      sort != TrainerKind::kOptimizationJob) {
    return {};
  }
  auto& meta = ensure_object(obj, {"metadata"});
  const auto have = find_string(meta, "namespace");
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

// One decoded object of the call, in input order.
struct Entry {
  TrainerKind kind = TrainerKind::kNone;
  std::size_t index = 0;  // into the ObjectSet vector of `kind`
  std::vector<std::string> decode_warnings;
};

std::string string_field(const json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return (v != nullptr && v->is_string()) ? std::string(v->get_string()) : std::string();
}

// `doc` is given up: the decoder moves the JSON the object carries verbatim out of it; only its
// apiVersion and kind are read afterwards (strict_decoding_error).
template <class T>
Result<void> decode_into(json::value& doc, TrainerKind kind, std::vector<T>& objects,
                         std::vector<Entry>& entries, bool strict) {
  auto decoded = detail::decode_taking<T>(std::move(doc));
  if (!decoded) return tl::unexpected(std::move(decoded).error());
  // The decoder's only warnings are unknown fields (`unknown field "<path>"`).
  if (strict && !decoded->warnings.empty()) {
    return tl::unexpected(strict_decoding_error(doc, decoded->warnings));
  }
  apply_defaults(decoded->object);
  entries.push_back(Entry{kind, objects.size(), std::move(decoded->warnings)});
  objects.push_back(std::move(decoded->object));
  return {};
}

// Decodes and defaults one document into `objects`; a `v1` `List` (what `trainerctl render -o
// json` prints) contributes its items, as kubectl does.
Result<void> decode_document(json::value& doc, const std::string& where, ObjectSet& objects,
                             std::vector<Entry>& entries, bool strict) {
  if (!doc.is_object()) {
    return fail(ErrorCode::kParse,
                where + ": expected an object, not a " + (doc.is_array() ? "list" : "scalar"));
  }
  auto& obj = doc.get_object();
  const std::string api_version = string_field(obj, "apiVersion");
  const std::string kind = string_field(obj, "kind");
  if (api_version.empty() || kind.empty()) {
    return fail(ErrorCode::kInvalid, where + ": apiVersion and kind must be set on every object");
  }
  if (api_version == "v1" && kind == "List") {
    auto* items = obj.if_contains("items");
    if (items == nullptr || !items->is_array()) {
      return fail(ErrorCode::kParse, where + ": a List needs an items array");
    }
    auto& array = items->get_array();
    for (std::size_t i = 0; i < array.size(); ++i) {
      auto r = decode_document(array[i], where + ".items[" + std::to_string(i) + "]", objects,
                               entries, strict);
      if (!r) return r;
    }
    return {};
  }
  switch (const TrainerKind sort = trainer_kind(api_version, kind)) {
    case TrainerKind::kTrainJob: return decode_into(doc, sort, objects.train_jobs, entries, strict);
    case TrainerKind::kTrainingRuntime:
      return decode_into(doc, sort, objects.training_runtimes, entries, strict);
    case TrainerKind::kClusterTrainingRuntime:
      return decode_into(doc, sort, objects.cluster_training_runtimes, entries, strict);
    case TrainerKind::kOptimizationJob:
      return decode_into(doc, sort, objects.optimization_jobs, entries, strict);
    case TrainerKind::kUnknown:
      return fail(ErrorCode::kInvalid, "kind \"" + kind + "\" of group " + kGroup +
                                           " is not supported (supported: TrainJob, "
                                           "TrainingRuntime, ClusterTrainingRuntime, "
                                           "OptimizationJob)");
    case TrainerKind::kNone: break;
  }
  objects.other_objects.push_back(std::move(doc));
  return {};
}

void take(ValidationResult&& result, Admission& out) {
  for (auto& w : result.warnings) out.warnings.push_back(std::move(w));
  for (auto& e : result.errors) out.errors.push_back(std::move(e));
}

// The admission result of a TrainJob or OptimizationJob: a missing runtime that render needs
// is kept in `not_found` (reported after every field error), any other failure ends the call.
Result<void> take_job(Result<ValidationResult>&& result, Admission& out,
                      std::optional<Error>& not_found) {
  if (!result && result.error().code == ErrorCode::kNotFound) {
    if (!not_found) not_found = std::move(result).error();
  } else if (!result) {
    return tl::unexpected(std::move(result).error());
  } else {
    take(std::move(*result), out);
  }
  return {};
}

// The admission of the decoded objects, in input order.
Result<void> admit_entries(std::vector<Entry>& entries, const RenderContext& ctx,
                           const AdmissionOptions& options, const std::string& ns, Admission& out,
                           std::vector<detail::AdmittedJob>* jobs) {
  AdmissionScope scope = AdmissionScope::of(out.objects, ns);
  scope.runtimes_from_cluster = options.runtimes_from_cluster;
  scope.builtin_runtimes = options.builtin_runtimes;
  if (jobs != nullptr) jobs->assign(out.objects.train_jobs.size(), detail::AdmittedJob{});
  // A render (`jobs`) of one TrainJob takes its runtime's JobSet template when nothing admitted
  // after the TrainJob reads that runtime: no runtime comes later and no OptimizationJob at all.
  std::size_t last_reader = entries.size();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].kind != TrainerKind::kNone && entries[i].kind != TrainerKind::kUnknown) {
      last_reader = i;
    }
  }
  const bool give_up = jobs != nullptr && out.objects.train_jobs.size() == 1 &&
                       out.objects.optimization_jobs.empty() && last_reader < entries.size() &&
                       entries[last_reader].kind == TrainerKind::kTrainJob;
  std::optional<Error> not_found;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Entry& entry = entries[i];
    for (auto& w : entry.decode_warnings) out.warnings.push_back(std::move(w));
    switch (entry.kind) {
      case TrainerKind::kTrainJob: {
        auto result = admit_train_job(
            out.objects.train_jobs[entry.index], scope, ctx, options.framework,
            options.missing_runtime, jobs != nullptr ? &(*jobs)[entry.index] : nullptr, {}, nullptr,
            give_up && i == last_reader ? &out.objects : nullptr);
        if (auto r = take_job(std::move(result), out, not_found); !r) return r;
        break;
      }
      case TrainerKind::kTrainingRuntime:
        take(admit_object(out.objects.training_runtimes[entry.index]), out);
        break;
      case TrainerKind::kClusterTrainingRuntime:
        take(admit_object(out.objects.cluster_training_runtimes[entry.index]), out);
        break;
      case TrainerKind::kOptimizationJob: {
        auto result = admit_optimization_job(out.objects.optimization_jobs[entry.index], scope, ctx,
                                             options.framework, options.missing_runtime);
        if (auto r = take_job(std::move(result), out, not_found); !r) return r;
        break;
      }
      case TrainerKind::kNone:
      case TrainerKind::kUnknown: break;
    }
  }
  // A missing runtime that render needs is reported once the objects are otherwise admitted,
  // so that every field error comes first.
  if (not_found && out.ok()) return tl::unexpected(std::move(*not_found));
  return {};
}

}  // namespace

// ---- Public ------------------------------------------------------------------------------------

TrainerKind trainer_kind(std::string_view api_version, std::string_view kind) noexcept {
  if (api_group(api_version) != kGroup) return TrainerKind::kNone;
  if (kind == kTrainJobKind) return TrainerKind::kTrainJob;
  if (kind == kTrainingRuntimeKind) return TrainerKind::kTrainingRuntime;
  if (kind == kClusterTrainingRuntimeKind) return TrainerKind::kClusterTrainingRuntime;
  if (kind == kOptimizationJobKind) return TrainerKind::kOptimizationJob;
  return TrainerKind::kUnknown;
}

AdmissionScope AdmissionScope::of(const ObjectSet& objects, std::string default_namespace) {
  AdmissionScope scope;
  scope.default_namespace = std::move(default_namespace);
  scope.training_runtimes.reserve(objects.training_runtimes.size());
  for (const auto& rt : objects.training_runtimes) scope.training_runtimes.push_back(&rt);
  scope.cluster_training_runtimes.reserve(objects.cluster_training_runtimes.size());
  for (const auto& rt : objects.cluster_training_runtimes) {
    scope.cluster_training_runtimes.push_back(&rt);
  }
  scope.existing_objects.reserve(objects.other_objects.size());
  for (const auto& obj : objects.other_objects) scope.existing_objects.push_back(&obj);
  return scope;
}

RuntimeRefMatch find_runtime(const AdmissionScope& scope, const TrainJob& job) {
  RuntimeRefMatch match;
  const auto& ref = job.spec.runtime_ref;
  if (ref.api_group.value_or(kGroup) != kGroup) return match;
  const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
  if (kind == kTrainingRuntimeKind) {
    const auto job_ns = namespace_or_default(job.metadata.namespace_);
    for (const auto* rt : scope.training_runtimes) {
      if (rt->metadata.name == ref.name &&
          namespace_or_default(rt->metadata.namespace_) == job_ns) {
        match.training_runtime = rt;
        break;
      }
    }
  } else if (kind == kClusterTrainingRuntimeKind) {
    for (const auto* rt : scope.cluster_training_runtimes) {
      if (rt->metadata.name == ref.name) {
        match.cluster_training_runtime = rt;
        break;
      }
    }
  }
  return match;
}

Result<ValidationResult> admit_object(const TrainJob& job, const AdmissionScope& scope,
                                      const RenderContext& ctx, const Framework* framework,
                                      MissingRuntime missing) {
  return admit_train_job(job, scope, ctx, framework, missing, nullptr);
}

Result<ValidationResult> admit_object(const OptimizationJob& job, const AdmissionScope& scope,
                                      const RenderContext& ctx, const Framework* framework,
                                      MissingRuntime missing) {
  return admit_optimization_job(job, scope, ctx, framework, missing);
}

Result<ValidationResult> admit_update(const TrainJob& old_job, const TrainJob& job,
                                      const AdmissionScope& scope, const RenderContext& ctx,
                                      const Framework* framework, MissingRuntime missing) {
  return admit_train_job(job, scope, ctx, framework, missing, nullptr, {}, &old_job);
}

Result<ValidationResult> admit_update(const OptimizationJob& old_job, const OptimizationJob& job,
                                      const AdmissionScope& scope, const RenderContext& ctx,
                                      const Framework* framework, MissingRuntime missing) {
  return admit_optimization_job(job, scope, ctx, framework, missing, &old_job);
}

ValidationResult admit_update(const TrainingRuntime& old_runtime, const TrainingRuntime& runtime) {
  return validate_training_runtime_update(old_runtime, runtime);
}

ValidationResult admit_update(const ClusterTrainingRuntime& old_runtime,
                              const ClusterTrainingRuntime& runtime) {
  return validate_cluster_training_runtime_update(old_runtime, runtime);
}

ValidationResult admit_object(const TrainingRuntime& runtime) {
  return validate_training_runtime(runtime);
}

ValidationResult admit_object(const ClusterTrainingRuntime& runtime) {
  return validate_cluster_training_runtime(runtime);
}

Result<Admission> admit(const std::vector<json::value>& documents, const RenderContext& ctx,
                        const AdmissionOptions& options) {
  return detail::admit(documents, ctx, options, nullptr);
}

Result<Admission> admit(std::vector<json::value>&& documents, const RenderContext& ctx,
                        const AdmissionOptions& options) {
  return detail::admit(std::move(documents), ctx, options, nullptr);
}

namespace detail {

std::string job_key(const TrainJob& job) {
  return train_job_namespace(job) + "/" + job.metadata.name.value_or("");
}

Result<Admission> admit(std::vector<json::value> documents, const RenderContext& ctx,
                        const AdmissionOptions& options, std::vector<AdmittedJob>* jobs) {
  const std::string ns =
      options.namespace_.empty() ? std::string(kDefaultNamespace) : options.namespace_;
  if (options.builtin_runtimes) {
    auto added = add_referenced_builtin_runtimes(documents);
    if (!added) return tl::unexpected(added.error());
  }
  for (auto& doc : documents) {
    auto r = apply_namespace(doc, ns, !options.namespace_.empty());
    if (!r) return tl::unexpected(r.error());
  }
  Admission out;
  std::vector<Entry> entries;
  Result<void> admitted;
  for (std::size_t i = 0; i < documents.size() && admitted; ++i) {
    admitted = decode_document(documents[i], "document " + std::to_string(i + 1), out.objects,
                               entries, options.strict_fields);
  }
  // TrainJobs are admitted once every runtime of the call is known, so that the order of the
  // inputs does not matter.
  if (admitted) {
    admitted = admit_entries(entries, ctx, options, ns, out, jobs);
  } else {
    for (auto& entry : entries) {
      for (auto& w : entry.decode_warnings) out.warnings.push_back(std::move(w));
    }
  }
  if (options.on_warning) {
    for (const auto& w : out.warnings) options.on_warning(w);
  }
  if (!admitted) return tl::unexpected(std::move(admitted).error());
  // Moved, never copied: the runtimes in `jobs` point into its vectors.
  return Result<Admission>(std::move(out));
}

RenderContext with_existing_objects(const RenderContext& ctx,
                                    std::vector<const json::value*> objects,
                                    std::string default_namespace) {
  RenderContext out = ctx;
  if (objects.empty()) return out;
  out.lookup = [objects = std::move(objects), outer = ctx.lookup,
                default_namespace = std::move(default_namespace)](
                   std::string_view api_version, std::string_view kind, std::string_view ns,
                   std::string_view name) -> std::optional<json::value> {
    for (const auto* v : objects) {
      if (!v->is_object()) continue;
      const auto& obj = v->get_object();
      if (find_string(obj, "apiVersion").value_or("") != api_version ||
          find_string(obj, "kind").value_or("") != kind) {
        continue;
      }
      const auto* meta = find_object(obj, {"metadata"});
      if (meta == nullptr || find_string(*meta, "name").value_or("") != name) continue;
      const std::string obj_ns = find_string(*meta, "namespace").value_or("");
      if (obj_ns == ns || (obj_ns.empty() && ns == default_namespace)) return *v;
    }
    if (outer) return outer(api_version, kind, ns, name);
    return std::nullopt;
  };
  return out;
}

}  // namespace detail
}  // namespace trainer
