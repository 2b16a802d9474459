// SPDX-License-Identifier: Apache-2.0
// `watch`: TrainJob events, optionally of one TrainJob (fieldSelector metadata.name).
#include "cluster/cluster_internal.hpp"

namespace trainer::cluster {

Result<void> watch(kube::Client& client, std::string_view ns, const WatchOptions& options,
                   const std::function<bool(const kube::WatchEvent&)>& on_event) {
  auto resource = resource_of(client, Kind::kTrainJob, options);
  if (!resource) return tl::unexpected(std::move(resource.error()));
  kube::WatchOptions watch_options;
  static_cast<kube::CallOptions&>(watch_options) = options;
  watch_options.label_selector = options.label_selector;
  if (!options.name.empty()) watch_options.field_selector = "metadata.name=" + options.name;
  watch_options.all_namespaces = options.all_namespaces;
  watch_options.resource_version = options.resource_version;
  return client.watch(*resource, ns, watch_options, on_event);
}

}  // namespace trainer::cluster
