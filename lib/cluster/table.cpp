// SPDX-License-Identifier: Apache-2.0
// `table`: the server-side Table of a Trainer kind (the CRD's printer columns, computed by the
// server as kubectl asks for them), every page merged.
#include "api/json_path.hpp"
#include "cluster/cluster_internal.hpp"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include <string>
#include <utility>

namespace trainer::cluster {
namespace {

namespace json = boost::json;

// kubectl's Accept header for `get` (reference 4.3).
constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
    "g=meta.k8s.io,application/json";
constexpr int kPageSize = 500;

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
  if (trainer::detail::find_string(table, "kind").value_or("") != "Table") {
    return fail(ErrorCode::kServer, "the server did not answer with a Table");
  }
  return std::move(table);
}

}  // namespace

Result<boost::json::object> table(kube::Client& client, Kind kind, std::string_view ns,
                                  std::string_view name, const GetOptions& options) {
  auto resource = resource_of(client, kind, options);
  if (!resource) return tl::unexpected(std::move(resource.error()));
  if (!name.empty() && !detail::valid_path_segment(name)) {
    return fail(ErrorCode::kInvalidArgument,
                "invalid resource name \"" + std::string(name) + "\": may not contain '/' or '%'");
  }
  const std::string the_ns = ns.empty() ? client.default_namespace() : std::string(ns);
  const std::string path =
      detail::api_path(*resource, the_ns, name, name.empty() && options.all_namespaces);
  if (!name.empty()) return fetch_page(client, path, "", options);

  std::string base_query = "limit=" + std::to_string(kPageSize);
  if (!options.label_selector.empty()) {
    base_query += "&labelSelector=" + detail::query_escape(options.label_selector);
  }
  json::object merged;
  std::string next;
  do {
    std::string query = base_query;
    if (!next.empty()) query += "&continue=" + detail::query_escape(next);
    auto page = fetch_page(client, path, query, options);
    if (!page) return page;
    const auto* meta = trainer::detail::find_object(*page, "metadata");
    next = meta != nullptr ? trainer::detail::find_string(*meta, "continue").value_or("") : "";
    if (merged.empty()) {
      merged = std::move(*page);
      continue;
    }
    auto& rows = trainer::detail::ensure_array(merged, "rows");
    if (const auto* more = trainer::detail::find_array(*page, "rows")) {
      rows.insert(rows.end(), more->begin(), more->end());
    }
  } while (!next.empty());
  if (auto* meta = trainer::detail::find_object(merged, "metadata")) meta->erase("continue");
  return merged;
}

}  // namespace trainer::cluster
