// SPDX-License-Identifier: Apache-2.0
//
// Upstream `newRuntimeInfo` (reference 3.6): how a runtime and a TrainJob are merged into the
// `Info` every plugin works on.
#include "framework/runtime_info.hpp"

#include "kube/strategic_merge.hpp"
#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"
#include "trainer/render.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;

std::vector<std::string> string_list(const json::object& obj, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = find_array(obj, key)) {
    for (const auto& v : *a) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
  }
  return out;
}

json::array array_or_empty(const json::object& obj, std::string_view key) {
  const auto* a = find_array(obj, key);
  return a != nullptr ? *a : json::array();
}

// A PodSet container (upstream toPodSetContainer): the fields plugins may change.
Container to_pod_set_container(const json::value& v) {
  Container c;
  if (!v.is_object()) return c;
  const auto& obj = v.get_object();
  c.name = find_string(obj, "name").value_or("");
  c.image = find_string(obj, "image").value_or("");
  c.command = string_list(obj, "command");
  c.env = array_or_empty(obj, "env");
  c.ports = array_or_empty(obj, "ports");
  c.volume_mounts = array_or_empty(obj, "volumeMounts");
  return c;
}

std::vector<Container> to_pod_set_containers(const json::object& pod_spec, std::string_view key) {
  std::vector<Container> out;
  if (const auto* a = find_array(pod_spec, key)) {
    out.reserve(a->size());
    for (const auto& v : *a) out.push_back(to_pod_set_container(v));
  }
  return out;
}

std::string replicated_job_name(const json::value& rjob) {
  return rjob.is_object() ? find_string(rjob.get_object(), "name").value_or("") : std::string();
}

// Runtime patches onto the JobSet spec, in list order, then the template order restored.
Result<json::object> apply_runtime_patches(const TrainJob& job, json::object spec) {
  bool any = false;
  for (const auto& patch : job.spec.runtime_patches) {
    if (patch.training_runtime_spec && patch.training_runtime_spec->template_ &&
        patch.training_runtime_spec->template_->spec) {
      any = true;
      break;
    }
  }
  if (!any) return spec;

  std::map<std::string, std::size_t> order;
  if (const auto* jobs = find_array(spec, "replicatedJobs")) {
    for (std::size_t i = 0; i < jobs->size(); ++i) {
      order.emplace(replicated_job_name((*jobs)[i]), i);
    }
  }
  // The patches in JSON form, as upstream marshals the typed patch.
  const json::value job_json = to_json(job);
  const auto* patches = job_json.get_object().if_contains("spec") != nullptr
                            ? find_array(job_json.at("spec").get_object(), "runtimePatches")
                            : nullptr;
  json::value current(std::move(spec));
  for (std::size_t i = 0; i < job.spec.runtime_patches.size(); ++i) {
    const auto& patch = job.spec.runtime_patches[i];
    if (!patch.training_runtime_spec || !patch.training_runtime_spec->template_ ||
        !patch.training_runtime_spec->template_->spec || patches == nullptr ||
        i >= patches->size() || !(*patches)[i].is_object()) {
      continue;
    }
    const auto* patch_spec =
        find_object((*patches)[i].get_object(), {"trainingRuntimeSpec", "template", "spec"});
    if (patch_spec == nullptr) continue;
    auto merged =
        detail::strategic_merge(current, json::value(*patch_spec), detail::SchemaType::kJobSetSpec);
    if (!merged) {
      return fail(merged.error().code, "runtimePatches[" + std::to_string(i) + "] (manager " +
                                           patch.manager + "): " + merged.error().message);
    }
    current = std::move(*merged);
  }
  json::object out = current.is_object() ? std::move(current.get_object()) : json::object();
  if (auto* jobs = find_array(out, "replicatedJobs")) {
    auto index_of = [&](const json::value& rjob) {
      auto it = order.find(replicated_job_name(rjob));
      return it == order.end() ? std::size_t{0} : it->second;
    };
    std::stable_sort(jobs->begin(), jobs->end(), [&](const json::value& a, const json::value& b) {
      return index_of(a) < index_of(b);
    });
  }
  return out;
}

}  // namespace

