// SPDX-License-Identifier: Apache-2.0
#include "common/resources.hpp"
#include "api/json_path.hpp"

#include "kube/apply.hpp"
#include "trainer/quantity.hpp"

#include "kube/quantity_json.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>

namespace trainer::plugins::detail {
namespace {

namespace json = boost::json;
using trainer::detail::find_array;
using trainer::detail::find_object;

template <class InfoT>
auto* pod_set_by_ancestor(InfoT& info, std::string_view ancestor) {
  auto& sets = info.template_spec.pod_sets;
  auto it = std::find_if(sets.begin(), sets.end(),
                         [&](const PodSet& ps) { return ps.ancestor && *ps.ancestor == ancestor; });
  return it == sets.end() ? nullptr : &*it;
}

template <class PodSetT>
auto* container_named(PodSetT* ps, std::string_view name) {
  using Ptr = decltype(&ps->containers.front());
  if (ps == nullptr) return static_cast<Ptr>(nullptr);
  auto it = std::find_if(ps->containers.begin(), ps->containers.end(),
                         [&](const Container& c) { return c.name == name; });
  return it == ps->containers.end() ? static_cast<Ptr>(nullptr) : &*it;
}

template <class InfoT>
auto* pod_set_by_name(InfoT& info, std::string_view name) {
  auto& sets = info.template_spec.pod_sets;
  auto it =
      std::find_if(sets.begin(), sets.end(), [&](const PodSet& ps) { return ps.name == name; });
  return it == sets.end() ? nullptr : &*it;
}

// Regular containers first, then init containers.
template <class PodSetT>
auto* container_in_pod_set(PodSetT* ps, std::string_view name) {
  auto* found = container_named(ps, name);
  if (ps == nullptr || found != nullptr) return found;
  auto it = std::find_if(ps->init_containers.begin(), ps->init_containers.end(),
                         [&](const Container& c) { return c.name == name; });
  return it == ps->init_containers.end() ? found : &*it;
}

bool string_equals(const json::object& obj, std::string_view key, std::string_view want) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_string() && v->get_string() == want;
}

bool contains_gpu(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("gpu") != std::string::npos;
}

// Upstream `numGPU`: the value of the first `*gpu*` resource, even when it is 0.
Result<std::int64_t> num_gpu(const json::object* list) {
  if (list == nullptr) return std::int64_t{0};
  const json::key_value_pair* pick = nullptr;
  for (const auto& kv : *list) {
    if (!contains_gpu(kv.key())) continue;
    if (pick == nullptr || kv.key() < pick->key()) pick = &kv;
  }
  if (pick == nullptr) return std::int64_t{0};
  return trainer::detail::quantity_from_json(pick->value(), pick->key()).map([](const Quantity& q) {
    return q.value();
  });
}

}  // namespace

PodSet* find_pod_set_by_ancestor(Info& info, std::string_view ancestor) {
  return pod_set_by_ancestor(info, ancestor);
}

const PodSet* find_pod_set_by_ancestor(const Info& info, std::string_view ancestor) {
  return pod_set_by_ancestor(info, ancestor);
}

PodSet* find_pod_set_by_name(Info& info, std::string_view name) {
  return pod_set_by_name(info, name);
}

Container* find_container_by_ancestor(Info& info, std::string_view ancestor,
                                      std::string_view container) {
  return container_named(find_pod_set_by_ancestor(info, ancestor), container);
}

const Container* find_container_by_ancestor(const Info& info, std::string_view ancestor,
                                            std::string_view container) {
  return container_named(find_pod_set_by_ancestor(info, ancestor), container);
}

Container* find_container_by_pod_set_name(Info& info, std::string_view pod_set,
                                          std::string_view container) {
  return container_in_pod_set(pod_set_by_name(info, pod_set), container);
}

const Container* find_container_by_pod_set_name(const Info& info, std::string_view pod_set,
                                                std::string_view container) {
  return container_in_pod_set(pod_set_by_name(info, pod_set), container);
}

