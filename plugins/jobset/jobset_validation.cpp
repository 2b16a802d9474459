// SPDX-License-Identifier: Apache-2.0
//
// Admission rules of the JobSet plugin (reference 2.3.1, J1-J14).
#include "jobset_internal.hpp"

#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/names.hpp"
#include "trainer/plugin_support.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace trainer::plugins::jobset {
namespace {

namespace json = boost::json;

constexpr const char* kRuntimeRefPath = "spec.runtimeRef";
constexpr const char* kRuntimePatchesPath = "spec.runtimePatches";
constexpr const char* kInitializerVolume = "initializer";

const json::array* pod_list(const json::object& rjob, std::string_view key) {
  const auto* pod_spec = find_object(rjob, {"template", "spec", "template", "spec"});
  return pod_spec != nullptr ? find_array(*pod_spec, key) : nullptr;
}

std::string name_of(const json::value& v) {
  return v.is_object() ? find_string(v.get_object(), "name").value_or("") : std::string();
}

json::value runtime_patches_json(const json::value& job_json) {
  const auto* spec = find_object(job_json.get_object(), {"spec"});
  const auto* patches = spec != nullptr ? find_array(*spec, "runtimePatches") : nullptr;
  return patches != nullptr ? json::value(*patches) : json::value(json::array());
}

// The values field errors carry (`spec.runtimeRef`, `spec.runtimePatches` as given), taken from
// the TrainJob's JSON form, which is built on first use: a TrainJob that passes needs none.
class ErrorValues {
 public:
  explicit ErrorValues(const TrainJob& job) : job_(job) {}

  json::value runtime_ref() {
    const auto* spec = find_object(job_json().get_object(), {"spec"});
    const auto* ref = spec != nullptr ? spec->if_contains("runtimeRef") : nullptr;
    return ref != nullptr ? *ref : json::value(json::object());
  }
  json::value runtime_patches() { return runtime_patches_json(job_json()); }

 private:
  const json::value& job_json() {
    if (!json_) json_ = to_json(job_);
    return *json_;
  }
  const TrainJob& job_;
  std::optional<json::value> json_;
};

// J1-J3 (J4-J6): the initializer job, its container and the `initializer` volume mount.
void check_initializer(const json::array& jobs,
                       const std::map<std::string, std::set<std::string>>& names,
                       const std::string& initializer, const char* config, ErrorValues& values,
                       std::vector<FieldError>& errors) {
  auto it = names.find(initializer);
  if (it == names.end()) {
    errors.push_back(field_invalid(
        kRuntimeRefPath, values.runtime_ref(),
        "must have " + initializer + " job when trainJob is configured with input " + config));
    return;
  }
  if (it->second.count(initializer) == 0) {
    errors.push_back(field_invalid(
        kRuntimeRefPath, values.runtime_ref(),
        "must have container with name - " + initializer + " in the " + initializer + " job"));
    return;
  }
  bool has_mount = false;
  for (const auto& rjob : jobs) {
    if (name_of(rjob) != initializer || !rjob.is_object()) continue;
    const auto* containers = pod_list(rjob.get_object(), "containers");
    if (containers == nullptr) continue;
    for (const auto& c : *containers) {
      if (name_of(c) != initializer || !c.is_object()) continue;
      if (const auto* mounts = find_array(c.get_object(), "volumeMounts")) {
        for (const auto& m : *mounts) has_mount = has_mount || name_of(m) == kInitializerVolume;
      }
    }
  }
  if (!has_mount) {
    errors.push_back(field_invalid(kRuntimeRefPath, values.runtime_ref(),
                                   std::string("must have volumeMount with name - ") +
                                       kInitializerVolume + " in container " + initializer +
                                       " of the " + initializer + " job"));
  }
}

// J7-J9: runtime patches change only while the TrainJob is (or becomes) suspended and no job
// of the JobSet is active.
void check_patches_immutability(const TrainJob* old_job, const TrainJob& new_job,
                                const json::value& old_patches, const json::value& new_patches,
                                const PluginContext& ctx, std::vector<FieldError>& errors) {
  if (old_job == nullptr || old_patches == new_patches) return;
  const bool old_suspended = old_job->spec.suspend.value_or(false);
  const bool new_suspended = new_job.spec.suspend.value_or(false);
  if (!old_suspended && !new_suspended) {
    errors.push_back(field_forbidden(kRuntimePatchesPath,
                                     "RuntimePatches can only be modified when the TrainJob is "
                                     "suspended before or after the update"));
    return;
  }
  const auto jobset = ctx.find(kJobSetApiVersion, kJobSetKind, train_job_namespace(new_job),
                               new_job.metadata.name.value_or(""));
  if (!jobset || !jobset->is_object()) return;
  const auto* status = find_object(jobset->get_object(), {"status"});
  const auto* jobs = status != nullptr ? find_array(*status, "replicatedJobsStatus") : nullptr;
  if (jobs == nullptr) return;
  for (const auto& j : *jobs) {
    if (!j.is_object()) continue;
    if (find_int(j.get_object(), "active").value_or(0) > 0) {
      errors.push_back(
          field_forbidden(kRuntimePatchesPath,
                          "RuntimePatches cannot be modified when the JobSet's ReplicatedJob " +
                              name_of(j) + " is still active"));
    }
  }
}

using ContainerNames = std::map<std::string, std::set<std::string>>;

ContainerNames container_names(const json::array& jobs) {
  ContainerNames names;
  for (const auto& rjob : jobs) {
    auto& set = names[name_of(rjob)];
    if (!rjob.is_object()) continue;
    for (const char* key : {"initContainers", "containers"}) {
      if (const auto* list = pod_list(rjob.get_object(), key)) {
        for (const auto& c : *list) set.insert(name_of(c));
      }
    }
  }
  return names;
}

}  // namespace

