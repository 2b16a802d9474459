// SPDX-License-Identifier: Apache-2.0
//
// What a watch delivers after it had to relist (410: the version it resumed from was
// compacted): the difference between the objects it knew and the new list, as client-go's
// reflector does when it replaces its store (reference section 7.4).
#pragma once

#include "trainer/kube.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <map>
#include <string>
#include <vector>

namespace trainer::kube::detail {

/// A known object: the key `<namespace>/<name>` (or `<name>`) to its resourceVersion.
using KnownObjects = std::map<std::string, std::string>;

[[nodiscard]] std::string object_key(const boost::json::object& object);
[[nodiscard]] std::string object_resource_version(const boost::json::object& object);

/// Records `event` in `known` (DELETED removes, ADDED/MODIFIED set the version).
void remember(KnownObjects& known, WatchEventType type, const boost::json::object& object);

/// ADDED for items not in `known`, MODIFIED for items whose version changed (list order), then
/// DELETED for known objects the list no longer holds (key order; their object is the last
/// known identity: apiVersion, kind, name, namespace and resourceVersion). `known` becomes the
/// list's contents.
[[nodiscard]] std::vector<WatchEvent> relist_events(KnownObjects& known,
                                                    const boost::json::array& items,
                                                    const Resource& resource);

}  // namespace trainer::kube::detail
