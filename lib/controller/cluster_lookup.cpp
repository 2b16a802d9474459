// SPDX-License-Identifier: Apache-2.0
#include "controller/cluster_lookup.hpp"

#include "trainer/model.hpp"

#include <utility>

namespace trainer::controller::detail {

namespace json = boost::json;

Result<std::optional<json::value>> ClusterLookup::get(std::string_view api_version,
                                                      std::string_view kind, std::string_view ns,
                                                      std::string_view name) {
  if (cache_ != nullptr) {
    auto read = cache_->get(api_version, kind, ns, name);
    if (read.hit == ObjectCache::Hit::kFound) return json::value(std::move(*read.object));
    if (read.hit == ObjectCache::Hit::kAbsent) return std::nullopt;
  }
  auto resource = client_.resource_for(api_version, kind, call_);
  if (!resource) {
    if (resource.error().code == ErrorCode::kNotFound) return std::nullopt;  // not served
    return tl::unexpected(std::move(resource.error()));
  }
  auto object = client_.get(*resource, resource->namespaced ? ns : "", name, call_);
  if (!object) {
    if (object.error().code == ErrorCode::kNotFound) return std::nullopt;
    return tl::unexpected(std::move(object.error()));
  }
  return json::value(std::move(*object));
}

std::optional<json::value> ClusterLookup::find(std::string_view api_version, std::string_view kind,
                                               std::string_view ns, std::string_view name) {
  auto key = std::make_tuple(std::string(api_version), std::string(kind), std::string(ns),
                             std::string(name));
  if (auto it = seen_.find(key); it != seen_.end()) return it->second;
  auto found = get(api_version, kind, ns, name);
  if (!found) {
    if (!error_) error_ = std::move(found.error());
    return std::nullopt;  // not remembered: the pass fails anyway
  }
  seen_.emplace(std::move(key), *found);
  return std::move(*found);
}

const std::optional<json::value>* ClusterLookup::cached(std::string_view api_version,
                                                        std::string_view kind, std::string_view ns,
                                                        std::string_view name) const {
  auto it = seen_.find(std::make_tuple(std::string(api_version), std::string(kind), std::string(ns),
                                       std::string(name)));
  return it == seen_.end() ? nullptr : &it->second;
}

Result<std::optional<json::value>> fetch_runtime(ClusterLookup& lookup, const TrainJob& job,
                                                 const std::string& ns) {
  const bool namespaced = job.spec.runtime_ref.kind.value_or("") == kTrainingRuntimeKind;
  return lookup.get(kApiVersion, namespaced ? kTrainingRuntimeKind : kClusterTrainingRuntimeKind,
                    namespaced ? ns : std::string(), job.spec.runtime_ref.name);
}

}  // namespace trainer::controller::detail
