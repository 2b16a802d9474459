// SPDX-License-Identifier: Apache-2.0
//
// The rule walkers shared by the public entry points in lib/validation. Each walker visits one
// object in field order and, when given the old object, also evaluates the CEL transition rules
// (`self == oldSelf`) on fields present in both, like the API server.
#pragma once

#include "trainer/model.hpp"
#include "validation/schema_helpers.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>

namespace trainer::detail {

/// CRD schema + CEL rules of a TrainJob (reference 1.2-1.7). `old` is null on create.
void train_job_rules(const TrainJob& job, const TrainJob* old, Errors& errs);

/// The schema rules of one `metav1.Condition` at `path` (type/reason patterns, status enum, ...).
void condition_rules(const Condition& c, const FieldPath& path, Errors& errs);

/// Where an OptimizationJob keeps the TrainJob spec of its trials.
inline constexpr const char* kTrainJobTemplateSpecPath = "spec.trainJobTemplate.spec";

/// The TrainJob an OptimizationJob's `trainJobTemplate` describes, as the TrainJob rules and
/// webhook see it: the template's metadata in the OptimizationJob's namespace, without a name
/// (trials are named by the controller), and its spec.
[[nodiscard]] TrainJob template_train_job(const OptimizationJob& job);

/// Moves errors reported on a TrainJob (`spec...`, `metadata...`) under an OptimizationJob's
/// `spec.trainJobTemplate`, so that the TrainJob rules and webhook serve the template unchanged.
void reroot_template_errors(Errors& errs);

/// CRD schema + CEL rules of an OptimizationJob (reference 1.15). `old` is null on create.
void optimization_job_rules(const OptimizationJob& job, const OptimizationJob* old, Errors& errs);

/// CRD schema + CEL rules of a runtime spec (1.9-1.11), `path` = `spec`.
void runtime_spec_rules(const TrainingRuntimeSpec& spec, const TrainingRuntimeSpec* old,
                        Errors& errs);

/// The embedded `jobset.x-k8s.io/v1alpha2` JobSetSpec at `spec.template.spec` (1.9). Wrong JSON
/// types are reported as schema type errors, never dereferenced.
void jobset_spec_rules(const boost::json::object& spec, const boost::json::object* old,
                       const FieldPath& path, Errors& errs);

/// Runtime webhook `validateReplicatedJobs` (2.4) over the JobSet spec of a runtime.
void ancestor_job_rules(const boost::json::object& jobset_spec, Errors& errs);

/// Whether the runtime webhooks' objectSelector (`trainer.kubeflow.org/webhook-validation NotIn
/// [disabled]`) selects an object with these labels.
[[nodiscard]] bool webhook_selected(const StringMap& labels);

/// `trainer.kubeflow.org/support: deprecated`.
[[nodiscard]] bool support_deprecated(const StringMap& labels);

/// The deprecation policy page every deprecation warning points to.
inline constexpr const char* kRuntimeDeprecationPolicyUrl =
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"
    "#runtime-deprecation-policy";

// CEL equality (`self == oldSelf`) of the typed TrainJob fields with transition rules. Lists
// declared `x-kubernetes-list-type: map` or `set` compare without regard to order, as CEL does for
// them; atomic lists compare in order.
[[nodiscard]] bool cel_equal(const Initializer& a, const Initializer& b);
[[nodiscard]] bool cel_equal(const Trainer& a, const Trainer& b);
[[nodiscard]] bool cel_equal_volumes(const std::vector<boost::json::object>& a,
                                     const std::vector<boost::json::object>& b);
[[nodiscard]] bool cel_equal(const std::vector<ContainerPatch>& a,
                             const std::vector<ContainerPatch>& b);
[[nodiscard]] bool cel_equal(const std::vector<LocalObjectReference>& a,
                             const std::vector<LocalObjectReference>& b);
/// A JSON list keyed by `key_field` (map list), elements compared as JSON.
[[nodiscard]] bool cel_equal_map_list(const boost::json::array& a, const boost::json::array& b,
                                      std::string_view key_field);

/// Go `json.Marshal` of `RuntimeRef`: `{"name":..,"apiGroup":..,"kind":..}`, optional fields
/// omitted when unset.
[[nodiscard]] boost::json::value runtime_ref_json(const RuntimeRef& ref);

/// The Kubernetes client's NotFound text for the runtime `ref` names (CRD defaults applied):
/// `clustertrainingruntimes.trainer.kubeflow.org "<name>" not found` (or `trainingruntimes`),
/// the text upstream's webhook and controller wrap into their not-found errors.
[[nodiscard]] std::string runtime_not_found_text(const RuntimeRef& ref);

}  // namespace trainer::detail
