// SPDX-License-Identifier: Apache-2.0
//
// The JSON merge patch of the status write, computed from the status as read (upstream:
// `client.MergeFrom(prev)`), so only what the reconcile changed is sent.
#include "controller/controller_internal.hpp"

#include <boost/json/object.hpp>

namespace trainer::controller::detail {

namespace json = boost::json;

json::value merge_patch(const json::value& from, const json::value& to) {
  if (!from.is_object() || !to.is_object()) {
    if (from == to) return nullptr;
    return to;
  }
  const json::object& a = from.get_object();
  const json::object& b = to.get_object();
  json::object patch;
  for (const auto& kv : a) {
    // RFC 7386: null removes a key.
    if (!b.contains(kv.key())) patch[kv.key()] = nullptr;
  }
  for (const auto& kv : b) {
    const auto* old = a.if_contains(kv.key());
    if (old == nullptr) {
      patch[kv.key()] = kv.value();
      continue;
    }
    if (*old == kv.value()) continue;
    if (old->is_object() && kv.value().is_object()) {
      patch[kv.key()] = merge_patch(*old, kv.value());
    } else {
      patch[kv.key()] = kv.value();
    }
  }
  if (patch.empty()) return nullptr;
  return patch;
}

}  // namespace trainer::controller::detail