std::optional<json::object> extract_resource_per_node_from_runtime(const Info& info) {
  const auto* jobs = find_array(info.template_spec.jobset_spec, "replicatedJobs");
  if (jobs == nullptr) return std::nullopt;
  for (const auto& job_value : *jobs) {
    const auto* job = job_value.if_object();
    if (job == nullptr) continue;
    const auto* tmpl = find_object(*job, "template");
    const json::object* labels = nullptr;
    if (tmpl != nullptr) {
      if (const auto* meta = find_object(*tmpl, "metadata")) labels = find_object(*meta, "labels");
    }
    const bool is_trainer =
        labels != nullptr && string_equals(*labels, kAncestorLabel, kAncestorTrainer);
    if (!string_equals(*job, "name", kNode) && !is_trainer) continue;
    const json::object* pod_spec = nullptr;
    if (tmpl != nullptr) {
      if (const auto* job_spec = find_object(*tmpl, "spec")) {
        if (const auto* pod_tmpl = find_object(*job_spec, "template")) {
          pod_spec = find_object(*pod_tmpl, "spec");
        }
      }
    }
    const auto* containers = pod_spec != nullptr ? find_array(*pod_spec, "containers") : nullptr;
    if (containers == nullptr) continue;
    for (const auto& c : *containers) {
      const auto* container = c.if_object();
      if (container == nullptr || !string_equals(*container, "name", kNode)) continue;
      json::object out;
      if (const auto* res = find_object(*container, "resources")) {
        if (const auto* limits = res->if_contains("limits")) out["limits"] = *limits;
        if (const auto* requests = res->if_contains("requests")) out["requests"] = *requests;
      }
      return out;
    }
  }
  return std::nullopt;
}

json::object resources_per_node(const Info& info, const TrainJob& job) {
  if (job.spec.trainer && job.spec.trainer->resources_per_node) {
    return *job.spec.trainer->resources_per_node;
  }
  return extract_resource_per_node_from_runtime(info).value_or(json::object{});
}

Result<std::int64_t> gpu_count_per_node(const json::object& resources) {
  auto requested = num_gpu(find_object(resources, "requests"));
  if (!requested) return requested;
  auto limited = num_gpu(find_object(resources, "limits"));
  if (!limited) return limited;
  if (*requested == 0 && *limited > 0) return *limited;
  return *requested;
}

Result<std::int64_t> cpu_count_per_node(const json::object& resources) {
  const json::value* request = nullptr;
  const json::value* limit = nullptr;
  if (const auto* requests = find_object(resources, "requests"))
    request = requests->if_contains("cpu");
  if (const auto* limits = find_object(resources, "limits")) limit = limits->if_contains("cpu");
  if (request != nullptr) {
    auto q = trainer::detail::quantity_from_json(*request, "cpu");
    if (!q) return tl::unexpected<Error>(q.error());
    if (!q->is_zero()) return q->value();
  }
  if (limit == nullptr) return std::int64_t{0};
  return trainer::detail::quantity_from_json(*limit, "cpu").map([](const Quantity& q) {
    return q.value();
  });
}

std::string job_name(const TrainJob& job) {
  return job.metadata.name.value_or("");
}

std::string rank0_host(const TrainJob& job) {
  const std::string name = job_name(job);
  return name + "-" + kNode + "-0-0." + name;
}

json::object trainer_port() {
  return json::object{{"containerPort", kContainerTrainerPort}};
}

json::array env_in_apply_form(const std::vector<json::object>& env) {
  json::array out;
  out.reserve(env.size());
  for (const auto& var : env) out.push_back(trainer::detail::env_to_apply_form(var));
  return out;
}

json::array env_as_json(const std::vector<json::object>& env) {
  json::array out;
  out.reserve(env.size());
  for (const auto& var : env) out.push_back(var);
  return out;
}

std::string_view env_name(const json::object& var) {
  const auto* name = var.if_contains("name");
  if (name == nullptr || !name->is_string()) return {};
  return name->get_string();
}

std::optional<FieldError> reserved_env_error(const std::vector<json::object>& env,
                                             bool (*reserved)(std::string_view name)) {
  std::set<std::string_view> found;
  for (const auto& var : env) {
    if (reserved(env_name(var))) found.insert(env_name(var));
  }
  if (found.empty()) return std::nullopt;
  std::string names;
  for (const auto n : found) {
    if (!names.empty()) names += ' ';
    names += n;
  }
  return field_invalid("spec.trainer.env", env_as_json(env),
                       "must not have reserved envs, invalid envs configured: [" + names + "]");
}

bool is_torchtune_command(const std::optional<std::vector<std::string>>& command) {
  return command && command->size() == 2 && (*command)[0] == "tune" && (*command)[1] == "run";
}

json::object owner_reference(const TrainJob& job, std::string_view uid) {
  return json::object{{"apiVersion", kApiVersion}, {"kind", kTrainJobKind},
                      {"name", job_name(job)},     {"uid", uid},
                      {"controller", true},        {"blockOwnerDeletion", true}};
}

std::string effective_uid(const TrainJob& job, const RenderContext& ctx) {
  if (!ctx.train_job_uid.empty()) return ctx.train_job_uid;
  return job.metadata.uid.value_or("");
}

}  // namespace trainer::plugins::detail
