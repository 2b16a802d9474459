// SPDX-License-Identifier: Apache-2.0
//
// The kinds the controller watches: TrainJobs themselves, OptimizationJobs, and the kinds a
// TrainJob owns (JobSet, the two PodGroup flavours, the MPI Secret and ConfigMap, the runtime
// snapshot ConfigMap). Upstream's owned Secrets and ConfigMaps carry no label to select on, so they
// are watched whole and filtered by their controller ownerReference (owner_key.hpp).
#pragma once

#include "trainer/kube.hpp"

#include <vector>

namespace trainer::controller::detail {

struct WatchedKind {
  kube::Resource resource;
  bool owned = false;         ///< false: the TrainJobs themselves (or the OptimizationJobs)
  bool optimization = false;  ///< the OptimizationJobs (keys of their own kind)
};

/// TrainJob (required), OptimizationJob (when its CRD is installed), then every owned kind the
/// server serves (a CRD that is not installed, such as Volcano's PodGroup, is left out). Errors
/// other than a missing kind are returned.
[[nodiscard]] Result<std::vector<WatchedKind>> watched_kinds(kube::Client& client,
                                                             const kube::CancelToken& cancel);

}  // namespace trainer::controller::detail