ValidationResult JobSetPlugin::validate(const Info& info, const TrainJob* old_job,
                                        const TrainJob& new_job, const PluginContext& ctx) {
  ValidationResult result;
  auto& errors = result.errors;
  const json::array empty;
  const auto* jobs_ptr = find_array(info.template_spec.jobset_spec, "replicatedJobs");
  const json::array& jobs = jobs_ptr != nullptr ? *jobs_ptr : empty;

  // Names of the init containers and containers of each replicated job. J1-J6 look at the
  // patched template, as upstream; J11-J13 at the runtime's template before the patches
  // (upstream builds the names from the patched template, where every patched name exists, so
  // these rules never fire in its webhook: docs/upstream-differences.md).
  const auto names = container_names(jobs);
  const auto* runtime_jobs = find_array(info.template_spec.runtime_jobset_spec, "replicatedJobs");
  std::optional<ContainerNames> unpatched;  // kept only when there are patches
  if (runtime_jobs != nullptr) unpatched = container_names(*runtime_jobs);
  const ContainerNames& runtime_names = unpatched ? *unpatched : names;

  ErrorValues values(new_job);
  if (new_job.spec.initializer && new_job.spec.initializer->dataset) {
    check_initializer(jobs, names, kAncestorDatasetInitializer, "datasetConfig", values, errors);
  }
  if (new_job.spec.initializer && new_job.spec.initializer->model) {
    check_initializer(jobs, names, kAncestorModelInitializer, "modelConfig", values, errors);
  }

  if (old_job != nullptr) {
    check_patches_immutability(old_job, new_job, runtime_patches_json(to_json(*old_job)),
                               values.runtime_patches(), ctx, errors);
  }

  for (const auto& patch : new_job.spec.runtime_patches) {
    for (auto& e :
         is_domain_prefixed_path(std::string(kRuntimePatchesPath) + ".manager", patch.manager)) {
      errors.push_back(std::move(e));
    }
    if (!patch.training_runtime_spec || !patch.training_runtime_spec->template_ ||
        !patch.training_runtime_spec->template_->spec) {
      continue;
    }
    for (const auto& rjob_patch : patch.training_runtime_spec->template_->spec->replicated_jobs) {
      auto it = runtime_names.find(rjob_patch.name);
      if (it == runtime_names.end()) {
        errors.push_back(field_invalid(
            kRuntimePatchesPath, values.runtime_patches(),
            "must not have replicated job that doesn't exist in the runtime job template"));
        continue;
      }
      const auto& t = rjob_patch.template_;
      if (!t || !t->spec || !t->spec->template_ || !t->spec->template_->spec) continue;
      const PodSpecPatch& pod = *t->spec->template_->spec;
      for (const auto& c : pod.init_containers) {
        if (it->second.count(c.name) == 0) {
          errors.push_back(
              field_invalid(kRuntimePatchesPath, values.runtime_patches(),
                            "must not have initContainer that doesn't exist in the runtime job " +
                                rjob_patch.name));
        }
      }
      for (const auto& c : pod.containers) {
        if (it->second.count(c.name) == 0) {
          errors.push_back(field_invalid(
              kRuntimePatchesPath, values.runtime_patches(),
              "must not have container that doesn't exist in the runtime job " + rjob_patch.name));
        } else if (!c.env.empty() && (c.name == kAncestorDatasetInitializer ||
                                      c.name == kAncestorModelInitializer || c.name == kNodeName)) {
          errors.push_back(field_invalid(
              kRuntimePatchesPath, values.runtime_patches(),
              std::string("must not have envs for the ") + kAncestorDatasetInitializer + ", " +
                  kAncestorModelInitializer + ", " + kNodeName + " containers"));
        }
      }
    }
  }
  return result;
}

}  // namespace trainer::plugins::jobset
