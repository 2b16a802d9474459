// SPDX-License-Identifier: Apache-2.0
//
// TrainJob CRD rules (reference 1.2-1.7). Fields are visited in the CRD's field order; for each
// field its schema errors come first, then its CEL rules, then its children.
#include "api/ascii.hpp"
#include "validation/quantity_rules.hpp"
#include "validation/rules.hpp"

#include "trainer/validation.hpp"

#include <algorithm>
#include <regex>
#include <string>

namespace trainer::detail {
namespace {

constexpr const char* kImmutable = "field is immutable";

using ascii::is_alpha;
using ascii::is_digit;
using ascii::is_lower_alnum;

// `^[a-z]([-a-z0-9]*[a-z0-9])?$`
bool is_rfc1035_label_format(std::string_view s) {
  if (s.empty() || !(s.front() >= 'a' && s.front() <= 'z')) return false;
  if (!is_lower_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_lower_alnum(c) || c == '-'; });
}

// `self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')` with RE2 semantics, where `.`
// does not match a newline.
bool is_storage_uri(std::string_view s) {
  if (s.empty()) return true;
  if (!is_alpha(s.front())) return false;
  std::size_t i = 1;
  while (i < s.size() &&
         (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-')) {
    ++i;
  }
  if (s.substr(i, 3) != "://") return false;
  const std::string_view rest = s.substr(i + 3);
  return !rest.empty() && rest.find('\n') == std::string_view::npos;
}

void root_rules(const TrainJob& job, Errors& errs) {
  // A missing name is generated (generateName) before the API server evaluates these rules.
  if (!job.metadata.name) return;
  const std::string& name = *job.metadata.name;
  // Object-level rules: reported at the nil path, and the value (an object) is omitted.
  if (!is_rfc1035_label_format(name)) {
    errs.push_back(
        cel_invalid(kRootPath, std::nullopt, "metadata.name must match RFC 1035 DNS label format"));
  }
  if (utf8_length(name) > 63) {
    errs.push_back(
        cel_invalid(kRootPath, std::nullopt, "metadata.name must be no more than 63 characters"));
  }
}

void runtime_ref_rules(const RuntimeRef& ref, const RuntimeRef* old, Errors& errs) {
  const FieldPath path("spec.runtimeRef");
  const FieldPath name_path = FieldPath::field(path, "name");
  if (ref.name.empty()) {
    errs.push_back(field_required(name_path.str(), ""));
  } else {
    check_max_length(errs, name_path, ref.name, 253);
  }
  if (ref.api_group)
    check_max_length(errs, FieldPath::field(path, "apiGroup"), *ref.api_group, 253);
  if (ref.kind) check_max_length(errs, FieldPath::field(path, "kind"), *ref.kind, 253);
  if (old != nullptr &&
      (old->name != ref.name || old->api_group != ref.api_group || old->kind != ref.kind)) {
    errs.push_back(cel_invalid(path.str(), std::nullopt, kImmutable));
  }
}

void storage_initializer_rules(const StorageInitializer& init, const FieldPath& path,
                               Errors& errs) {
  if (init.storage_uri) {
    const FieldPath uri_path = FieldPath::field(path, "storageUri");
    check_max_length(errs, uri_path, *init.storage_uri, 2048);
    if (!is_storage_uri(*init.storage_uri)) {
      errs.push_back(
          cel_invalid(uri_path.str(), boost::json::value(*init.storage_uri),
                      "storageUri may be empty, or it must be a valid URI (scheme://...)"));
    }
  }
  check_named_object_list(errs, FieldPath::field(path, "env"), init.env, 128, {"name"});
}

void initializer_rules(const Initializer& init, const Initializer* old, Errors& errs) {
  const FieldPath path("spec.initializer");
  if (old != nullptr && !cel_equal(init, *old)) {
    errs.push_back(cel_invalid(path.str(), std::nullopt, kImmutable));
  }
  if (init.dataset)
    storage_initializer_rules(*init.dataset, FieldPath::field(path, "dataset"), errs);
  if (init.model) storage_initializer_rules(*init.model, FieldPath::field(path, "model"), errs);
}

void string_list_rules(const std::vector<std::string>& list, const FieldPath& path, Errors& errs) {
  check_max_items(errs, path, list.size(), 128);
  for (std::size_t i = 0; i < list.size(); ++i) {
    check_max_length(errs, FieldPath::index(path, i), list[i], 1048576);
  }
}

void trainer_rules(const Trainer& trainer, const Trainer* old, Errors& errs) {
  const FieldPath path("spec.trainer");
  if (old != nullptr && !cel_equal(trainer, *old)) {
    errs.push_back(cel_invalid(path.str(), std::nullopt, kImmutable));
  }
  if (trainer.image) check_max_length(errs, FieldPath::field(path, "image"), *trainer.image, 500);
  if (trainer.command) string_list_rules(*trainer.command, FieldPath::field(path, "command"), errs);
  if (trainer.args) string_list_rules(*trainer.args, FieldPath::field(path, "args"), errs);
  check_named_object_list(errs, FieldPath::field(path, "env"), trainer.env, 128, {"name"});
  if (trainer.num_nodes)
    check_minimum(errs, FieldPath::field(path, "numNodes"), *trainer.num_nodes, 0);
  // libtrainer's own bound (the CRD has none): no runtime is needed to see that a TrainJob of
  // this many nodes has more pods than any TrainJob may have.
  if (trainer.num_nodes && *trainer.num_nodes > kMaxPodsPerTrainJob) {
    errs.push_back(field_invalid(FieldPath::field(path, "numNodes").str(),
                                 boost::json::value(*trainer.num_nodes),
                                 "must be no more than " + std::to_string(kMaxPodsPerTrainJob) +
                                     ", the most pods a TrainJob may have"));
  }
  if (trainer.resources_per_node) {
    check_resource_requirements(errs, FieldPath::field(path, "resourcesPerNode"),
                                *trainer.resources_per_node);
  }
  if (trainer.num_proc_per_node && *trainer.num_proc_per_node < 1) {
    errs.push_back(cel_invalid(FieldPath::field(path, "numProcPerNode").str(),
                               boost::json::value(*trainer.num_proc_per_node),
                               "numProcPerNode must be greater than or equal to 1"));
  }
}

void container_patches_rules(const std::vector<ContainerPatch>& containers, const FieldPath& path,
                             Errors& errs) {
  check_max_items(errs, path, containers.size(), 64);
  std::vector<std::optional<boost::json::value>> keys;
  keys.reserve(containers.size());
  for (const auto& c : containers) keys.emplace_back(boost::json::value(c.name));
  check_unique_map_keys(errs, path, "name", keys);
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const FieldPath item = FieldPath::index(path, i);
    const ContainerPatch& c = containers[i];
    if (c.name.empty()) {
      errs.push_back(field_required(FieldPath::field(item, "name").str(), ""));
    } else {
      check_max_length(errs, FieldPath::field(item, "name"), c.name, 253);
    }
    check_named_object_list(errs, FieldPath::field(item, "env"), c.env, 128, {"name"});
    check_named_object_list(errs, FieldPath::field(item, "volumeMounts"), c.volume_mounts, 128,
                            {"mountPath", "name"});
  }
}

void pod_spec_patch_rules(const PodSpecPatch& spec, const PodSpecPatch* old, const FieldPath& path,
                          Errors& errs) {
  // Transition rules of a field apply only when the old object has it too; for lists that are
  // omitempty, "present" means non-empty.
  const auto changed = [&](const std::string& field, bool present_both, bool equal) {
    if (old != nullptr && present_both && !equal) {
      errs.push_back(cel_invalid(FieldPath::field(path, field).str(), std::nullopt, kImmutable));
    }
  };
  if (spec.service_account_name) {
    const FieldPath p = FieldPath::field(path, "serviceAccountName");
    check_max_length(errs, p, *spec.service_account_name, 253);
    if (old != nullptr && old->service_account_name &&
        *old->service_account_name != *spec.service_account_name) {
      errs.push_back(
          cel_invalid(p.str(), boost::json::value(*spec.service_account_name), kImmutable));
    }
  }
  check_named_object_list(errs, FieldPath::field(path, "volumes"), spec.volumes, 128, {"name"});
  for (std::size_t i = 0; i < spec.volumes.size(); ++i) {
    check_volume_quantities(errs, FieldPath::index(FieldPath::field(path, "volumes"), i),
                            spec.volumes[i]);
  }
  changed("volumes", old && !spec.volumes.empty() && !old->volumes.empty(),
          old && cel_equal_volumes(spec.volumes, old->volumes));
  container_patches_rules(spec.init_containers, FieldPath::field(path, "initContainers"), errs);
  changed("initContainers", old && !spec.init_containers.empty() && !old->init_containers.empty(),
          old && cel_equal(spec.init_containers, old->init_containers));
  container_patches_rules(spec.containers, FieldPath::field(path, "containers"), errs);
  changed("containers", old && !spec.containers.empty() && !old->containers.empty(),
          old && cel_equal(spec.containers, old->containers));
  {
    const FieldPath p = FieldPath::field(path, "imagePullSecrets");
    check_max_items(errs, p, spec.image_pull_secrets.size(), 64);
    std::vector<std::optional<boost::json::value>> keys;
    for (const auto& s : spec.image_pull_secrets) {
      // `name` defaults to "" (Kubernetes LocalObjectReference), so the key is always present.
      keys.emplace_back(boost::json::value(s.name.value_or("")));
    }
    check_unique_map_keys(errs, p, "name", keys);
    changed("imagePullSecrets",
            old && !spec.image_pull_secrets.empty() && !old->image_pull_secrets.empty(),
            old && cel_equal(spec.image_pull_secrets, old->image_pull_secrets));
  }
  changed("securityContext", old && spec.security_context && old->security_context,
          old && spec.security_context == old->security_context);
  check_max_items(errs, FieldPath::field(path, "tolerations"), spec.tolerations.size(), 128);
  check_named_object_list(errs, FieldPath::field(path, "schedulingGates"), spec.scheduling_gates,
                          16, {"name"});
  if (spec.termination_grace_period_seconds) {
    const FieldPath p = FieldPath::field(path, "terminationGracePeriodSeconds");
    check_minimum(errs, p, *spec.termination_grace_period_seconds, 0);
    if (old != nullptr && old->termination_grace_period_seconds &&
        *old->termination_grace_period_seconds != *spec.termination_grace_period_seconds) {
      errs.push_back(cel_invalid(
          p.str(), boost::json::value(*spec.termination_grace_period_seconds), kImmutable));
    }
  }
}

const PodSpecPatch* pod_spec_of(const ReplicatedJobPatch& job) {
  if (job.template_ && job.template_->spec && job.template_->spec->template_ &&
      job.template_->spec->template_->spec) {
    return &*job.template_->spec->template_->spec;
  }
  return nullptr;
}

const JobSetSpecPatch* jobset_spec_of(const RuntimePatch& patch) {
  if (patch.training_runtime_spec && patch.training_runtime_spec->template_ &&
      patch.training_runtime_spec->template_->spec) {
    return &*patch.training_runtime_spec->template_->spec;
  }
  return nullptr;
}

void jobset_spec_patch_rules(const JobSetSpecPatch& spec, const JobSetSpecPatch* old,
                             const FieldPath& path, Errors& errs) {
  const FieldPath jobs_path = FieldPath::field(path, "replicatedJobs");
  const auto& jobs = spec.replicated_jobs;
  check_max_items(errs, jobs_path, jobs.size(), 100);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& j : jobs) keys.emplace_back(boost::json::value(j.name));
  check_unique_map_keys(errs, jobs_path, "name", keys);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const FieldPath item = FieldPath::index(jobs_path, i);
    if (jobs[i].name.empty()) {
      errs.push_back(field_required(FieldPath::field(item, "name").str(), ""));
    } else {
      check_max_length(errs, FieldPath::field(item, "name"), jobs[i].name, 253);
    }
    const PodSpecPatch* pod = pod_spec_of(jobs[i]);
    if (pod == nullptr) continue;
    // CEL correlates entries of a map list by key: the old entry is the one with the same name.
    const PodSpecPatch* old_pod = nullptr;
    if (old != nullptr) {
      const auto it =
          std::find_if(old->replicated_jobs.begin(), old->replicated_jobs.end(),
                       [&](const ReplicatedJobPatch& o) { return o.name == jobs[i].name; });
      if (it != old->replicated_jobs.end()) old_pod = pod_spec_of(*it);
    }
    pod_spec_patch_rules(*pod, old_pod, FieldPath::field(item, "template.spec.template.spec"),
                         errs);
  }
}

