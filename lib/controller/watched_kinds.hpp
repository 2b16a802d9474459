// SPDX-License-Identifier: Apache-2.0
//
// The kinds the controller watches: TrainJobs themselves, OptimizationJobs, the kinds a TrainJob
// owns (JobSet, the two PodGroup flavours, the MPI Secret and ConfigMap, the runtime snapshot
// ConfigMap) and the runtimes a TrainJob references. Upstream's owned Secrets and ConfigMaps
// carry no label to select on, so they are watched whole and filtered by their controller
// ownerReference (owner_key.hpp). Each watch feeds the loop's store of its kind
// (object_cache.hpp); the runtimes' watches only that (upstream's TrainJob controller queues
// nothing on a runtime's change either).
#pragma once

#include "trainer/kube.hpp"

#include <vector>

namespace trainer::controller::detail {

/// Why a kind is watched: what its events queue and what its store keeps.
enum class WatchRole {
  kTrainJobs,         ///< queue the TrainJob (and the OptimizationJob of a trial); kept whole
  kOptimizationJobs,  ///< queue the OptimizationJob (keys of their own kind); kept by name
  kOwned,             ///< queue the controlling TrainJob; kept whole when a TrainJob controls it
  kRuntimes,          ///< queue nothing; kept whole (TrainingRuntimes, ClusterTrainingRuntimes)
};

struct WatchedKind {
  kube::Resource resource;
  WatchRole role = WatchRole::kTrainJobs;
};

/// TrainJob (required), OptimizationJob (when its CRD is installed), the runtimes, then every
/// owned kind the server serves (a CRD that is not installed, such as Volcano's PodGroup, is
/// left out). Errors other than a missing kind are returned.
[[nodiscard]] Result<std::vector<WatchedKind>> watched_kinds(kube::Client& client,
                                                             const kube::CancelToken& cancel);

}  // namespace trainer::controller::detail
