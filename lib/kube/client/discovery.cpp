// SPDX-License-Identifier: Apache-2.0
//
// Discovery as client-go does it (reference section 4.2): aggregated discovery on /api and
// /apis (one request each), the legacy walk over every group version where a server does not
// offer it. The result is cached for the client's lifetime and fetched again once when a lookup
// misses (a CRD installed after the first lookup).
#include "kube/client/discovery.hpp"
#include "kube/client/client_impl.hpp"
#include "kube/client/json_body.hpp"
#include "kube/client/paths.hpp"

namespace trainer::kube {
namespace {

using detail::HttpRequest;

// One discovery root (`/api` or `/apis`), aggregated when the server answers so, else walked.
Result<void> discover_root(Client::Impl& impl, const std::string& root, const CallOptions& options,
                           std::vector<Resource>& out) {
  HttpRequest request = detail::make_request("GET", root, options);
  request.headers.clear();
  request.headers.emplace_back("Accept", detail::kAggregatedDiscoveryAccept);
  const detail::RequestContext context{"GET", "", ""};
  auto response = impl.send(request, context);
  if (!response) return tl::unexpected(response.error());
  auto document = detail::parse_object(response->body, "the answer to GET " + root);
  if (!document) return tl::unexpected(document.error());
  const std::string* content_type = response->header("content-type");
  if (content_type != nullptr && detail::is_aggregated_discovery(*content_type)) {
    auto resources = detail::parse_aggregated_discovery(*document);
    out.insert(out.end(), resources.begin(), resources.end());
    return {};
  }
  for (const auto& [group, version] : detail::parse_group_versions(*document)) {
    const std::string path = detail::group_version_path(group, version);
    auto list = impl.send_object(detail::make_request("GET", path, options), context);
    if (!list) {
      // client-go keeps what it could discover when one group version fails (an aggregated
      // API server that is down); only cancellation stops the walk.
      if (list.error().code == ErrorCode::kCancelled) return tl::unexpected(list.error());
      continue;
    }
    auto resources = detail::parse_resource_list(*list);
    out.insert(out.end(), resources.begin(), resources.end());
  }
  return {};
}

}  // namespace

Result<std::vector<Resource>> Client::Impl::resources(const CallOptions& options, bool refresh,
                                                      bool* fetched) {
  // One discovery at a time: concurrent first lookups share one fetch.
  const std::lock_guard<std::mutex> lock(discovery_mutex);
  if (fetched != nullptr) *fetched = !discovered || refresh;
  if (discovered && !refresh) return *discovered;
  std::vector<Resource> found;
  for (const char* root : {"/api", "/apis"}) {
    if (auto ok = discover_root(*this, root, options, found); !ok) {
      return tl::unexpected(ok.error());
    }
  }
  discovered = found;
  return found;
}

Result<Resource> Client::resource_for(std::string_view api_version, std::string_view kind,
                                      const CallOptions& options) {
  bool fetched = false;
  for (const bool refresh : {false, true}) {
    // A miss in the cache refreshes it once; a miss in what was just fetched is final.
    if (refresh && fetched) break;
    auto resources = impl_->resources(options, refresh, &fetched);
    if (!resources) return tl::unexpected(resources.error());
    if (auto found = detail::find_kind(*resources, api_version, kind)) return *found;
  }
  return fail(ErrorCode::kNotFound, "the server doesn't have a resource type \"" +
                                        std::string(kind) + "\" in \"" + std::string(api_version) +
                                        "\"");
}

Result<Resource> Client::resource_named(std::string_view name, const CallOptions& options) {
  bool fetched = false;
  for (const bool refresh : {false, true}) {
    // A miss in the cache refreshes it once; a miss in what was just fetched is final.
    if (refresh && fetched) break;
    auto resources = impl_->resources(options, refresh, &fetched);
    if (!resources) return tl::unexpected(resources.error());
    if (auto found = detail::find_named(*resources, name)) return *found;
  }
  return fail(ErrorCode::kNotFound,
              "the server doesn't have a resource type \"" + std::string(name) + "\"");
}

}  // namespace trainer::kube
