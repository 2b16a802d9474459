// SPDX-License-Identifier: Apache-2.0
//
// The per-node resources and GPU/CPU counts of include/trainer/plugin_support.hpp (upstream
// ExtractResourcePerNodeFromRuntime, GetNumGPUPerNode, torch getNumCPUPerNode).
#include "trainer/plugin_support.hpp"

#include "api/ascii.hpp"
#include "kube/quantity_json.hpp"
#include "trainer/json_path.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace trainer {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_object;

bool contains_gpu(std::string_view name) {
  return ascii::to_lower(name).find("gpu") != std::string::npos;
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
  return detail::quantity_from_json(pick->value(), pick->key()).map([](const Quantity& q) {
    return q.value();
  });
}

}  // namespace

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
        labels != nullptr && string_view_at(*labels, kAncestorLabel) == kAncestorTrainer;
    if (string_view_at(*job, "name") != kNodeName && !is_trainer) continue;
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
      if (container == nullptr || string_view_at(*container, "name") != kNodeName) continue;
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
    auto q = detail::quantity_from_json(*request, "cpu");
    if (!q) return tl::unexpected<Error>(q.error());
    if (!q->is_zero()) return q->value();
  }
  if (limit == nullptr) return std::int64_t{0};
  return detail::quantity_from_json(*limit, "cpu").map([](const Quantity& q) { return q.value(); });
}

}  // namespace trainer
