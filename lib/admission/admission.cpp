// SPDX-License-Identifier: Apache-2.0
#include "trainer/admission.hpp"

#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/validation.hpp"

#include <string_view>
#include <utility>

namespace trainer {
namespace {

constexpr std::string_view kDefaultNamespace = "default";

std::string string_field(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return (v != nullptr && v->is_string()) ? std::string(v->get_string()) : std::string();
}

// The group part of `apiVersion` ("" for the core group "v1").
std::string_view api_group(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

std::string_view namespace_or_default(const std::optional<std::string>& ns) {
  return ns && !ns->empty() ? std::string_view(*ns) : kDefaultNamespace;
}

template <class T>
void take_warnings(Decoded<T>& decoded, Admission& out) {
  for (auto& w : decoded.warnings) out.warnings.push_back(std::move(w));
}

void take_result(ValidationResult&& result, Admission& out) {
  for (auto& w : result.warnings) out.warnings.push_back(std::move(w));
  for (auto& e : result.errors) out.errors.push_back(std::move(e));
}

// Decodes, defaults and validates one Trainer document into `out`.
Result<void> admit_trainer_document(const boost::json::value& doc, const std::string& kind,
                                    Admission& out) {
  if (kind == kTrainJobKind) {
    auto decoded = decode_train_job(doc);
    if (!decoded) return tl::unexpected(decoded.error());
    take_warnings(*decoded, out);
    apply_defaults(decoded->object);
    take_result(validate_train_job(decoded->object), out);
    out.objects.train_jobs.push_back(std::move(decoded->object));
    return {};
  }
  if (kind == kTrainingRuntimeKind) {
    auto decoded = decode_training_runtime(doc);
    if (!decoded) return tl::unexpected(decoded.error());
    take_warnings(*decoded, out);
    apply_defaults(decoded->object);
    take_result(validate_training_runtime(decoded->object), out);
    out.objects.training_runtimes.push_back(std::move(decoded->object));
    return {};
  }
  if (kind == kClusterTrainingRuntimeKind) {
    auto decoded = decode_cluster_training_runtime(doc);
    if (!decoded) return tl::unexpected(decoded.error());
    take_warnings(*decoded, out);
    apply_defaults(decoded->object);
    take_result(validate_cluster_training_runtime(decoded->object), out);
    out.objects.cluster_training_runtimes.push_back(std::move(decoded->object));
    return {};
  }
  return fail(ErrorCode::kInvalid, "kind \"" + kind + "\" of group " + kGroup +
                                       " is not supported (supported: TrainJob, "
                                       "TrainingRuntime, ClusterTrainingRuntime)");
}

}  // namespace

RuntimeRefMatch find_runtime(const ObjectSet& objects, const TrainJob& job) {
  RuntimeRefMatch match;
  const auto& ref = job.spec.runtime_ref;
  if (ref.api_group.value_or(kGroup) != kGroup) return match;
  const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
  if (kind == kTrainingRuntimeKind) {
    const auto job_ns = namespace_or_default(job.metadata.namespace_);
    for (const auto& rt : objects.training_runtimes) {
      if (rt.metadata.name == ref.name && namespace_or_default(rt.metadata.namespace_) == job_ns) {
        match.training_runtime = &rt;
        break;
      }
    }
  } else if (kind == kClusterTrainingRuntimeKind) {
    for (const auto& rt : objects.cluster_training_runtimes) {
      if (rt.metadata.name == ref.name) {
        match.cluster_training_runtime = &rt;
        break;
      }
    }
  }
  return match;
}

namespace {

// Sorts one document into `out`; a `v1` `List` (what `trainerctl render -o json` prints) is
// admitted item by item, as kubectl does.
Result<void> admit_document(const boost::json::value& doc, const std::string& where,
                            Admission& out) {
  if (!doc.is_object()) {
    return fail(ErrorCode::kParse,
                where + ": expected an object, not a " + (doc.is_array() ? "list" : "scalar"));
  }
  const auto& obj = doc.get_object();
  const std::string api_version = string_field(obj, "apiVersion");
  const std::string kind = string_field(obj, "kind");
  if (api_version.empty() || kind.empty()) {
    return fail(ErrorCode::kInvalid, where + ": apiVersion and kind must be set on every object");
  }
  if (api_version == "v1" && kind == "List") {
    const auto* items = obj.if_contains("items");
    if (items == nullptr || !items->is_array()) {
      return fail(ErrorCode::kParse, where + ": a List needs an items array");
    }
    const auto& array = items->get_array();
    for (std::size_t i = 0; i < array.size(); ++i) {
      auto r = admit_document(array[i], where + ".items[" + std::to_string(i) + "]", out);
      if (!r) return r;
    }
    return {};
  }
  if (api_group(api_version) == kGroup) return admit_trainer_document(doc, kind, out);
  out.objects.other_objects.push_back(doc);
  return {};
}

}  // namespace

Result<Admission> admit(const std::vector<boost::json::value>& documents) {
  Admission out;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    auto r = admit_document(documents[i], "document " + std::to_string(i + 1), out);
    if (!r) return tl::unexpected(r.error());
  }
  // TrainJobs are checked against their runtime only once every runtime of the call is known,
  // so that the order of -f files does not matter.
  for (const auto& job : out.objects.train_jobs) {
    const auto match = find_runtime(out.objects, job);
    // An unregistered runtime kind is rejected whether or not a runtime came with the job; a
    // registered one that is not among the inputs leaves the job to its own rules.
    const auto& ref = job.spec.runtime_ref;
    const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
    const bool registered = ref.api_group.value_or(kGroup) == kGroup &&
                            (kind == kTrainingRuntimeKind || kind == kClusterTrainingRuntimeKind);
    if (registered && !match.found()) continue;
    RuntimeLookup lookup{match.training_runtime, match.cluster_training_runtime};
    auto result = validate_train_job_runtime(job, lookup);
    if (!result) return tl::unexpected(result.error());
    take_result(std::move(*result), out);
  }
  return out;
}

}  // namespace trainer
