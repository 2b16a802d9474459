// SPDX-License-Identifier: Apache-2.0
//
// Paged lists as client-go's pager does them (reference section 6): `limit` pages followed by
// their `continue` token until it is empty (never by counting items), merged into one List (or
// one server-side Table, for `trainerctl get`).
// A continue token that expired (410 Expired, after compaction) on page 2 or later restarts
// the list once, whole, without `limit`; an error on page 1 is returned.
#pragma once

#include "trainer/kube.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace trainer::kube::detail {

/// Fetches one page: `limit` 0 means no limit, `continue_token` empty means the first page.
using PageFetcher = std::function<Result<boost::json::object>(std::int64_t limit,
                                                              const std::string& continue_token)>;

/// Every page: the first one with the `key` array (`items` of a List, `rows` of a Table) of
/// each later page appended and `metadata.continue` removed.
[[nodiscard]] Result<boost::json::object> merge_pages(std::int64_t limit,
                                                      const PageFetcher& fetch_page,
                                                      std::string_view key);

/// Every page, merged: `{"apiVersion", "kind": "<Kind>List", "metadata": {"resourceVersion"},
/// "items"}`, each item with its apiVersion and kind (a List's items lack them for built-in
/// kinds).
[[nodiscard]] Result<boost::json::object> collect_pages(const Resource& resource,
                                                        std::int64_t limit,
                                                        const PageFetcher& fetch_page);

}  // namespace trainer::kube::detail
