// SPDX-License-Identifier: Apache-2.0
//
// TrainingRuntime / ClusterTrainingRuntime CRD rules on the typed part of the spec (reference
// 1.9-1.11); the embedded JobSet spec is handled by jobset_template_rules.cpp.
#include "validation/rules.hpp"

namespace trainer::detail {
namespace {

bool object_meta_empty(const ObjectMeta& m) {
  return !m.name && !m.generate_name && !m.namespace_ && !m.uid && !m.resource_version &&
         !m.generation && !m.creation_timestamp && !m.deletion_timestamp &&
         !m.deletion_grace_period_seconds && m.labels.empty() && m.annotations.empty() &&
         m.finalizers.empty() && m.owner_references.empty() && m.managed_fields.empty();
}

void torch_rules(const TorchMLPolicySource& torch, const FieldPath& path, Errors& errs) {
  if (!torch.env_injection) return;
  const FieldPath targets_path = FieldPath::field(path, "envInjection.targets");
  const auto& targets = torch.env_injection->targets;
  check_max_items(errs, targets_path, targets.size(), 16);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& t : targets) keys.emplace_back(boost::json::value(t.job_name));
  check_unique_map_keys(errs, targets_path, "jobName", keys);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const FieldPath item = FieldPath::index(targets_path, i);
    const EnvInjectionTarget& t = targets[i];
    // Required fields in the CRD's `required` order: containerNames, jobName.
    const FieldPath names_path = FieldPath::field(item, "containerNames");
    if (t.container_names.empty()) errs.push_back(field_required(names_path.str(), ""));
    const FieldPath job_path = FieldPath::field(item, "jobName");
    if (t.job_name.empty()) {
      errs.push_back(field_required(job_path.str(), ""));
    } else {
      check_max_length(errs, job_path, t.job_name, 253);
    }
    if (t.container_names.empty()) continue;
    check_max_items(errs, names_path, t.container_names.size(), 8);
    const std::vector<boost::json::value> items(t.container_names.begin(), t.container_names.end());
    check_unique_set(errs, names_path, items);
    bool has_node = false;
    for (std::size_t j = 0; j < t.container_names.size(); ++j) {
      check_max_length(errs, FieldPath::index(names_path, j), t.container_names[j], 63);
      has_node = has_node || t.container_names[j] == "node";
    }
    if (has_node) {
      errs.push_back(cel_invalid(names_path.str(), std::nullopt,
                                 "containerNames must not include the main node container because "
                                 "PET_* envs are always injected into it"));
    }
  }
}

void ml_policy_rules(const MLPolicy& policy, Errors& errs) {
  const FieldPath path("spec.mlPolicy");
  const int sources = (policy.torch ? 1 : 0) + (policy.mpi ? 1 : 0) + (policy.jax ? 1 : 0) +
                      (policy.xgboost ? 1 : 0) + (policy.flux ? 1 : 0);
  if (sources > 1) {
    errs.push_back(
        cel_invalid(path.str(), std::nullopt, "Only one of the policy can be configured"));
  }
  if (policy.torch) torch_rules(*policy.torch, FieldPath::field(path, "torch"), errs);
  if (policy.mpi) {
    const FieldPath mpi = FieldPath::field(path, "mpi");
    const MPIMLPolicySource& m = *policy.mpi;
    if (m.num_proc_per_node && *m.num_proc_per_node < 1) {
      errs.push_back(cel_invalid(FieldPath::field(mpi, "numProcPerNode").str(),
                                 boost::json::value(*m.num_proc_per_node),
                                 "NumProcPerNode in mpiPolicy must be >= 1"));
    }
    if (m.mpi_implementation) {
      check_enum(errs, FieldPath::field(mpi, "mpiImplementation"), *m.mpi_implementation,
                 {"OpenMPI", ""});
    }
    if (m.ssh_auth_mount_path) {
      check_max_length(errs, FieldPath::field(mpi, "sshAuthMountPath"), *m.ssh_auth_mount_path,
                       4096);
    }
  }
  if (policy.flux && policy.flux->num_proc_per_node && *policy.flux->num_proc_per_node < 1) {
    errs.push_back(cel_invalid(FieldPath::field(path, "flux.numProcPerNode").str(),
                               boost::json::value(*policy.flux->num_proc_per_node),
                               "NumProcPerNode in fluxPolicy must be >= 1"));
  }
}

void pod_group_policy_rules(const PodGroupPolicy& policy, Errors& errs) {
  if (!policy.volcano || !policy.volcano->network_topology) return;
  const FieldPath path("spec.podGroupPolicy.volcano.networkTopology");
  const boost::json::object& topology = *policy.volcano->network_topology;
  if (const auto* mode = topology.if_contains("mode")) {
    if (const auto* s = expect_string(errs, FieldPath::field(path, "mode"), *mode)) {
      check_enum(errs, FieldPath::field(path, "mode"), *s, {"hard", "soft"});
    }
  }
  if (const auto* tier = topology.if_contains("highestTierAllowed")) {
    (void)expect_integer(errs, FieldPath::field(path, "highestTierAllowed"), *tier);
  }
}

}  // namespace

void runtime_spec_rules(const TrainingRuntimeSpec& spec, const TrainingRuntimeSpec* old,
                        Errors& errs) {
  // The typed model cannot tell an absent `template` from an empty one; an empty template is
  // treated as absent, so `template: {}` alone reports the spec-level minProperties error.
  const bool has_template =
      !object_meta_empty(spec.template_.metadata) || !spec.template_.spec.empty();
  const std::size_t properties =
      (spec.ml_policy ? 1U : 0U) + (spec.pod_group_policy ? 1U : 0U) + (has_template ? 1U : 0U);
  if (properties == 0) {
    // kube-openapi stops at minProperties and validates nothing below.
    errs.push_back(field_invalid("spec", boost::json::value(0),
                                 "spec in body should have at least 1 properties"));
    return;
  }
  if (spec.ml_policy) ml_policy_rules(*spec.ml_policy, errs);
  if (spec.pod_group_policy) pod_group_policy_rules(*spec.pod_group_policy, errs);
  if (!spec.template_.spec.empty()) {
    const boost::json::object* old_jobset =
        old != nullptr && !old->template_.spec.empty() ? &old->template_.spec : nullptr;
    jobset_spec_rules(spec.template_.spec, old_jobset, FieldPath("spec.template.spec"), errs);
  }
}

}  // namespace trainer::detail
