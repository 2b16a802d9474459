// SPDX-License-Identifier: Apache-2.0
#include "kube/client/discovery.hpp"

#include "api/ascii.hpp"
#include "trainer/json_path.hpp"

#include <algorithm>
#include <cctype>

namespace trainer::kube::detail {
namespace {

using trainer::find_array;
using trainer::find_object;
using trainer::find_string;

std::vector<std::string> strings_at(const boost::json::object& object, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* array = find_array(object, key)) {
    for (const auto& v : *array) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
  }
  return out;
}

using ascii::to_lower;

}  // namespace

bool is_aggregated_discovery(std::string_view content_type) {
  return content_type.find("as=APIGroupDiscoveryList") != std::string_view::npos &&
         content_type.find("g=apidiscovery.k8s.io") != std::string_view::npos;
}

std::vector<Resource> parse_aggregated_discovery(const boost::json::object& list) {
  std::vector<Resource> out;
  const auto* items = find_array(list, "items");
  if (items == nullptr) return out;
  for (const auto& item : *items) {
    if (!item.is_object()) continue;
    const auto& group_doc = item.get_object();
    const auto* metadata = find_object(group_doc, "metadata");
    const std::string group = metadata ? find_string(*metadata, "name").value_or("") : "";
    const auto* versions = find_array(group_doc, "versions");
    if (versions == nullptr) continue;
    for (const auto& version_value : *versions) {
      if (!version_value.is_object()) continue;
      const auto& version_doc = version_value.get_object();
      const std::string version = find_string(version_doc, "version").value_or("");
      const auto* resources = find_array(version_doc, "resources");
      if (resources == nullptr) continue;
      for (const auto& resource_value : *resources) {
        if (!resource_value.is_object()) continue;
        const auto& doc = resource_value.get_object();
        Resource r;
        r.group = group;
        r.version = version;
        r.resource = find_string(doc, "resource").value_or("");
        if (const auto* kind = find_object(doc, "responseKind")) {
          r.kind = find_string(*kind, "kind").value_or("");
        }
        r.singular = find_string(doc, "singularResource").value_or("");
        if (r.singular.empty()) r.singular = to_lower(r.kind);
        r.namespaced = find_string(doc, "scope").value_or("") == "Namespaced";
        r.verbs = strings_at(doc, "verbs");
        r.short_names = strings_at(doc, "shortNames");
        if (!r.resource.empty() && !r.kind.empty()) out.push_back(std::move(r));
      }
    }
  }
  return out;
}

std::vector<Resource> parse_resource_list(const boost::json::object& list) {
  std::vector<Resource> out;
  const std::string group_version = find_string(list, "groupVersion").value_or("");
  const auto slash = group_version.find('/');
  const std::string group = slash == std::string::npos ? "" : group_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? group_version : group_version.substr(slash + 1);
  const auto* resources = find_array(list, "resources");
  if (resources == nullptr) return out;
  for (const auto& value : *resources) {
    if (!value.is_object()) continue;
    const auto& doc = value.get_object();
    Resource r;
    r.group = group;
    r.version = version;
    r.resource = find_string(doc, "name").value_or("");
    if (r.resource.empty() || r.resource.find('/') != std::string::npos) continue;
    r.kind = find_string(doc, "kind").value_or("");
    r.singular = find_string(doc, "singularName").value_or("");
    if (r.singular.empty()) r.singular = to_lower(r.kind);
    const auto* namespaced = doc.if_contains("namespaced");
    r.namespaced = namespaced != nullptr && namespaced->is_bool() && namespaced->get_bool();
    r.verbs = strings_at(doc, "verbs");
    r.short_names = strings_at(doc, "shortNames");
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_group_versions(
    const boost::json::object& list) {
  std::vector<std::pair<std::string, std::string>> out;
  if (const auto* groups = find_array(list, "groups")) {
    for (const auto& value : *groups) {
      if (!value.is_object()) continue;
      const auto& group = value.get_object();
      const std::string name = find_string(group, "name").value_or("");
      std::string preferred;
      if (const auto* p = find_object(group, "preferredVersion")) {
        preferred = find_string(*p, "version").value_or("");
      }
      if (!preferred.empty()) out.emplace_back(name, preferred);
      if (const auto* versions = find_array(group, "versions")) {
        for (const auto& v : *versions) {
          if (!v.is_object()) continue;
          const auto version = find_string(v.get_object(), "version").value_or("");
          if (!version.empty() && version != preferred) out.emplace_back(name, version);
        }
      }
    }
    return out;
  }
  for (const auto& version : strings_at(list, "versions")) out.emplace_back("", version);
  return out;
}

std::optional<Resource> find_kind(const std::vector<Resource>& resources,
                                  std::string_view api_version, std::string_view kind) {
  const auto slash = api_version.find('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  const std::string_view version =
      slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  for (const auto& r : resources) {
    if (r.group == group && r.version == version && r.kind == kind) return r;
  }
  return std::nullopt;
}

std::optional<Resource> find_named(const std::vector<Resource>& resources, std::string_view name) {
  const std::string wanted = to_lower(name);
  const auto matches = [](const Resource& r, const std::string& n) {
    return r.resource == n || r.singular == n || to_lower(r.kind) == n ||
           std::find(r.short_names.begin(), r.short_names.end(), n) != r.short_names.end();
  };
  // `trainjobs.trainer.kubeflow.org` or `trainjob.v1alpha1.trainer.kubeflow.org`.
  const auto dot = wanted.find('.');
  if (dot != std::string::npos) {
    const std::string head = wanted.substr(0, dot);
    const std::string rest = wanted.substr(dot + 1);
    for (const auto& r : resources) {
      if (matches(r, head) && (r.group == rest || r.version + "." + r.group == rest)) return r;
    }
  }
  for (const auto& r : resources) {
    if (matches(r, wanted)) return r;
  }
  return std::nullopt;
}

}  // namespace trainer::kube::detail
