// SPDX-License-Identifier: Apache-2.0
#include "kube/client/list_pager.hpp"

#include "kube/client/client_impl.hpp"
#include "kube/client/paths.hpp"
#include "kube/client/status_error.hpp"
#include "trainer/json_path.hpp"

#include <utility>

namespace trainer::kube {
namespace detail {

using trainer::find_array;
using trainer::find_object;
using trainer::find_string;

Result<boost::json::object> merge_pages(std::int64_t limit, const PageFetcher& fetch_page,
                                        std::string_view key) {
  boost::json::object merged;
  std::string continue_token;
  for (int page = 0;; ++page) {
    auto answer = fetch_page(limit, continue_token);
    if (!answer) {
      if (page > 0 && limit > 0 && is_expired(answer.error())) {
        return merge_pages(0, fetch_page, key);
      }
      return tl::unexpected(answer.error());
    }
    const auto* metadata = find_object(*answer, "metadata");
    continue_token = metadata == nullptr ? "" : find_string(*metadata, "continue").value_or("");
    if (page == 0) {
      merged = std::move(*answer);
    } else if (auto* more = find_array(*answer, key)) {
      auto& all = trainer::ensure_array(merged, key);
      for (auto& entry : *more) all.push_back(std::move(entry));
    }
    if (continue_token.empty()) break;
  }
  if (auto* metadata = find_object(merged, "metadata")) metadata->erase("continue");
  return merged;
}

Result<boost::json::object> collect_pages(const Resource& resource, std::int64_t limit,
                                          const PageFetcher& fetch_page) {
  auto pages = merge_pages(limit, fetch_page, "items");
  if (!pages) return pages;
  const auto* metadata = find_object(*pages, "metadata");
  boost::json::array items;
  if (auto* page_items = find_array(*pages, "items")) {
    for (auto& item : *page_items) {
      if (auto* object = item.if_object()) {
        if (!object->contains("apiVersion")) (*object)["apiVersion"] = resource.api_version();
        if (!object->contains("kind")) (*object)["kind"] = resource.kind;
      }
      items.push_back(std::move(item));
    }
  }
  boost::json::object list;
  list["apiVersion"] = resource.api_version();
  list["kind"] = resource.kind + "List";
  list["metadata"] = boost::json::object{
      {"resourceVersion",
       metadata == nullptr ? "" : find_string(*metadata, "resourceVersion").value_or("")}};
  list["items"] = std::move(items);
  return list;
}

}  // namespace detail

Result<boost::json::object> Client::Impl::list_all(const Resource& resource, std::string_view ns,
                                                   const ListOptions& options) {
  const std::string scope =
      options.all_namespaces || !resource.namespaced ? "" : namespace_or_default(ns);
  auto path = detail::resource_path(resource, scope, "");
  if (!path) return tl::unexpected(path.error());
  const auto context = detail::context_for("GET", resource, "");
  return detail::collect_pages(
      resource, options.limit, [&](std::int64_t limit, const std::string& continue_token) {
        detail::Query query;
        query.add_if("labelSelector", options.label_selector);
        query.add_if("fieldSelector", options.field_selector);
        if (limit > 0) query.add("limit", std::to_string(limit));
        query.add_if("continue", continue_token);
        return send_object(detail::make_request("GET", *path + query.str(), options), context);
      });
}

Result<boost::json::object> Client::list(const Resource& resource, std::string_view ns,
                                         const ListOptions& options) {
  return impl_->list_all(resource, ns, options);
}

}  // namespace trainer::kube
