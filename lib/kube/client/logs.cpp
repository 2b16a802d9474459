// SPDX-License-Identifier: Apache-2.0
//
// Client::logs: a pod's log streamed as it arrives (reference section 11). The body is raw text;
// an error answer is a Status like any other.
#include "kube/client/client_impl.hpp"
#include "kube/client/paths.hpp"

namespace trainer::kube {

Result<void> Client::logs(std::string_view ns, std::string_view pod, const LogOptions& options,
                          const std::function<bool(std::string_view)>& on_data) {
  Resource pods;
  pods.version = "v1";
  pods.resource = "pods";
  pods.kind = "Pod";
  auto path = detail::resource_path(pods, impl_->namespace_or_default(ns), pod, "log");
  if (!path) return tl::unexpected(path.error());
  detail::Query query;
  query.add_if("container", options.container);
  if (options.follow) query.add("follow", "true");
  if (options.tail_lines) query.add("tailLines", std::to_string(*options.tail_lines));
  if (options.since_seconds) query.add("sinceSeconds", std::to_string(*options.since_seconds));
  if (options.timestamps) query.add("timestamps", "true");
  auto request = detail::make_request("GET", *path + query.str(), options);
  request.headers.clear();
  request.headers.emplace_back("Accept", "*/*");
  request.on_data = on_data;
  auto response = impl_->send(request, detail::context_for("GET", pods, pod));
  if (!response) return tl::unexpected(response.error());
  return {};
}

}  // namespace trainer::kube
