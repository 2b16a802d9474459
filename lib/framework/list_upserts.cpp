// SPDX-License-Identifier: Apache-2.0
//
// The list upserts and EnvVar builders of include/trainer/plugin_support.hpp (upstream pkg/apply).
#include "trainer/plugin_support.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace trainer {
namespace {

namespace json = boost::json;

const json::value* field(const json::value& item, std::string_view key) {
  const auto* obj = item.if_object();
  return obj != nullptr ? obj->if_contains(key) : nullptr;
}

// Replaces the first item `same` accepts, else appends: `item` is copied, or moved when the
// caller gives it up.
template <class Object, class Same>
void upsert(json::array& list, Object&& item, Same same) {
  auto it = std::find_if(list.begin(), list.end(), same);
  if (it != list.end()) {
    *it = std::forward<Object>(item);
  } else {
    list.push_back(std::forward<Object>(item));
  }
}

template <class Object>
void upsert_by_key(json::array& list, Object&& item, std::string_view key) {
  const auto* want = item.if_contains(key);
  upsert(list, std::forward<Object>(item), [&](const json::value& v) {
    const auto* have = field(v, key);
    return want != nullptr && have != nullptr && *have == *want;
  });
}

template <class Object>
void upsert_port_item(json::array& ports, Object&& port) {
  const auto* want_port = port.if_contains("containerPort");
  const auto* want_name = port.if_contains("name");
  upsert(ports, std::forward<Object>(port), [&](const json::value& v) {
    const auto* have_port = field(v, "containerPort");
    const auto* have_name = field(v, "name");
    const bool same_port = want_port != nullptr && have_port != nullptr && *have_port == *want_port;
    const bool same_name =
        (want_name == nullptr && have_name == nullptr) ||
        (want_name != nullptr && have_name != nullptr && *have_name == *want_name);
    return same_port || same_name;
  });
}

void copy_if_present(const json::object& from, json::object& to, std::string_view key) {
  if (const auto* v = from.if_contains(key)) to[key] = *v;
}

}  // namespace

void upsert_env(json::array& env, const json::object& var) {
  upsert_by_key(env, var, "name");
}

void upsert_env(json::array& env, json::object&& var) {
  upsert_by_key(env, std::move(var), "name");
}

void upsert_env(json::array& env, const json::array& vars) {
  for (const auto& v : vars) {
    if (v.is_object()) upsert_by_key(env, v.get_object(), "name");
  }
}

void upsert_env(json::array& env, json::array&& vars) {
  for (auto& v : vars) {
    if (v.is_object()) upsert_by_key(env, std::move(v.get_object()), "name");
  }
}

void upsert_port(json::array& ports, const json::object& port) {
  upsert_port_item(ports, port);
}

void upsert_port(json::array& ports, json::object&& port) {
  upsert_port_item(ports, std::move(port));
}

void upsert_volume(json::array& volumes, const json::object& volume) {
  upsert_by_key(volumes, volume, "name");
}

void upsert_volume(json::array& volumes, json::object&& volume) {
  upsert_by_key(volumes, std::move(volume), "name");
}

void upsert_volume_mount(json::array& mounts, const json::object& mount) {
  upsert_by_key(mounts, mount, "mountPath");
}

void upsert_volume_mount(json::array& mounts, json::object&& mount) {
  upsert_by_key(mounts, std::move(mount), "mountPath");
}

json::object env_to_apply_form(const json::object& var) {
  json::object out;
  out.reserve(3);  // name, value, valueFrom
  copy_if_present(var, out, "name");
  copy_if_present(var, out, "value");
  const auto* from = var.if_contains("valueFrom");
  if (from == nullptr || !from->is_object()) return out;
  const auto& src = from->get_object();
  json::object value_from;
  if (const auto* f = src.if_contains("fieldRef"); f != nullptr && f->is_object()) {
    json::object ref;
    copy_if_present(f->get_object(), ref, "fieldPath");
    value_from["fieldRef"] = std::move(ref);
  }
  if (const auto* r = src.if_contains("resourceFieldRef"); r != nullptr && r->is_object()) {
    json::object ref;
    for (const auto* key : {"containerName", "resource", "divisor"}) {
      copy_if_present(r->get_object(), ref, key);
    }
    value_from["resourceFieldRef"] = std::move(ref);
  }
  for (const auto* kind : {"configMapKeyRef", "secretKeyRef"}) {
    if (const auto* r = src.if_contains(kind); r != nullptr && r->is_object()) {
      json::object ref;
      for (const auto* key : {"name", "key", "optional"})
        copy_if_present(r->get_object(), ref, key);
      value_from[kind] = std::move(ref);
    }
  }
  if (!value_from.empty()) out["valueFrom"] = std::move(value_from);
  return out;
}

json::object env_value(std::string_view name, std::string_view value) {
  return json::object{{"name", name}, {"value", value}};
}

json::object env_field_ref(std::string_view name, std::string_view path) {
  return json::object{{"name", name},
                      {"valueFrom", json::object{{"fieldRef", json::object{{"fieldPath", path}}}}}};
}

}  // namespace trainer
