// SPDX-License-Identifier: Apache-2.0
//
// Public entry points of include/trainer/validation.hpp: CRD rules first, then the webhook's.
#include "trainer/validation.hpp"

#include "validation/rules.hpp"

#include "trainer/names.hpp"

#include <iterator>

namespace trainer {
namespace {

std::string deprecation_warning(const ObjectMeta& meta) {
  return "ClusterTrainingRuntime \"" + meta.name.value_or("") +
         "\" is deprecated and will be removed in a future release of Kubeflow Trainer. See "
         "runtime deprecation policy: " +
         detail::kRuntimeDeprecationPolicyUrl;
}

ValidationResult runtime_crd_rules(const TrainingRuntimeSpec& spec,
                                   const TrainingRuntimeSpec* old) {
  ValidationResult result;
  detail::runtime_spec_rules(spec, old, result.errors);
  return result;
}

void run_webhook(const TrainingRuntimeSpec& spec, ValidationResult& result) {
  detail::ancestor_job_rules(spec.template_.spec, result.errors);
}

// The API server's ObjectMeta check of every object before its schema (ValidateObjectMeta with
// NameIsDNSSubdomain): a name that is not a DNS subdomain is refused at `metadata.name`. A
// missing name is generated (generateName) before it, so it is not checked.
ValidationResult object_meta_rules(const ObjectMeta& meta) {
  ValidationResult result;
  if (!meta.name) return result;
  for (auto& message : is_dns1123_subdomain(*meta.name)) {
    result.errors.push_back(
        field_invalid("metadata.name", boost::json::value(*meta.name), std::move(message)));
  }
  return result;
}

}  // namespace

void ValidationResult::merge(ValidationResult other) {
  warnings.insert(warnings.end(), std::make_move_iterator(other.warnings.begin()),
                  std::make_move_iterator(other.warnings.end()));
  errors.insert(errors.end(), std::make_move_iterator(other.errors.begin()),
                std::make_move_iterator(other.errors.end()));
}

ValidationResult validate_train_job(const TrainJob& job) {
  ValidationResult result = object_meta_rules(job.metadata);
  detail::train_job_rules(job, nullptr, result.errors);
  return result;
}

ValidationResult validate_train_job_update(const TrainJob& old_job, const TrainJob& new_job) {
  ValidationResult result = object_meta_rules(new_job.metadata);
  detail::train_job_rules(new_job, &old_job, result.errors);
  return result;
}

ValidationResult validate_optimization_job(const OptimizationJob& job) {
  ValidationResult result = object_meta_rules(job.metadata);
  detail::optimization_job_rules(job, nullptr, result.errors);
  return result;
}

ValidationResult validate_optimization_job_update(const OptimizationJob& old_job,
                                                  const OptimizationJob& new_job) {
  ValidationResult result = object_meta_rules(new_job.metadata);
  detail::optimization_job_rules(new_job, &old_job, result.errors);
  return result;
}

ValidationResult validate_training_runtime(const TrainingRuntime& runtime) {
  ValidationResult result = object_meta_rules(runtime.metadata);
  result.merge(runtime_crd_rules(runtime.spec, nullptr));
  if (detail::webhook_selected(runtime.metadata.labels)) run_webhook(runtime.spec, result);
  return result;
}

ValidationResult validate_cluster_training_runtime(const ClusterTrainingRuntime& runtime) {
  ValidationResult result = object_meta_rules(runtime.metadata);
  result.merge(runtime_crd_rules(runtime.spec, nullptr));
  if (detail::webhook_selected(runtime.metadata.labels)) {
    // The webhook returns its warnings together with its errors.
    if (detail::support_deprecated(runtime.metadata.labels)) {
      result.warnings.push_back(deprecation_warning(runtime.metadata));
    }
    run_webhook(runtime.spec, result);
  }
  return result;
}

ValidationResult validate_training_runtime_update(const TrainingRuntime& old_rt,
                                                  const TrainingRuntime& new_rt) {
  // Upstream's TrainingRuntime ValidateUpdate returns nil: only the CRD rules apply.
  ValidationResult result = object_meta_rules(new_rt.metadata);
  result.merge(runtime_crd_rules(new_rt.spec, &old_rt.spec));
  return result;
}

ValidationResult validate_cluster_training_runtime_update(const ClusterTrainingRuntime& old_rt,
                                                          const ClusterTrainingRuntime& new_rt) {
  ValidationResult result = object_meta_rules(new_rt.metadata);
  result.merge(runtime_crd_rules(new_rt.spec, &old_rt.spec));
  // On UPDATE an objectSelector matches when either the old or the new object matches it.
  if (detail::webhook_selected(old_rt.metadata.labels) ||
      detail::webhook_selected(new_rt.metadata.labels)) {
    run_webhook(new_rt.spec, result);
  }
  return result;
}

}  // namespace trainer
