// SPDX-License-Identifier: Apache-2.0
#include "controller/cluster_lookup.hpp"

#include "trainer/cluster.hpp"

#include <utility>

namespace trainer::controller::detail {

namespace json = boost::json;

std::optional<json::value> ClusterLookup::find(std::string_view api_version, std::string_view kind,
                                               std::string_view ns, std::string_view name) {
  auto key = std::make_tuple(std::string(api_version), std::string(kind), std::string(ns),
                             std::string(name));
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  std::optional<json::value> found;
  auto resource = client_.resource_for(api_version, kind, call_);
  if (resource) {
    auto object = client_.get(*resource, resource->namespaced ? ns : "", name, call_);
    if (object) {
      found = json::value(std::move(*object));
    } else if (object.error().code != ErrorCode::kNotFound) {
      if (!error_) error_ = std::move(object.error());
      return std::nullopt;  // not remembered: the pass fails anyway
    }
  } else if (resource.error().code != ErrorCode::kNotFound) {
    if (!error_) error_ = std::move(resource.error());
    return std::nullopt;
  }
  cache_.emplace(std::move(key), found);
  return found;
}

const std::optional<json::value>* ClusterLookup::cached(std::string_view api_version,
                                                        std::string_view kind, std::string_view ns,
                                                        std::string_view name) const {
  auto it = cache_.find(std::make_tuple(std::string(api_version), std::string(kind),
                                        std::string(ns), std::string(name)));
  return it == cache_.end() ? nullptr : &it->second;
}

Result<std::optional<json::value>> fetch_runtime(kube::Client& client, const TrainJob& job,
                                                 const std::string& ns,
                                                 const kube::CallOptions& call) {
  const bool namespaced = job.spec.runtime_ref.kind.value_or("") == kTrainingRuntimeKind;
  auto object = cluster::get(
      client, namespaced ? cluster::Kind::kTrainingRuntime : cluster::Kind::kClusterTrainingRuntime,
      ns, job.spec.runtime_ref.name, call);
  if (!object) {
    if (object.error().code == ErrorCode::kNotFound) return std::nullopt;
    return tl::unexpected(std::move(object.error()));
  }
  return json::value(std::move(*object));
}

}  // namespace trainer::controller::detail
