// SPDX-License-Identifier: Apache-2.0
//
// What a kube::Client holds, and the request helpers its operations (client.cpp, discovery.cpp,
// list_pager.cpp, watch.cpp, logs.cpp) share: every answer that is not 2xx becomes an Error here.
#pragma once

#include "kube/client/status_error.hpp"
#include "kube/client/transport.hpp"
#include "trainer/kube.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::kube {

struct Client::Impl {
  Config config;
  ClientOptions client_options;
  std::unique_ptr<detail::Transport> transport;

  /// Calls sent, by method (RequestCounts' order: GET, POST, PUT, PATCH, DELETE, other).
  std::array<std::atomic<std::uint64_t>, 6> sent{};

  std::mutex discovery_mutex;
  std::optional<std::vector<Resource>> discovered;  ///< guarded by discovery_mutex

  /// Sends `request`; a non-2xx answer is the Status error it carries (401/403 texts name the
  /// credentials that were sent).
  Result<detail::HttpResponse> send(const detail::HttpRequest& request,
                                    const detail::RequestContext& context);
  /// `send`, then the body as a JSON object (decoded as it arrives).
  Result<boost::json::object> send_object(detail::HttpRequest request,
                                          const detail::RequestContext& context);

  /// Every resource the server serves (cached; `refresh` fetches again unless this call
  /// already fetched: `*fetched` says whether it did).
  Result<std::vector<Resource>> resources(const CallOptions& options, bool refresh,
                                          bool* fetched = nullptr);

  /// One full list (list_pager.cpp): pages merged, restarted once without `limit` when the
  /// continue token expires.
  Result<boost::json::object> list_all(const Resource& resource, std::string_view ns,
                                       const ListOptions& options);

  /// `ns`, or the client's default namespace when empty.
  [[nodiscard]] std::string namespace_or_default(std::string_view ns) const;
};

namespace detail {

/// A request with the call's cancel token and timeout and `Accept: application/json`.
[[nodiscard]] HttpRequest make_request(std::string method, std::string target,
                                       const CallOptions& options);

/// The context for error texts: `(get trainjobs.trainer.kubeflow.org x)`.
[[nodiscard]] RequestContext context_for(std::string method, const Resource& resource,
                                         std::string_view name);

}  // namespace detail
}  // namespace trainer::kube
