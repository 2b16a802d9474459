// SPDX-License-Identifier: Apache-2.0
//
// The TrainingRuntime / ClusterTrainingRuntime validating webhooks (reference 2.4). They see the
// typed Go objects, so JSON of the wrong type (already a CRD schema error) is skipped here.
#include "validation/rules.hpp"

#include "trainer/json_path.hpp"

#include "trainer/plugin_support.hpp"

#include <map>

namespace trainer::detail {
namespace {

// Ancestor label value -> the container the job must have.
const std::map<std::string, std::string, std::less<>>& required_containers() {
  static const std::map<std::string, std::string, std::less<>> kRequired = {
      {kAncestorTrainer, kNodeName},
      {kAncestorModelInitializer, kAncestorModelInitializer},
      {kAncestorDatasetInitializer, kAncestorDatasetInitializer},
  };
  return kRequired;
}

}  // namespace

bool webhook_selected(const StringMap& labels) {
  const auto it = labels.find("trainer.kubeflow.org/webhook-validation");
  return it == labels.end() || it->second != "disabled";
}

bool support_deprecated(const StringMap& labels) {
  const auto it = labels.find("trainer.kubeflow.org/support");
  return it != labels.end() && it->second == "deprecated";
}

void ancestor_job_rules(const boost::json::object& jobset_spec, Errors& errs) {
  const auto* jobs_value = jobset_spec.if_contains("replicatedJobs");
  if (jobs_value == nullptr || !jobs_value->is_array()) return;
  const FieldPath jobs_path("spec.template.spec.replicatedJobs");
  const auto& jobs = jobs_value->get_array();
  for (std::size_t idx = 0; idx < jobs.size(); ++idx) {
    const auto* job = jobs[idx].if_object();
    if (job == nullptr) continue;
    const auto* labels = find_object(*job, {"template", "metadata", "labels"});
    const auto* ancestor = labels != nullptr ? labels->if_contains(kAncestorLabel) : nullptr;
    if (ancestor == nullptr || !ancestor->is_string()) continue;
    const auto required = required_containers().find(std::string_view(ancestor->get_string()));
    if (required == required_containers().end()) continue;
    const FieldPath item = FieldPath::index(jobs_path, idx);
    // Input is defaulted: an absent `replicas` is JobSet's default 1.
    std::int64_t replicas = 1;
    if (const auto* r = job->if_contains("replicas")) {
      const auto value = as_integer(*r);
      if (!value) continue;
      replicas = *value;
    }
    if (replicas != 1) {
      errs.push_back(field_invalid(FieldPath::field(item, "replicas").str(),
                                   boost::json::value(replicas), "always must be 1"));
    }
    const auto* pod_spec = find_object(*job, {"template", "spec", "template", "spec"});
    const boost::json::value* containers_value =
        pod_spec != nullptr ? pod_spec->if_contains("containers") : nullptr;
    const boost::json::array* containers =
        containers_value != nullptr ? containers_value->if_array() : nullptr;
    bool found = false;
    if (containers != nullptr) {
      for (const auto& c : *containers) {
        const auto* o = c.if_object();
        const auto* name = o != nullptr ? o->if_contains("name") : nullptr;
        if (name != nullptr && name->is_string() && name->get_string() == required->second) {
          found = true;
          break;
        }
      }
    }
    if (!found) {
      // Go prints the (typed) container list; a nil list marshals as `null`.
      errs.push_back(field_invalid(
          FieldPath::field(item, "template.spec.template.spec.containers").str(),
          containers != nullptr ? boost::json::value(*containers) : boost::json::value(nullptr),
          "must contain the required container for the ancestor: " +
              std::string(ancestor->get_string())));
    }
  }
}

}  // namespace trainer::detail
