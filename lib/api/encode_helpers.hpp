// SPDX-License-Identifier: Apache-2.0
//
// Building blocks of the typed -> JSON converters. Fields are emitted in Go struct order and
// follow Go's `omitempty`: absent optionals, empty lists and empty maps are left out; a present
// optional is written even when empty, so that decoding the output gives the same object back.
#pragma once

#include "trainer/model.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::detail {

/// Tag that brings the `to_value` overloads of trainer::detail into argument-dependent lookup
/// for model types, which live in namespace trainer.
struct Enc {};

inline boost::json::value to_value(Enc, const std::string& s) {
  return boost::json::value(boost::json::string(s));
}
inline boost::json::value to_value(Enc, bool b) {
  return boost::json::value(b);
}
inline boost::json::value to_value(Enc, std::int32_t i) {
  return boost::json::value(static_cast<std::int64_t>(i));
}
inline boost::json::value to_value(Enc, std::int64_t i) {
  return boost::json::value(i);
}
inline boost::json::value to_value(Enc, const boost::json::object& o) {
  return boost::json::value(o);
}
inline boost::json::value to_value(Enc, const StringMap& m) {
  boost::json::object o;
  for (const auto& [k, v] : m) o.emplace(k, boost::json::string(v));
  return boost::json::value(std::move(o));
}

template <class T>
boost::json::value to_value(Enc e, const std::vector<T>& items) {
  boost::json::array a;
  a.reserve(items.size());
  for (const T& item : items) a.push_back(to_value(e, item));
  return boost::json::value(std::move(a));
}

template <class T>
void put(boost::json::object& o, std::string_view key, const std::optional<T>& v) {
  if (v) o.emplace(key, to_value(Enc{}, *v));
}

/// omitempty for strings, lists and maps.
inline void put_nonempty(boost::json::object& o, std::string_view key, const std::string& s) {
  if (!s.empty()) o.emplace(key, boost::json::string(s));
}
template <class T>
void put_nonempty(boost::json::object& o, std::string_view key, const std::vector<T>& items) {
  if (!items.empty()) o.emplace(key, to_value(Enc{}, items));
}
inline void put_nonempty(boost::json::object& o, std::string_view key, const StringMap& m) {
  if (!m.empty()) o.emplace(key, to_value(Enc{}, m));
}
inline void put_nonempty(boost::json::object& o, std::string_view key,
                         const boost::json::array& a) {
  if (!a.empty()) o.emplace(key, a);
}

}  // namespace trainer::detail
