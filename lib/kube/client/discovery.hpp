// SPDX-License-Identifier: Apache-2.0
//
// Discovery documents (reference section 4.2) as Resource lists, and the lookups kubectl does
// on them. Fetching and caching are in discovery.cpp; this part is pure.
#pragma once

#include "trainer/kube.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::kube::detail {

/// The Accept header of aggregated discovery, with plain JSON as the fallback offer.
inline constexpr const char* kAggregatedDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/// Whether a Content-Type says the body is an APIGroupDiscoveryList.
[[nodiscard]] bool is_aggregated_discovery(std::string_view content_type);

/// The resources of an `APIGroupDiscoveryList` (`/api` or `/apis`), subresources left out, in
/// the server's order (groups by priority, each group's preferred version first).
[[nodiscard]] std::vector<Resource> parse_aggregated_discovery(const boost::json::object& list);

/// The resources of a legacy `APIResourceList` (`/api/v1`, `/apis/<g>/<v>`), subresources
/// (`pods/log`) left out.
[[nodiscard]] std::vector<Resource> parse_resource_list(const boost::json::object& list);

/// The group versions of a legacy `APIGroupList` (`/apis`) as (group, version), each group's
/// preferred version first; for `APIVersions` (`/api`), ("", version).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> parse_group_versions(
    const boost::json::object& list);

/// The resource of `kind` in `api_version` (`group/version` or `v1`).
[[nodiscard]] std::optional<Resource> find_kind(const std::vector<Resource>& resources,
                                                std::string_view api_version,
                                                std::string_view kind);

/// kubectl's resource argument: plural, singular, Kind or short name (case-insensitive),
/// optionally followed by `.<group>` or `.<version>.<group>`; the first match in discovery order.
[[nodiscard]] std::optional<Resource> find_named(const std::vector<Resource>& resources,
                                                 std::string_view name);

}  // namespace trainer::kube::detail
