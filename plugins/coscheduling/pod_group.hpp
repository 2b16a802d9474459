// SPDX-License-Identifier: Apache-2.0
//
// What the two gang-scheduling plugins (CoScheduling and Volcano) share: the PodGroup totals over
// every PodSet, the skip rule for an existing PodGroup, and the controller owner reference.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::plugins::pod_group {

/// `minMember` and `minResources` of a PodGroup.
struct PodGroupTotals {
  std::int32_t min_member = 0;
  /// Resource name -> canonical quantity text (`Σ single_pod_requests × count`).
  boost::json::object min_resources;
};

/// Sums over all PodSets, initializers included: counts into `min_member` and each PodSet's
/// single-pod requests times its count into `min_resources`, with exact Quantity arithmetic (the
/// first non-zero summand's format wins, as Kubernetes' `Add`). A PodSet without a count counts
/// as 1 (upstream dereferences it; the framework always sets it). A total beyond int32 (upstream
/// wraps around silently) is a `kLimit` error.
[[nodiscard]] Result<PodGroupTotals> pod_group_totals(const Info& info);

/// Upstream's skip rule: an existing PodGroup `<ns>/<job>` of `api_version` is left alone unless
/// the TrainJob is suspended.
[[nodiscard]] bool keep_existing_pod_group(std::string_view api_version, const TrainJob& job,
                                           const PluginContext& ctx);

/// The TrainJob's namespace ("" when unset; the name is `trainer::job_name`).
[[nodiscard]] const std::string& job_namespace(const TrainJob& job);

}  // namespace trainer::plugins::pod_group
