// SPDX-License-Identifier: Apache-2.0
#include "controller/watched_kinds.hpp"

#include "trainer/model.hpp"
#include "trainer/plugin_support.hpp"

#include <array>
#include <utility>

namespace trainer::controller::detail {

Result<std::vector<WatchedKind>> watched_kinds(kube::Client& client,
                                               const kube::CancelToken& cancel) {
  kube::CallOptions options;
  options.cancel = cancel;
  std::vector<WatchedKind> kinds;
  auto train_jobs = client.resource_for(kApiVersion, kTrainJobKind, options);
  if (!train_jobs) return tl::unexpected(train_jobs.error());
  kinds.push_back({std::move(*train_jobs), WatchRole::kTrainJobs});

  // Watched where served (OptimizationJobs are reconciled on the same queue when their CRD is
  // installed); a kind the server does not serve is left out, any other error is returned.
  struct Optional {
    const char* api_version;
    const char* kind;
    WatchRole role;
  };
  static constexpr std::array<Optional, 8> kOptional{{
      {kApiVersion, "OptimizationJob", WatchRole::kOptimizationJobs},
      {kApiVersion, kTrainingRuntimeKind, WatchRole::kRuntimes},
      {kApiVersion, kClusterTrainingRuntimeKind, WatchRole::kRuntimes},
      {kJobSetApiVersion, kJobSetKind, WatchRole::kOwned},
      {"scheduling.x-k8s.io/v1alpha1", "PodGroup", WatchRole::kOwned},
      {"scheduling.volcano.sh/v1beta1", "PodGroup", WatchRole::kOwned},
      {"v1", "Secret", WatchRole::kOwned},
      {"v1", "ConfigMap", WatchRole::kOwned},
  }};
  for (const auto& [api_version, kind, role] : kOptional) {
    auto resource = client.resource_for(api_version, kind, options);
    if (!resource) {
      if (resource.error().code == ErrorCode::kNotFound) continue;  // not installed here
      return tl::unexpected(resource.error());
    }
    kinds.push_back({std::move(*resource), role});
  }
  return kinds;
}

}  // namespace trainer::controller::detail
