// SPDX-License-Identifier: Apache-2.0
#include "validation/rules.hpp"

#include <functional>

namespace trainer::detail {
namespace {

// Order-insensitive comparison of two lists whose elements are identified by a key. Duplicate
// keys (already rejected by the schema) fall back to a multiset match, so nothing is skipped.
template <class T, class Key, class Eq>
bool keyed_equal(const std::vector<T>& a, const std::vector<T>& b, Key key, Eq eq) {
  if (a.size() != b.size()) return false;
  std::vector<bool> used(b.size(), false);
  for (const auto& x : a) {
    bool found = false;
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (!used[j] && key(x) == key(b[j]) && eq(x, b[j])) {
        used[j] = true;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

std::optional<boost::json::value> json_key(const boost::json::object& o,
                                           std::string_view key_field) {
  if (const auto* v = o.if_contains(key_field)) return *v;
  return std::nullopt;
}

bool named_objects_equal(const std::vector<boost::json::object>& a,
                         const std::vector<boost::json::object>& b) {
  return keyed_equal(
      a, b, [](const boost::json::object& o) { return json_key(o, "name"); },
      std::equal_to<boost::json::object>());
}

bool storage_initializer_equal(const StorageInitializer& a, const StorageInitializer& b) {
  const auto secret_name = [](const StorageInitializer& s) {
    return s.secret_ref ? std::optional<std::optional<std::string>>(s.secret_ref->name)
                        : std::nullopt;
  };
  return a.storage_uri == b.storage_uri && named_objects_equal(a.env, b.env) &&
         secret_name(a) == secret_name(b);
}

template <class T, class Eq>
bool optional_equal(const std::optional<T>& a, const std::optional<T>& b, Eq eq) {
  if (a.has_value() != b.has_value()) return false;
  return !a.has_value() || eq(*a, *b);
}

}  // namespace

bool cel_equal(const Initializer& a, const Initializer& b) {
  return optional_equal(a.dataset, b.dataset, storage_initializer_equal) &&
         optional_equal(a.model, b.model, storage_initializer_equal);
}

bool cel_equal(const Trainer& a, const Trainer& b) {
  return a.image == b.image && a.command == b.command && a.args == b.args &&
         named_objects_equal(a.env, b.env) && a.num_nodes == b.num_nodes &&
         a.resources_per_node == b.resources_per_node && a.num_proc_per_node == b.num_proc_per_node;
}

bool cel_equal_volumes(const std::vector<boost::json::object>& a,
                       const std::vector<boost::json::object>& b) {
  return named_objects_equal(a, b);
}

bool cel_equal(const std::vector<ContainerPatch>& a, const std::vector<ContainerPatch>& b) {
  return keyed_equal(
      a, b, [](const ContainerPatch& c) { return c.name; },
      [](const ContainerPatch& x, const ContainerPatch& y) {
        return named_objects_equal(x.env, y.env) &&
               named_objects_equal(x.volume_mounts, y.volume_mounts) &&
               x.security_context == y.security_context;
      });
}

bool cel_equal(const std::vector<LocalObjectReference>& a,
               const std::vector<LocalObjectReference>& b) {
  return keyed_equal(
      a, b, [](const LocalObjectReference& r) { return r.name; },
      [](const LocalObjectReference&, const LocalObjectReference&) { return true; });
}

bool cel_equal_map_list(const boost::json::array& a, const boost::json::array& b,
                        std::string_view key_field) {
  const std::vector<boost::json::value> av(a.begin(), a.end());
  const std::vector<boost::json::value> bv(b.begin(), b.end());
  return keyed_equal(
      av, bv,
      [key_field](const boost::json::value& v) -> std::optional<boost::json::value> {
        if (const auto* o = v.if_object()) return json_key(*o, key_field);
        return std::nullopt;
      },
      std::equal_to<boost::json::value>());
}

boost::json::value runtime_ref_json(const RuntimeRef& ref) {
  boost::json::object o;
  o["name"] = ref.name;
  if (ref.api_group) o["apiGroup"] = *ref.api_group;
  if (ref.kind) o["kind"] = *ref.kind;
  return o;
}

}  // namespace trainer::detail
