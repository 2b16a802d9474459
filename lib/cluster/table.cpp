// SPDX-License-Identifier: Apache-2.0
// `table`: the server-side Table of a Trainer kind or any resource (the CRD's printer columns,
// computed by the server as kubectl asks for them), every page merged.
#include "cluster/cluster_internal.hpp"
#include "kube/client/list_pager.hpp"
#include "kube/client/paths.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace trainer::cluster {
namespace {

namespace json = boost::json;

// kubectl's Accept header for `get` (reference 4.3).
constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";
constexpr std::int64_t kPageSize = 500;

Result<json::object> fetch_page(kube::Client& client, const std::string& path,
                                const std::string& query, const kube::CallOptions& options) {
  kube::RawRequest request;
  static_cast<kube::CallOptions&>(request) = options;
  request.path = path;
  request.query = query;
  request.headers.emplace_back("Accept", kTableAccept);
  auto response = client.raw(request);
  if (!response) return tl::unexpected(std::move(response.error()));
  boost::system::error_code ec;
  json::value body = json::parse(response->body, ec);
  if (ec || !body.is_object()) {
    return fail(ErrorCode::kServer, "the server's Table answer is not a JSON object");
  }
  auto& table = body.get_object();
  if (trainer::find_string(table, "kind").value_or("") != "Table") {
    return fail(ErrorCode::kServer, "the server did not answer with a Table");
  }
  return std::move(table);
}

}  // namespace

Result<boost::json::object> table(kube::Client& client, Kind kind, std::string_view ns,
                                  std::string_view name, const GetOptions& options) {
  return resource_of(client, kind, options).and_then([&](const kube::Resource& resource) {
    return table(client, resource, ns, name, options);
  });
}

Result<boost::json::object> table(kube::Client& client, const kube::Resource& resource,
                                  std::string_view ns, std::string_view name,
                                  const GetOptions& options) {
  if (!name.empty() && !kube::detail::check_path_segment("name", name)) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid resource name \"" + std::string(name) + "\": may not contain '/' or '%'");
  }
  const std::string scope = !resource.namespaced || (name.empty() && options.all_namespaces)
                                ? std::string()
                                : (ns.empty() ? client.default_namespace() : std::string(ns));
  auto path = kube::detail::resource_path(resource, scope, name);
  if (!path) return tl::unexpected(std::move(path.error()));
  if (!name.empty()) return fetch_page(client, *path, "", options);
  // Every page, as a list's (client-go's pager), the rows merged.
  return kube::detail::merge_pages(
      kPageSize,
      [&](std::int64_t limit, const std::string& continue_token) {
        kube::detail::Query query;
        query.add("limit", std::to_string(limit));
        query.add_if("labelSelector", options.label_selector);
        query.add_if("continue", continue_token);
        // Without the leading `?`: the raw request adds it.
        return fetch_page(client, *path, query.str().substr(1), options);
      },
      "rows");
}

}  // namespace trainer::cluster
