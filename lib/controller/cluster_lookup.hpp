// SPDX-License-Identifier: Apache-2.0
//
// What the reconciler and the admission webhooks read from the cluster for one TrainJob: the
// runtime it references (the live one) and the objects plugins look up, as GETs remembered for
// the pass. One implementation, so that a webhook admits against what a reconcile renders with.
#pragma once

#include "trainer/kube.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace trainer::controller::detail {

// The cluster as the render context's lookup: GETs, remembered for the pass (the builders and
// the status step ask for the same objects). A kind the server does not serve (a scheduler's
// PodGroup CRD not installed) is "not found"; any other failure is kept and fails the pass
// after the render or the admission, since the lookup itself cannot fail.
class ClusterLookup {
 public:
  ClusterLookup(kube::Client& client, kube::CallOptions call)
      : client_(client), call_(std::move(call)) {}

  std::optional<boost::json::value> find(std::string_view api_version, std::string_view kind,
                                         std::string_view ns, std::string_view name);

  /// What an earlier `find` answered for the object, when it was asked.
  [[nodiscard]] const std::optional<boost::json::value>* cached(std::string_view api_version,
                                                                std::string_view kind,
                                                                std::string_view ns,
                                                                std::string_view name) const;

  std::optional<Error>& error() { return error_; }

 private:
  kube::Client& client_;
  kube::CallOptions call_;
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           std::optional<boost::json::value>>
      cache_;
  std::optional<Error> error_;
};

/// The live runtime `job.spec.runtimeRef` names (a TrainingRuntime in `ns`, or a
/// ClusterTrainingRuntime), from the cluster; nullopt when it does not exist.
[[nodiscard]] Result<std::optional<boost::json::value>> fetch_runtime(
    kube::Client& client, const TrainJob& job, const std::string& ns,
    const kube::CallOptions& call);

}  // namespace trainer::controller::detail
