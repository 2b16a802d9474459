// SPDX-License-Identifier: Apache-2.0
#include "volcano_plugin.hpp"
#include "trainer/plugin_support.hpp"

#include "../coscheduling/pod_group.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainer::plugins {

namespace {

namespace json = boost::json;

constexpr const char* kVolcanoApiVersion = "scheduling.volcano.sh/v1beta1";
constexpr const char* kGroupNameAnnotation = "scheduling.k8s.io/group-name";
constexpr const char* kQueueNameAnnotation = "scheduling.volcano.sh/queue-name";

const VolcanoPodGroupPolicySource* volcano_policy(const Info& info) {
  const auto& pgp = info.runtime_policy.pod_group_policy;
  return pgp && pgp->volcano ? &*pgp->volcano : nullptr;
}

const json::value* member(const json::value* v, std::string_view key) {
  const auto* obj = v != nullptr ? v->if_object() : nullptr;
  return obj != nullptr ? obj->if_contains(key) : nullptr;
}

/// The `priorityClassName` of every replicated job's pod template that sets a non-empty one, in
/// template order. (Upstream's apply configuration drops an empty string, as `omitempty`.)
std::vector<std::string> priority_class_names(const Info& info) {
  std::vector<std::string> names;
  const auto* jobs = info.template_spec.jobset_spec.if_contains("replicatedJobs");
  if (jobs == nullptr || !jobs->is_array()) return names;
  for (const json::value& rj : jobs->get_array()) {
    const json::value* pod_spec =
        member(member(member(member(&rj, "template"), "spec"), "template"), "spec");
    const json::value* name = member(pod_spec, "priorityClassName");
    if (name != nullptr && name->is_string() && !name->get_string().empty()) {
      names.emplace_back(name->get_string());
    }
  }
  return names;
}

bool is_system_priority_class(std::string_view name) {
  return name == "system-cluster-critical" || name == "system-node-critical";
}

class VolcanoPlugin final : public CustomValidationPlugin,
                            public EnforcePodGroupPolicyPlugin,
                            public ComponentBuilderPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "Volcano"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kEnforcePodGroupPolicy, Phase::kComponentBuilder};
  }

  [[nodiscard]] ValidationResult validate(const Info& info, const TrainJob* /*old_job*/,
                                          const TrainJob& /*new_job*/,
                                          const PluginContext& ctx) override {
    ValidationResult result;
    if (volcano_policy(info) == nullptr) return result;
    if (auto it = info.annotations.find(kQueueNameAnnotation);
        it != info.annotations.end() && it->second.empty()) {
      result.errors.push_back(
          field_invalid(std::string("spec.annotations[") + kQueueNameAnnotation + "]",
                        json::string(""), "Volcano queue name must not be empty"));
    }
    for (const std::string& pc : priority_class_names(info)) {
      if (is_system_priority_class(pc)) continue;
      if (ctx.find("scheduling.k8s.io/v1", "PriorityClass", "", pc)) continue;
      result.errors.push_back(field_invalid(
          "spec.templateSpec.priorityClassName", json::string(pc),
          "PriorityClass " + go_quote(pc) + " doesn't exist: priorityclasses.scheduling.k8s.io " +
              go_quote(pc) + " not found"));
    }
    return result;
  }

  [[nodiscard]] Result<void> enforce_pod_group_policy(Info& info, const TrainJob& job,
                                                      const PluginContext& /*ctx*/) override {
    if (volcano_policy(info) == nullptr) return {};
    info.scheduler.pod_annotations[kGroupNameAnnotation] = job_name(job);
    return {};
  }

  [[nodiscard]] Result<std::vector<json::value>> build(const Info& info, const TrainJob& job,
                                                       const PluginContext& ctx) override {
    const VolcanoPodGroupPolicySource* policy = volcano_policy(info);
    if (policy == nullptr) return std::vector<json::value>{};
    if (pod_group::keep_existing_pod_group(kVolcanoApiVersion, job, ctx)) {
      return std::vector<json::value>{};
    }
    auto totals = pod_group::pod_group_totals(info);
    if (!totals) return tl::unexpected(std::move(totals.error()));

    // Field order as Volcano's PodGroupSpec: minMember, queue, priorityClassName, minResources,
    // networkTopology.
    json::object spec;
    spec["minMember"] = totals->min_member;
    if (auto it = info.annotations.find(kQueueNameAnnotation); it != info.annotations.end()) {
      spec["queue"] = it->second;
    }
    if (auto names = priority_class_names(info); !names.empty()) {
      spec["priorityClassName"] = std::move(names.back());
    }
    spec["minResources"] = std::move(totals->min_resources);
    if (policy->network_topology) {
      const json::object& topology = *policy->network_topology;
      json::object out;
      const json::value* mode = topology.if_contains("mode");
      out["mode"] = mode != nullptr ? *mode : json::value("hard");
      const json::value* tier = topology.if_contains("highestTierAllowed");
      out["highestTierAllowed"] = tier != nullptr ? *tier : json::value(std::int64_t{1});
      spec["networkTopology"] = std::move(out);
    }

    json::object pod_group;
    pod_group["apiVersion"] = kVolcanoApiVersion;
    pod_group["kind"] = "PodGroup";
    pod_group["metadata"] = owned_object_metadata(job_name(job), job, effective_uid(job, ctx));
    pod_group["spec"] = std::move(spec);
    std::vector<json::value> objects;
    objects.emplace_back(std::move(pod_group));
    return objects;
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_volcano_plugin() {
  return std::make_unique<VolcanoPlugin>();
}

}  // namespace trainer::plugins
