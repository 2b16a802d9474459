// SPDX-License-Identifier: Apache-2.0
// `remove`: delete one Trainer object (foreground by default: its JobSet goes first).
#include "cluster/cluster_internal.hpp"

namespace trainer::cluster {

Result<void> remove(kube::Client& client, Kind kind, std::string_view ns, std::string_view name,
                    const DeleteOptions& options) {
  auto resource = resource_of(client, kind, options);
  if (!resource) return tl::unexpected(std::move(resource.error()));
  kube::DeleteOptions delete_options;
  static_cast<kube::CallOptions&>(delete_options) = options;
  delete_options.propagation = options.propagation;
  delete_options.dry_run = options.dry_run;
  auto removed = client.remove(*resource, resource->namespaced ? ns : std::string_view(), name,
                               delete_options);
  if (!removed) return tl::unexpected(std::move(removed.error()));
  return {};
}

}  // namespace trainer::cluster
