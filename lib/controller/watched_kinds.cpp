// SPDX-License-Identifier: Apache-2.0
#include "controller/watched_kinds.hpp"

#include "trainer/plugin_support.hpp"

#include <array>
#include <utility>

namespace trainer::controller::detail {

Result<std::vector<WatchedKind>> watched_kinds(kube::Client& client,
                                               const kube::CancelToken& cancel) {
  kube::CallOptions options;
  options.cancel = cancel;
  std::vector<WatchedKind> kinds;
  auto train_jobs = client.resource_for("trainer.kubeflow.org/v1alpha1", "TrainJob", options);
  if (!train_jobs) return tl::unexpected(train_jobs.error());
  kinds.push_back({std::move(*train_jobs), false, false});
  // OptimizationJobs are reconciled on the same queue when their CRD is installed.
  auto optimization_jobs =
      client.resource_for("trainer.kubeflow.org/v1alpha1", "OptimizationJob", options);
  if (optimization_jobs) {
    kinds.push_back({std::move(*optimization_jobs), false, true});
  } else if (optimization_jobs.error().code != ErrorCode::kNotFound) {
    return tl::unexpected(optimization_jobs.error());
  }

  static constexpr std::array<std::pair<const char*, const char*>, 5> kOwned{{
      {kJobSetApiVersion, kJobSetKind},
      {"scheduling.x-k8s.io/v1alpha1", "PodGroup"},
      {"scheduling.volcano.sh/v1beta1", "PodGroup"},
      {"v1", "Secret"},
      {"v1", "ConfigMap"},
  }};
  for (const auto& [api_version, kind] : kOwned) {
    auto resource = client.resource_for(api_version, kind, options);
    if (!resource) {
      if (resource.error().code == ErrorCode::kNotFound) continue;  // not installed here
      return tl::unexpected(resource.error());
    }
    kinds.push_back({std::move(*resource), true, false});
  }
  return kinds;
}

}  // namespace trainer::controller::detail
