// SPDX-License-Identifier: Apache-2.0
// `get` and `list` of the Trainer kinds (and `list` of any resource).
#include "cluster/cluster_internal.hpp"

#include <utility>

namespace trainer::cluster {

Result<boost::json::object> get(kube::Client& client, Kind kind, std::string_view ns,
                                std::string_view name, const kube::CallOptions& options) {
  return resource_of(client, kind, options).and_then([&](const kube::Resource& resource) {
    return client.get(resource, resource.namespaced ? ns : std::string_view(), name, options);
  });
}

Result<boost::json::object> list(kube::Client& client, Kind kind, std::string_view ns,
                                 const GetOptions& options) {
  return resource_of(client, kind, options).and_then([&](const kube::Resource& resource) {
    return list(client, resource, ns, options);
  });
}

Result<boost::json::object> list(kube::Client& client, const kube::Resource& resource,
                                 std::string_view ns, const GetOptions& options) {
  kube::ListOptions list_options;
  static_cast<kube::CallOptions&>(list_options) = options;
  list_options.label_selector = options.label_selector;
  list_options.all_namespaces = options.all_namespaces;
  return client.list(resource, resource.namespaced ? ns : std::string_view(), list_options);
}

}  // namespace trainer::cluster