namespace detail {

Result<Info> new_runtime_info(const TrainJob& job, const TrainingRuntimeSpec& spec,
                              json::object jobset_spec) {
  Info info;
  // 3.6.1: JobSet labels/annotations.
  info.labels = spec.template_.metadata.labels;
  info.annotations = spec.template_.metadata.annotations;
  for (const auto& patch : job.spec.runtime_patches) {
    if (!patch.training_runtime_spec || !patch.training_runtime_spec->template_ ||
        !patch.training_runtime_spec->template_->metadata) {
      continue;
    }
    const auto& meta = *patch.training_runtime_spec->template_->metadata;
    for (const auto& [k, v] : meta.labels) info.labels[k] = v;
    for (const auto& [k, v] : meta.annotations) info.annotations[k] = v;
  }
  info.runtime_policy.ml_policy = spec.ml_policy;
  info.runtime_policy.pod_group_policy = spec.pod_group_policy;

  // 3.6.2: runtime patches.
  if (!job.spec.runtime_patches.empty()) {
    info.template_spec.runtime_jobset_spec = jobset_spec;
  }
  auto patched = apply_runtime_patches(job, std::move(jobset_spec));
  if (!patched) return tl::unexpected(patched.error());
  info.template_spec.jobset_spec = std::move(*patched);

  const auto& ml_policy = spec.ml_policy;
  const bool launcher_as_node =
      ml_policy && ml_policy->mpi && ml_policy->mpi->run_launcher_as_node.value_or(false);
  const json::object* resources_per_node = job.spec.trainer && job.spec.trainer->resources_per_node
                                               ? &*job.spec.trainer->resources_per_node
                                               : nullptr;

  auto* jobs = find_array(info.template_spec.jobset_spec, "replicatedJobs");
  if (jobs == nullptr) return info;
  info.template_spec.pod_sets.reserve(jobs->size());
  for (auto& rjob_value : *jobs) {
    if (!rjob_value.is_object()) {
      return fail(ErrorCode::kInvalid, "runtime template: replicatedJobs items must be objects");
    }
    auto& rjob = rjob_value.get_object();
    PodSet ps;
    ps.name = find_string(rjob, "name").value_or("");
    // 3.6.3: count and ancestor.
    std::int64_t count = 1;
    if (const auto* job_spec = find_object(rjob, {"template", "spec"})) {
      count = find_int(*job_spec, "parallelism").value_or(1);
    }
    if (const auto* labels = find_object(rjob, {"template", "metadata", "labels"})) {
      if (auto a = find_string(*labels, kAncestorLabel)) ps.ancestor = std::move(a);
    }
    const bool trainer_ancestor = ps.ancestor && *ps.ancestor == kAncestorTrainer;
    if (trainer_ancestor && ml_policy) count = ml_policy->num_nodes.value_or(1);
    count = std::clamp<std::int64_t>(count, 1, INT32_MAX);
    ps.count = static_cast<std::int32_t>(count);

    json::object* pod_spec = find_object(rjob, {"template", "spec", "template", "spec"});
    // 3.6.4: resourcesPerNode onto the first `node` container.
    if (resources_per_node != nullptr && pod_spec != nullptr &&
        ((trainer_ancestor && ml_policy) || (launcher_as_node && ps.name == kNodeName))) {
      if (auto* containers = find_array(*pod_spec, "containers")) {
        for (auto& c : *containers) {
          if (!c.is_object() ||
              find_string(c.get_object(), "name") != std::optional<std::string>("node")) {
            continue;
          }
          const auto* base = find_object(c.get_object(), {"resources"});
          c.get_object()["resources"] = merge_resource_requirements(
              base != nullptr ? *base : json::object(), *resources_per_node);
          break;
        }
      }
    }
    if (pod_spec != nullptr) {
      ps.init_containers = to_pod_set_containers(*pod_spec, "initContainers");
      ps.containers = to_pod_set_containers(*pod_spec, "containers");
      ps.volumes = array_or_empty(*pod_spec, "volumes");
      auto requests = pod_requests(*pod_spec);
      if (!requests) {
        return fail(requests.error().code,
                    "replicated job " + ps.name + ": " + requests.error().message);
      }
      ps.single_pod_requests = std::move(*requests);
    }
    info.template_spec.pod_sets.push_back(std::move(ps));
  }
  return info;
}

}  // namespace detail

Result<Info> new_runtime_info(const TrainJob& job, const TrainingRuntimeSpec& spec) {
  return detail::new_runtime_info(job, spec, spec.template_.spec);
}

}  // namespace trainer
