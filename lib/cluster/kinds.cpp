// SPDX-License-Identifier: Apache-2.0
// The Trainer kinds by the names kubectl accepts for them, and their discovered resources.
#include "cluster/cluster_internal.hpp"

#include <array>
#include <cctype>
#include <string>

namespace trainer::cluster {
namespace detail {

std::string_view kind_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::kTrainJob: return "TrainJob";
    case Kind::kTrainingRuntime: return "TrainingRuntime";
    case Kind::kClusterTrainingRuntime: return "ClusterTrainingRuntime";
    case Kind::kOptimizationJob: return "OptimizationJob";
  }
  return "TrainJob";
}

std::string_view plural(Kind kind) noexcept {
  switch (kind) {
    case Kind::kTrainJob: return "trainjobs";
    case Kind::kTrainingRuntime: return "trainingruntimes";
    case Kind::kClusterTrainingRuntime: return "clustertrainingruntimes";
    case Kind::kOptimizationJob: return "optimizationjobs";
  }
  return "trainjobs";
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace detail

Result<Kind> parse_kind(std::string_view name) {
  // kubectl's RESTMapper matches case-insensitively and accepts `<resource>.<group>` and
  // `<resource>.<version>.<group>`.
  std::string lower;
  for (const char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view base = lower;
  for (const std::string_view suffix :
       {".v1alpha1.trainer.kubeflow.org", ".trainer.kubeflow.org"}) {
    if (base.size() > suffix.size() && base.substr(base.size() - suffix.size()) == suffix) {
      base = base.substr(0, base.size() - suffix.size());
      break;
    }
  }
  constexpr std::array<Kind, 4> kKinds = {Kind::kTrainJob, Kind::kTrainingRuntime,
                                          Kind::kClusterTrainingRuntime, Kind::kOptimizationJob};
  for (const Kind kind : kKinds) {
    const std::string_view plural = detail::plural(kind);
    const std::string_view singular = plural.substr(0, plural.size() - 1);
    if (base == plural || base == singular) return kind;
  }
  return fail(ErrorCode::kInvalidArgument,
              "the server doesn't have a resource type \"" + std::string(name) + "\"");
}

Result<kube::Resource> resource_of(kube::Client& client, Kind kind,
                                   const kube::CallOptions& options) {
  return client.resource_for(detail::kTrainerApiVersion, detail::kind_name(kind), options);
}

}  // namespace trainer::cluster
