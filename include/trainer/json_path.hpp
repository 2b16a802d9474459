// SPDX-License-Identifier: Apache-2.0
//
// Small helpers to walk Kubernetes objects held as Boost.JSON values: the one JSON walker of the
// library, public so that a plugin written outside it walks objects as the built-in ones do.
// Each step that is missing or of another type yields null/nullopt/"" instead of throwing.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace trainer {

/// The object at `path` below `root`, or null when a step is missing or not an object.
[[nodiscard]] inline const boost::json::object* find_object(
    const boost::json::object& root, std::initializer_list<std::string_view> path) {
  const boost::json::object* cur = &root;
  for (auto key : path) {
    const auto* next = cur->if_contains(key);
    if (next == nullptr || !next->is_object()) return nullptr;
    cur = &next->get_object();
  }
  return cur;
}

[[nodiscard]] inline boost::json::object* find_object(
    boost::json::object& root, std::initializer_list<std::string_view> path) {
  boost::json::object* cur = &root;
  for (auto key : path) {
    auto* next = cur->if_contains(key);
    if (next == nullptr || !next->is_object()) return nullptr;
    cur = &next->get_object();
  }
  return cur;
}

/// The object at `key` of `obj`, or null when it is missing or not an object.
[[nodiscard]] inline const boost::json::object* find_object(const boost::json::object& obj,
                                                            std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr ? v->if_object() : nullptr;
}

[[nodiscard]] inline boost::json::object* find_object(boost::json::object& obj,
                                                      std::string_view key) {
  auto* v = obj.if_contains(key);
  return v != nullptr ? v->if_object() : nullptr;
}

/// The object at `path`, created (replacing null or non-object values) where missing.
[[nodiscard]] inline boost::json::object& ensure_object(
    boost::json::object& root, std::initializer_list<std::string_view> path) {
  boost::json::object* cur = &root;
  for (auto key : path) {
    auto& next = (*cur)[key];
    if (!next.is_object()) next = boost::json::object();
    cur = &next.get_object();
  }
  return *cur;
}

/// The array at `key` of `obj`, or null.
[[nodiscard]] inline const boost::json::array* find_array(const boost::json::object& obj,
                                                          std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}

[[nodiscard]] inline boost::json::array* find_array(boost::json::object& obj,
                                                    std::string_view key) {
  auto* v = obj.if_contains(key);
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}

/// The array at `key`, created (replacing null or non-array values) where missing.
[[nodiscard]] inline boost::json::array& ensure_array(boost::json::object& obj,
                                                      std::string_view key) {
  auto& v = obj[key];
  if (!v.is_array()) v = boost::json::array();
  return v.get_array();
}

/// The string at `key`, or nullopt.
[[nodiscard]] inline std::optional<std::string> find_string(const boost::json::object& obj,
                                                            std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

/// The string at `key`, or "" when it is missing or not a string.
[[nodiscard]] inline std::string string_at(const boost::json::object& obj, std::string_view key) {
  return find_string(obj, key).value_or("");
}

/// The string at `key` without a copy, or "" when it is missing or not a string; it refers into
/// `obj` and is valid while that string is.
[[nodiscard]] inline std::string_view string_view_at(const boost::json::object& obj,
                                                     std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_string()) return {};
  return v->get_string();
}

/// Whether the value at `key` is `true` (false when missing or not a boolean).
[[nodiscard]] inline bool bool_at(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

/// The integer at `key` (any JSON integer type), or nullopt.
[[nodiscard]] inline std::optional<std::int64_t> find_int(const boost::json::object& obj,
                                                          std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  return std::nullopt;
}

/// `metadata.name` of a Kubernetes object, "" when it has none.
[[nodiscard]] inline std::string object_name(const boost::json::object& obj) {
  const auto* meta = find_object(obj, "metadata");
  return meta != nullptr ? find_string(*meta, "name").value_or("") : "";
}

/// `metadata.namespace` of a Kubernetes object, "" when it has none.
[[nodiscard]] inline std::string object_namespace(const boost::json::object& obj) {
  const auto* meta = find_object(obj, "metadata");
  return meta != nullptr ? find_string(*meta, "namespace").value_or("") : "";
}

}  // namespace trainer
