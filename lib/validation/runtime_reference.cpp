// SPDX-License-Identifier: Apache-2.0
//
// The TrainJob webhook's runtime resolution (reference 2.3 steps 1-2, without plugin rules).
#include "trainer/validation.hpp"
#include "validation/rules.hpp"

namespace trainer {
namespace {

// Kubernetes `schema.GroupKind.String()`.
std::string group_kind(const RuntimeRef& ref) {
  const std::string group = ref.api_group.value_or("");
  const std::string kind = ref.kind.value_or("");
  return group.empty() ? kind : kind + "." + group;
}

FieldError runtime_missing(const char* path, const TrainJob& job, const char* noun) {
  // The client's NotFound text, as upstream wraps the GET error with %v.
  return field_invalid(path, detail::runtime_ref_json(job.spec.runtime_ref),
                       detail::runtime_not_found_text(job.spec.runtime_ref) + ": specified " +
                           noun + " must be created before the TrainJob is created");
}

}  // namespace

std::string detail::runtime_not_found_text(const RuntimeRef& ref) {
  const bool namespaced = ref.kind.value_or(kClusterTrainingRuntimeKind) == kTrainingRuntimeKind;
  return std::string(namespaced ? "trainingruntimes" : "clustertrainingruntimes") + "." + kGroup +
         " \"" + ref.name + "\" not found";
}

Result<ValidationResult> validate_train_job_runtime(const TrainJob& job,
                                                    const RuntimeLookup& runtime) {
  const std::string key = group_kind(job.spec.runtime_ref);
  const std::string training_key = std::string(kTrainingRuntimeKind) + "." + kGroup;
  const std::string cluster_key = std::string(kClusterTrainingRuntimeKind) + "." + kGroup;
  ValidationResult result;
  if (key == training_key) {
    // The webhook GETs (namespace of the TrainJob, runtimeRef.name); anything else the caller
    // found is not that object. An object without a namespace is in "default" (offline inputs).
    const auto namespace_of = [](const std::optional<std::string>& ns) {
      return ns && !ns->empty() ? *ns : std::string("default");
    };
    const TrainingRuntime* rt = runtime.training_runtime;
    const bool found =
        rt != nullptr && rt->metadata.name == job.spec.runtime_ref.name &&
        namespace_of(rt->metadata.namespace_) == namespace_of(job.metadata.namespace_);
    if (!found) {
      result.errors.push_back(runtime_missing("spec.runtimeRef", job, "trainingRuntime"));
    }
    return result;
  }
  if (key == cluster_key) {
    const ClusterTrainingRuntime* rt = runtime.cluster_training_runtime;
    if (rt == nullptr || rt->metadata.name != job.spec.runtime_ref.name) {
      // `spec.RuntimeRef` with a capital R is upstream's path for this error.
      result.errors.push_back(runtime_missing("spec.RuntimeRef", job, "clusterTrainingRuntime"));
      return result;
    }
    if (detail::support_deprecated(rt->metadata.labels)) {
      result.warnings.push_back("Referenced ClusterTrainingRuntime \"" +
                                rt->metadata.name.value_or("") +
                                "\" is deprecated and will be removed in a future release of "
                                "Kubeflow Trainer. See runtime deprecation policy: " +
                                detail::kRuntimeDeprecationPolicyUrl);
    }
    return result;
  }
  return fail(ErrorCode::kInvalid, "unsupported runtime: " + key);
}

}  // namespace trainer
