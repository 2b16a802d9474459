// SPDX-License-Identifier: Apache-2.0
//
// The small value functions of kube.hpp: Resource names and watch event type names.
#include "trainer/kube.hpp"

#include "api/ascii.hpp"

#include <cctype>

namespace trainer::kube {

std::string Resource::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string Resource::kind_group() const {
  const std::string out = ascii::to_lower(kind);
  return group.empty() ? out : out + "." + group;
}

const char* to_string(WatchEventType type) noexcept {
  switch (type) {
    case WatchEventType::kAdded: return "ADDED";
    case WatchEventType::kModified: return "MODIFIED";
    case WatchEventType::kDeleted: return "DELETED";
    case WatchEventType::kBookmark: return "BOOKMARK";
  }
  return "ADDED";
}

}  // namespace trainer::kube
