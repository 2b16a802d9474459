// SPDX-License-Identifier: Apache-2.0
// API paths and query values of the requests lib/cluster sends through `Client::raw`.
#include "cluster/cluster_internal.hpp"

#include <curl/curl.h>

#include <memory>

namespace trainer::cluster::detail {

bool valid_path_segment(std::string_view name) noexcept {
  return name != "." && name != ".." && name.find_first_of("/%") == std::string_view::npos;
}

std::string api_path(const kube::Resource& resource, std::string_view ns, std::string_view name,
                     bool all_namespaces) {
  std::string path = resource.group.empty() ? "/api/" + resource.version
                                            : "/apis/" + resource.group + "/" + resource.version;
  if (resource.namespaced && !all_namespaces) {
    path += "/namespaces/";
    path += ns;
  }
  path += "/" + resource.resource;
  if (!name.empty()) {
    path += "/";
    path += name;
  }
  return path;
}

std::string query_escape(std::string_view value) {
  // The handle argument is unused since libcurl 7.82.
  const std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size())), &curl_free);
  return escaped ? std::string(escaped.get()) : std::string();
}

}  // namespace trainer::cluster::detail
