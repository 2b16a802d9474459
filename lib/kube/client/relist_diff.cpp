// SPDX-License-Identifier: Apache-2.0
#include "kube/client/relist_diff.hpp"

#include "trainer/json_path.hpp"

namespace trainer::kube::detail {

using trainer::find_object;
using trainer::find_string;

std::string object_key(const boost::json::object& object) {
  const auto* metadata = find_object(object, "metadata");
  if (metadata == nullptr) return {};
  const auto ns = find_string(*metadata, "namespace").value_or("");
  const auto name = find_string(*metadata, "name").value_or("");
  return ns.empty() ? name : ns + "/" + name;
}

std::string object_resource_version(const boost::json::object& object) {
  const auto* metadata = find_object(object, "metadata");
  return metadata == nullptr ? std::string()
                             : find_string(*metadata, "resourceVersion").value_or("");
}

void remember(KnownObjects& known, WatchEventType type, const boost::json::object& object) {
  if (type == WatchEventType::kBookmark) return;
  const std::string key = object_key(object);
  if (type == WatchEventType::kDeleted) {
    known.erase(key);
  } else {
    known[key] = object_resource_version(object);
  }
}

std::vector<WatchEvent> relist_events(KnownObjects& known, const boost::json::array& items,
                                      const Resource& resource) {
  std::vector<WatchEvent> events;
  KnownObjects listed;
  for (const auto& item : items) {
    if (!item.is_object()) continue;
    const auto& object = item.get_object();
    const std::string key = object_key(object);
    const std::string version = object_resource_version(object);
    listed[key] = version;
    const auto it = known.find(key);
    if (it == known.end()) {
      events.push_back({WatchEventType::kAdded, object});
    } else if (it->second != version) {
      events.push_back({WatchEventType::kModified, object});
    }
  }
  for (const auto& [key, version] : known) {
    if (listed.count(key) != 0) continue;
    boost::json::object metadata;
    const auto slash = key.find('/');
    if (slash == std::string::npos) {
      metadata["name"] = key;
    } else {
      metadata["namespace"] = key.substr(0, slash);
      metadata["name"] = key.substr(slash + 1);
    }
    metadata["resourceVersion"] = version;
    boost::json::object object;
    object["apiVersion"] = resource.api_version();
    object["kind"] = resource.kind;
    object["metadata"] = std::move(metadata);
    events.push_back({WatchEventType::kDeleted, std::move(object)});
  }
  known = std::move(listed);
  return events;
}

}  // namespace trainer::kube::detail
