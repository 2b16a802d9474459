// SPDX-License-Identifier: Apache-2.0
#include "coscheduling_plugin.hpp"
#include "trainer/plugin_support.hpp"

#include "pod_group.hpp"

#include <boost/json/object.hpp>

#include <utility>

namespace trainer::plugins {

namespace {

namespace json = boost::json;

constexpr const char* kCoschedulingApiVersion = "scheduling.x-k8s.io/v1alpha1";
constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
constexpr std::int32_t kDefaultScheduleTimeoutSeconds = 60;

const CoschedulingPodGroupPolicySource* coscheduling_policy(const Info& info) {
  const auto& pgp = info.runtime_policy.pod_group_policy;
  return pgp && pgp->coscheduling ? &*pgp->coscheduling : nullptr;
}

class CoSchedulingPlugin final : public EnforcePodGroupPolicyPlugin, public ComponentBuilderPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "CoScheduling"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kEnforcePodGroupPolicy, Phase::kComponentBuilder};
  }

  [[nodiscard]] Result<void> enforce_pod_group_policy(Info& info, const TrainJob& job,
                                                      const PluginContext& /*ctx*/) override {
    if (coscheduling_policy(info) == nullptr) return {};
    info.scheduler.pod_labels[kPodGroupLabel] = job_name(job);
    return {};
  }

  [[nodiscard]] Result<std::vector<json::value>> build(const Info& info, const TrainJob& job,
                                                       const PluginContext& ctx) override {
    const CoschedulingPodGroupPolicySource* policy = coscheduling_policy(info);
    if (policy == nullptr) return std::vector<json::value>{};
    if (pod_group::keep_existing_pod_group(kCoschedulingApiVersion, job, ctx)) {
      return std::vector<json::value>{};
    }
    auto totals = pod_group::pod_group_totals(info);
    if (!totals) return tl::unexpected(std::move(totals.error()));

    json::object spec;
    spec.reserve(3);
    spec["minMember"] = totals->min_member;
    spec["minResources"] = std::move(totals->min_resources);
    spec["scheduleTimeoutSeconds"] =
        policy->schedule_timeout_seconds.value_or(kDefaultScheduleTimeoutSeconds);

    json::object pod_group;
    pod_group.reserve(4);
    pod_group["apiVersion"] = kCoschedulingApiVersion;
    pod_group["kind"] = "PodGroup";
    pod_group["metadata"] = owned_object_metadata(job_name(job), job, effective_uid(job, ctx));
    pod_group["spec"] = std::move(spec);
    std::vector<json::value> objects;
    objects.emplace_back(std::move(pod_group));
    return objects;
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_coscheduling_plugin() {
  return std::make_unique<CoSchedulingPlugin>();
}

}  // namespace trainer::plugins
