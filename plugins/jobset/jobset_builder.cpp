// SPDX-License-Identifier: Apache-2.0
//
// Build (reference 4.1.3-4.1.5): the JobSet as the controller applies it.
#include "jobset_internal.hpp"

#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"

#include <string>
#include <utility>

namespace trainer::plugins::jobset {
namespace {

namespace json = boost::json;

constexpr const char* kStorageUriEnv = "STORAGE_URI";

json::array string_array(const std::vector<std::string>& items) {
  json::array a;
  a.reserve(items.size());
  for (const auto& s : items) a.emplace_back(s);
  return a;
}

std::string_view ancestor_of(const json::object& rjob) {
  const auto* labels = find_object(rjob, {"template", "metadata", "labels"});
  return labels != nullptr ? string_view_at(*labels, kAncestorLabel) : std::string_view();
}

bool named(const json::value& v, std::string_view name) {
  return v.is_object() && string_view_at(v.get_object(), "name") == name;
}

// `x`, moved from when `Take` (the Info is given up), else copied from.
template <bool Take, class T>
decltype(auto) given(T& x) {
  if constexpr (Take) {
    return std::move(x);
  } else {
    return static_cast<const T&>(x);
  }
}

// PodSet container -> template container, by position. `C`: `Container`, or a `const
// Container` when the Info is kept.
template <bool Take, class C>
void sync_container(json::object& target, C& c) {
  if (!c.command.empty()) target["command"] = string_array(c.command);
  if (!c.image.empty()) target["image"] = c.image;
  if (!c.env.empty()) upsert_env(ensure_array(target, "env"), given<Take>(c.env));
  for (auto& p : c.ports) {
    if (p.is_object()) upsert_port(ensure_array(target, "ports"), given<Take>(p.get_object()));
  }
  for (auto& m : c.volume_mounts) {
    if (m.is_object()) {
      upsert_volume_mount(ensure_array(target, "volumeMounts"), given<Take>(m.get_object()));
    }
  }
}

// `PodSets`: the Info's `std::vector<PodSet>`, const when the Info is kept.
template <bool Take, class PodSets>
Result<void> sync_pod_sets(json::array& jobs, PodSets& pod_sets) {
  if (jobs.size() < pod_sets.size()) {
    return fail(ErrorCode::kInternal, "runtime template has " + std::to_string(jobs.size()) +
                                          " replicatedJobs but runtime info has " +
                                          std::to_string(pod_sets.size()) + " podSets");
  }
  for (std::size_t p = 0; p < pod_sets.size(); ++p) {
    auto& ps = pod_sets[p];
    if (!jobs[p].is_object()) continue;
    auto& pod_spec = ensure_object(jobs[p].get_object(), {"template", "spec", "template", "spec"});
    for (auto& v : ps.volumes) {
      if (v.is_object()) {
        upsert_volume(ensure_array(pod_spec, "volumes"), given<Take>(v.get_object()));
      }
    }
    if (!ps.containers.empty()) {
      auto& containers = ensure_array(pod_spec, "containers");
      if (containers.size() < ps.containers.size()) {
        return fail(ErrorCode::kInternal,
                    "replicated job " + ps.name + " has " + std::to_string(containers.size()) +
                        " containers but its podSet has " + std::to_string(ps.containers.size()));
      }
      for (std::size_t c = 0; c < ps.containers.size(); ++c) {
        if (!containers[c].is_object()) containers[c] = json::object();
        sync_container<Take>(containers[c].get_object(), ps.containers[c]);
      }
    }
    if (!ps.init_containers.empty()) {
      auto& inits = ensure_array(pod_spec, "initContainers");
      for (std::size_t c = 0; c < ps.init_containers.size(); ++c) {
        if (c >= inits.size()) {
          // A new init container (e.g. Flux's installer): name only, then filled below.
          json::object added;
          added["name"] = ps.init_containers[c].name;
          inits.emplace_back(std::move(added));
        }
        if (!inits[c].is_object()) inits[c] = json::object();
        sync_container<Take>(inits[c].get_object(), ps.init_containers[c]);
      }
    }
  }
  return {};
}

json::array apply_form(const std::vector<json::object>& env) {
  json::array out;
  out.reserve(env.size());
  for (const auto& e : env) out.emplace_back(env_to_apply_form(e));
  return out;
}

// Builder.Initializer: STORAGE_URI, the initializer's env, then its secretRef as envFrom.
void build_initializers(json::array& jobs, const TrainJob& job) {
  for (auto& rjob_value : jobs) {
    if (!rjob_value.is_object()) continue;
    auto& rjob = rjob_value.get_object();
    const std::string_view ancestor = ancestor_of(rjob);
    const StorageInitializer* config = nullptr;
    if (ancestor == kAncestorDatasetInitializer) {
      if (job.spec.initializer && job.spec.initializer->dataset) {
        config = &*job.spec.initializer->dataset;
      }
    } else if (ancestor == kAncestorModelInitializer) {
      if (job.spec.initializer && job.spec.initializer->model)
        config = &*job.spec.initializer->model;
    } else {
      continue;
    }
    rjob["replicas"] = 1;
    if (config == nullptr) continue;
    auto* pod_spec = find_object(rjob, {"template", "spec", "template", "spec"});
    auto* containers = pod_spec != nullptr ? find_array(*pod_spec, "containers") : nullptr;
    if (containers == nullptr) continue;
    for (auto& c : *containers) {
      if (!named(c, ancestor)) continue;
      auto& container = c.get_object();
      auto& env = ensure_array(container, "env");
      if (config->storage_uri) {
        upsert_env(env, env_value(kStorageUriEnv, *config->storage_uri));
      }
      upsert_env(env, apply_form(config->env));
      if (env.empty()) container.erase("env");
      if (config->secret_ref) {
        json::object secret;
        secret["name"] = config->secret_ref->name.value_or("");
        json::object source;
        source["secretRef"] = std::move(secret);
        ensure_array(container, "envFrom").emplace_back(std::move(source));
      }
    }
  }
}

// Builder.Trainer: replicas, image/command/args and env of the trainer `node` container.
void build_trainer(json::array& jobs, const Info& info, const TrainJob& job) {
  const auto& ml = info.runtime_policy.ml_policy;
  const bool launcher_as_node = ml && ml->mpi && ml->mpi->run_launcher_as_node.value_or(false);
  const Trainer* trainer = job.spec.trainer ? &*job.spec.trainer : nullptr;
  for (auto& rjob_value : jobs) {
    if (!rjob_value.is_object()) continue;
    auto& rjob = rjob_value.get_object();
    const bool is_trainer = ancestor_of(rjob) == kAncestorTrainer;
    const bool is_node = string_view_at(rjob, "name") == kNodeName;
    if (is_trainer) rjob["replicas"] = 1;
    if (!(is_trainer || (launcher_as_node && is_node)) || trainer == nullptr) continue;
    auto* pod_spec = find_object(rjob, {"template", "spec", "template", "spec"});
    auto* containers = pod_spec != nullptr ? find_array(*pod_spec, "containers") : nullptr;
    if (containers == nullptr) continue;
    for (auto& c : *containers) {
      if (!named(c, kNodeName)) continue;
      auto& container = c.get_object();
      if (is_trainer) {
        if (trainer->image) container["image"] = *trainer->image;
        if (trainer->command) container["command"] = string_array(*trainer->command);
        if (trainer->args) container["args"] = string_array(*trainer->args);
      }
      if (!trainer->env.empty()) {
        upsert_env(ensure_array(container, "env"), apply_form(trainer->env));
      }
    }
  }
}

// Scheduler labels/annotations merged into every pod template.
void stamp_pod_metadata(json::array& jobs, const SchedulerInfo& scheduler) {
  for (auto& rjob : jobs) {
    if (!rjob.is_object()) continue;
    if (!scheduler.pod_labels.empty()) {
      auto& labels =
          ensure_object(rjob.get_object(), {"template", "spec", "template", "metadata", "labels"});
      for (const auto& [k, v] : scheduler.pod_labels) labels[k] = v;
    }
    if (!scheduler.pod_annotations.empty()) {
      auto& annotations = ensure_object(
          rjob.get_object(), {"template", "spec", "template", "metadata", "annotations"});
      for (const auto& [k, v] : scheduler.pod_annotations) annotations[k] = v;
    }
  }
}

json::object string_map(const StringMap& m) {
  json::object o;
  o.reserve(m.size());
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

// The JobSet: `info`'s JobSet spec with its PodSets written into it, moved out of `*taken` (the
// same Info, given up) when not null, else copied.
Result<std::vector<json::value>> build_jobset(const Info& info, const TrainJob& job,
                                              const PluginContext& ctx, Info* taken) {
  const std::string name = job.metadata.name.value_or("");
  const std::string ns = train_job_namespace(job);
  // A running JobSet is never re-applied.
  if (const auto existing = ctx.find(kJobSetApiVersion, kJobSetKind, ns, name)) {
    bool existing_suspended = false;
    if (existing->is_object()) {
      if (const auto* spec = find_object(existing->get_object(), {"spec"})) {
        const auto* s = spec->if_contains("suspend");
        existing_suspended = s != nullptr && s->is_bool() && s->get_bool();
      }
    }
    if (!job.spec.suspend.value_or(false) && !existing_suspended) return std::vector<json::value>{};
  }

  json::object spec = taken != nullptr ? std::move(taken->template_spec.jobset_spec)
                                       : info.template_spec.jobset_spec;
  json::array& jobs = ensure_array(spec, "replicatedJobs");
  auto synced = taken != nullptr ? sync_pod_sets<true>(jobs, taken->template_spec.pod_sets)
                                 : sync_pod_sets<false>(jobs, info.template_spec.pod_sets);
  if (!synced) return tl::unexpected(synced.error());
  build_initializers(jobs, job);
  build_trainer(jobs, info, job);
  stamp_pod_metadata(jobs, info.scheduler);
  if (job.spec.suspend) {
    spec["suspend"] = *job.spec.suspend;
  } else {
    spec.erase("suspend");
  }

  json::object meta;
  meta.reserve(5);
  meta["name"] = name;
  meta["namespace"] = ns;
  if (!info.labels.empty()) meta["labels"] = string_map(info.labels);
  if (!info.annotations.empty()) meta["annotations"] = string_map(info.annotations);
  meta["ownerReferences"] =
      json::array{train_job_owner_reference(job, job.metadata.uid.value_or(""))};

  json::object jobset;
  jobset.reserve(4);
  jobset["apiVersion"] = kJobSetApiVersion;
  jobset["kind"] = kJobSetKind;
  jobset["metadata"] = std::move(meta);
  jobset["spec"] = std::move(spec);
  std::vector<json::value> out;
  out.emplace_back(std::move(jobset));
  return out;
}

}  // namespace

Result<std::vector<json::value>> JobSetPlugin::build(const Info& info, const TrainJob& job,
                                                     const PluginContext& ctx) {
  return build_jobset(info, job, ctx, nullptr);
}

Result<std::vector<json::value>> JobSetPlugin::build_taking_info(Info& info, const TrainJob& job,
                                                                 const PluginContext& ctx) {
  return build_jobset(info, job, ctx, &info);
}

}  // namespace trainer::plugins::jobset