void runtime_patches_rules(const std::vector<RuntimePatch>& patches,
                           const std::vector<RuntimePatch>* old, Errors& errs) {
  const FieldPath path("spec.runtimePatches");
  check_max_items(errs, path, patches.size(), 16);
  std::vector<std::optional<boost::json::value>> keys;
  for (const auto& p : patches) keys.emplace_back(boost::json::value(p.manager));
  check_unique_map_keys(errs, path, "manager", keys);
  for (std::size_t i = 0; i < patches.size(); ++i) {
    const FieldPath item = FieldPath::index(path, i);
    const RuntimePatch& patch = patches[i];
    const RuntimePatch* old_patch = nullptr;
    if (old != nullptr) {
      const auto it = std::find_if(old->begin(), old->end(), [&](const RuntimePatch& o) {
        return o.manager == patch.manager;
      });
      if (it != old->end()) old_patch = &*it;
    }
    if (patch.manager.empty()) {
      errs.push_back(field_required(FieldPath::field(item, "manager").str(), ""));
    } else {
      check_max_length(errs, FieldPath::field(item, "manager"), patch.manager, 253);
    }
    // `manager: self == oldSelf` is evaluated on the old entry with the same key, which by
    // construction has the same manager: renaming a manager replaces one entry with another, so
    // this rule can never fail. Nothing to check.
    if (const JobSetSpecPatch* spec = jobset_spec_of(patch)) {
      const JobSetSpecPatch* old_spec = old_patch != nullptr ? jobset_spec_of(*old_patch) : nullptr;
      jobset_spec_patch_rules(*spec, old_spec,
                              FieldPath::field(item, "trainingRuntimeSpec.template.spec"), errs);
    }
  }
}

}  // namespace

