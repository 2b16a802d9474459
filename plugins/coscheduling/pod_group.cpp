// SPDX-License-Identifier: Apache-2.0
#include "pod_group.hpp"

#include "trainer/plugin_support.hpp"

#include <boost/json/array.hpp>

#include <limits>
#include <map>
#include <utility>

namespace trainer::plugins::pod_group {

namespace json = boost::json;

namespace {
const std::string kEmpty;
}  // namespace

const std::string& job_namespace(const TrainJob& job) {
  return job.metadata.namespace_ ? *job.metadata.namespace_ : kEmpty;
}

Result<PodGroupTotals> pod_group_totals(const Info& info) {
  std::int64_t members = 0;
  std::map<std::string, Quantity> resources;
  for (const PodSet& ps : info.template_spec.pod_sets) {
    const std::int32_t count = ps.count.value_or(1);
    members += count;
    for (const auto& [resource, request] : ps.single_pod_requests) {
      resources[resource] += request * count;
    }
  }
  if (members > std::numeric_limits<std::int32_t>::max() ||
      members < std::numeric_limits<std::int32_t>::min()) {
    return fail(ErrorCode::kLimit,
                "PodGroup minMember " + std::to_string(members) + " does not fit in int32");
  }
  PodGroupTotals totals;
  totals.min_member = static_cast<std::int32_t>(members);
  for (const auto& [resource, total] : resources) {
    totals.min_resources[resource] = total.to_string();
  }
  return totals;
}

bool keep_existing_pod_group(std::string_view api_version, const TrainJob& job,
                             const PluginContext& ctx) {
  if (job.spec.suspend.value_or(false)) return false;
  return ctx.find(api_version, "PodGroup", job_namespace(job), job_name(job)).has_value();
}

}  // namespace trainer::plugins::pod_group
