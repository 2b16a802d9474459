// SPDX-License-Identifier: Apache-2.0
//
// What the reconciler and the admission webhooks read from the cluster for one TrainJob: the
// runtime it references (the live one) and the objects plugins look up, remembered for the pass.
// One implementation, so that a webhook admits against what a reconcile renders with. Reads go
// to the loop's informer stores where it has them (object_cache.hpp), else to the server.
#pragma once

#include "controller/object_cache.hpp"
#include "trainer/kube.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

namespace trainer::controller::detail {

// The cluster as the render context's lookup: reads remembered for the pass (the builders and
// the status step ask for the same objects). A kind the server does not serve (a scheduler's
// PodGroup CRD not installed) is "not found"; any other failure is kept and fails the pass
// after the render or the admission, since the lookup itself cannot fail.
class ClusterLookup {
 public:
  /// `cache`: the loop's stores (null: every read is a GET).
  ClusterLookup(kube::Client& client, kube::CallOptions call, const ObjectCache* cache = nullptr)
      : client_(client), call_(std::move(call)), cache_(cache) {}

  /// One read, not remembered: from the cache where it answers, else a GET. nullopt: not found.
  [[nodiscard]] Result<std::optional<boost::json::value>> get(std::string_view api_version,
                                                              std::string_view kind,
                                                              std::string_view ns,
                                                              std::string_view name);

  /// `get`, remembered for the pass; a failure is kept in `error()` and answers nullopt.
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
  const ObjectCache* cache_;
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           std::optional<boost::json::value>>
      seen_;
  std::optional<Error> error_;
};

/// The live runtime `job.spec.runtimeRef` names (a TrainingRuntime in `ns`, or a
/// ClusterTrainingRuntime), read through `lookup`; nullopt when it does not exist.
[[nodiscard]] Result<std::optional<boost::json::value>> fetch_runtime(ClusterLookup& lookup,
                                                                      const TrainJob& job,
                                                                      const std::string& ns);

}  // namespace trainer::controller::detail