void condition_rules(const Condition& c, const FieldPath& path, Errors& errs) {
  static const std::regex kTypePattern(
      R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)");
  static const std::regex kReasonPattern(R"(^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$)");
  const FieldPath type_path = FieldPath::field(path, "type");
  if (c.type.empty()) {
    errs.push_back(field_required(type_path.str(), ""));
  } else {
    check_max_length(errs, type_path, c.type, 316);
    if (!std::regex_match(c.type, kTypePattern)) {
      report_pattern(
          errs, type_path, c.type,
          R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)");
    }
  }
  if (c.status.empty()) {
    errs.push_back(field_required(FieldPath::field(path, "status").str(), ""));
  } else {
    check_enum(errs, FieldPath::field(path, "status"), c.status, {"True", "False", "Unknown"});
  }
  if (c.observed_generation) {
    check_minimum(errs, FieldPath::field(path, "observedGeneration"), *c.observed_generation, 0);
  }
  if (c.last_transition_time.empty()) {
    errs.push_back(field_required(FieldPath::field(path, "lastTransitionTime").str(), ""));
  }
  const FieldPath reason_path = FieldPath::field(path, "reason");
  if (c.reason.empty()) {
    errs.push_back(field_required(reason_path.str(), ""));
  } else {
    check_max_length(errs, reason_path, c.reason, 1024);
    if (!std::regex_match(c.reason, kReasonPattern)) {
      report_pattern(errs, reason_path, c.reason, "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
    }
  }
  check_max_length(errs, FieldPath::field(path, "message"), c.message, 32768);
}

namespace {

void job_status_rules(const JobStatus& s, const FieldPath& path, Errors& errs) {
  if (s.name.empty()) {
    errs.push_back(field_required(FieldPath::field(path, "name").str(), ""));
  } else {
    check_max_length(errs, FieldPath::field(path, "name"), s.name, 253);
  }
  const std::pair<const char*, const std::optional<std::int32_t>*> counters[] = {
      {"ready", &s.ready},
      {"succeeded", &s.succeeded},
      {"failed", &s.failed},
      {"active", &s.active},
      {"suspended", &s.suspended}};
  for (const auto& [field, value] : counters) {
    if (!value->has_value()) {
      errs.push_back(field_required(FieldPath::field(path, field).str(), ""));
    } else {
      check_minimum(errs, FieldPath::field(path, field), **value, 0);
    }
  }
}

void trainer_status_rules(const TrainerStatus& s, Errors& errs) {
  const FieldPath path("status.trainerStatus");
  if (!s.last_updated_time) {
    errs.push_back(cel_invalid(path.str(), std::nullopt,
                               "lastUpdatedTime is required when trainerStatus is present"));
  }
  if (s.progress_percentage) {
    check_minimum(errs, FieldPath::field(path, "progressPercentage"), *s.progress_percentage, 0);
    check_maximum(errs, FieldPath::field(path, "progressPercentage"), *s.progress_percentage, 100);
  }
  if (s.estimated_remaining_seconds) {
    check_minimum(errs, FieldPath::field(path, "estimatedRemainingSeconds"),
                  *s.estimated_remaining_seconds, 0);
  }
  const FieldPath metrics_path = FieldPath::field(path, "metrics");
  check_max_items(errs, metrics_path, s.metrics.size(), 256);
  for (std::size_t i = 0; i < s.metrics.size(); ++i) {
    const FieldPath item = FieldPath::index(metrics_path, i);
    const std::pair<const char*, const std::string*> fields[] = {{"name", &s.metrics[i].name},
                                                                 {"value", &s.metrics[i].value}};
    for (const auto& [field, value] : fields) {
      if (value->empty()) {
        errs.push_back(field_required(FieldPath::field(item, field).str(), ""));
      } else {
        check_max_length(errs, FieldPath::field(item, field), *value, 64);
      }
    }
  }
}

void status_rules(const TrainJobStatus& status, Errors& errs) {
  const std::size_t properties = (status.conditions.empty() ? 0U : 1U) +
                                 (status.jobs_status.empty() ? 0U : 1U) +
                                 (status.trainer_status ? 1U : 0U);
  if (properties == 0) {
    // kube-openapi stops at minProperties and validates nothing below.
    errs.push_back(field_invalid("status", boost::json::value(0),
                                 "status in body should have at least 1 properties"));
    return;
  }
  {
    const FieldPath path("status.conditions");
    check_max_items(errs, path, status.conditions.size(), 8);
    std::vector<std::optional<boost::json::value>> keys;
    for (const auto& c : status.conditions) keys.emplace_back(boost::json::value(c.type));
    check_unique_map_keys(errs, path, "type", keys);
    for (std::size_t i = 0; i < status.conditions.size(); ++i) {
      condition_rules(status.conditions[i], FieldPath::index(path, i), errs);
    }
  }
  {
    const FieldPath path("status.jobsStatus");
    check_max_items(errs, path, status.jobs_status.size(), 100);
    std::vector<std::optional<boost::json::value>> keys;
    for (const auto& j : status.jobs_status) keys.emplace_back(boost::json::value(j.name));
    check_unique_map_keys(errs, path, "name", keys);
    for (std::size_t i = 0; i < status.jobs_status.size(); ++i) {
      job_status_rules(status.jobs_status[i], FieldPath::index(path, i), errs);
    }
  }
  if (status.trainer_status) trainer_status_rules(*status.trainer_status, errs);
}

}  // namespace

void train_job_rules(const TrainJob& job, const TrainJob* old, Errors& errs) {
  root_rules(job, errs);
  const TrainJobSpec& spec = job.spec;
  const TrainJobSpec* old_spec = old != nullptr ? &old->spec : nullptr;
  runtime_ref_rules(spec.runtime_ref, old_spec != nullptr ? &old_spec->runtime_ref : nullptr, errs);
  if (spec.initializer) {
    initializer_rules(
        *spec.initializer,
        old_spec != nullptr && old_spec->initializer ? &*old_spec->initializer : nullptr, errs);
  }
  if (spec.trainer) {
    trainer_rules(*spec.trainer,
                  old_spec != nullptr && old_spec->trainer ? &*old_spec->trainer : nullptr, errs);
  }
  runtime_patches_rules(spec.runtime_patches,
                        old_spec != nullptr ? &old_spec->runtime_patches : nullptr, errs);
  if (spec.active_deadline_seconds) {
    const FieldPath p("spec.activeDeadlineSeconds");
    check_minimum(errs, p, *spec.active_deadline_seconds, 1);
    if (old_spec != nullptr && old_spec->active_deadline_seconds &&
        *old_spec->active_deadline_seconds != *spec.active_deadline_seconds) {
      errs.push_back(
          cel_invalid(p.str(), boost::json::value(*spec.active_deadline_seconds), kImmutable));
    }
  }
  if (spec.managed_by) {
    const FieldPath p("spec.managedBy");
    const std::string& v = *spec.managed_by;
    check_max_length(errs, p, v, 253);
    if (v != kManagedByTrainer && v != kManagedByMultiKueue) {
      errs.push_back(cel_invalid(p.str(), boost::json::value(v),
                                 "ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
                                 "kueue.x-k8s.io/multikueue if set"));
    }
    if (old_spec != nullptr && old_spec->managed_by && *old_spec->managed_by != v) {
      errs.push_back(cel_invalid(p.str(), boost::json::value(v), kImmutable));
    }
  }
  if (job.status) status_rules(*job.status, errs);
}

}  // namespace trainer::detail
