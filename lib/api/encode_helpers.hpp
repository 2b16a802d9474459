// SPDX-License-Identifier: Apache-2.0
//
// Typed -> JSON of the member types that are not structs; struct_codec.hpp walks the structs
// and decides which fields are left out.
#pragma once

#include "trainer/model.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <utility>
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
inline boost::json::value to_value(Enc, const boost::json::array& a) {
  return boost::json::value(a);
}
// Of a struct given up (struct_codec.hpp's write_field): moved, not copied.
inline boost::json::value to_value(Enc, boost::json::object&& o) {
  return boost::json::value(std::move(o));
}
inline boost::json::value to_value(Enc, boost::json::array&& a) {
  return boost::json::value(std::move(a));
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
boost::json::value to_value(Enc e, std::vector<T>&& items) {
  boost::json::array a;
  a.reserve(items.size());
  for (T& item : items) a.push_back(to_value(e, std::move(item)));
  return boost::json::value(std::move(a));
}

}  // namespace trainer::detail
