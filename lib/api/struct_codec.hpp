// SPDX-License-Identifier: Apache-2.0
//
// JSON <-> typed for every described struct (model_describe.hpp, lib/plugin/info_describe.hpp),
// member by member. A member's type brings its own rules through the `read_value`/`to_value`
// overloads (scalars, lists, maps, embedded JSON, enums); only the walk over a struct's fields
// lives here.
#pragma once

#include "api/codec_rules.hpp"
#include "api/decode_context.hpp"
#include "api/encode_helpers.hpp"
#include "api/json_convert_enums.hpp"
#include "api/json_name.hpp"
#include "api/model_describe.hpp"

#include <boost/describe/members.hpp>
#include <boost/describe/modifiers.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace trainer::detail {

template <class T>
struct DescribedFields {
  using type = boost::describe::describe_members<T, boost::describe::mod_public>;
  // A member left out of its description would be dropped without a word: decoded as an
  // unknown field and never written.
  static_assert(boost::pfr::tuple_size_v<T> == boost::mp11::mp_size<type>::value,
                "every member of a described struct is listed in its BOOST_DESCRIBE_STRUCT");
};

template <class T>
using Fields = typename DescribedFields<T>::type;

template <class T>
inline constexpr bool kDescribed = boost::describe::has_describe_members<T>::value;

/// Keys are matched in document order, so unknown-field warnings come out as kubectl prints them.
template <class T, std::enable_if_t<kDescribed<T>, int> = 0>
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path, T& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    bool known = false;
    boost::mp11::mp_for_each<Fields<T>>([&](auto field) {
      using F = decltype(field);
      known = known || m(JsonName<F>::value, out.*F::pointer);
    });
    for (std::string_view dropped : kDroppedFields<T>) known = known || m.ignored(dropped);
    return known;
  });
  if constexpr (kUnknownFieldsAreErrors<T>) c.refuse_unknown_fields();
}

template <class T, class = void>
inline constexpr bool kHasEmpty = false;
template <class T>
inline constexpr bool kHasEmpty<T, std::void_t<decltype(std::declval<const T&>().empty())>> = true;

template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

/// `V` is `const T&`, or `T&&` when the struct is given up (a runtime encoded for its snapshot
/// after the render read it): then the members, embedded JSON included, are moved into the
/// JSON instead of copied.
///
/// A present optional is written even when empty, so that decoding the output gives it back.
/// A plain member is left out when its JSON would be empty ("", [] or {}): Go's `omitempty` on
/// strings, slices and maps and `omitzero` on structs. Containers answer before they are
/// encoded; a struct is empty when none of its fields is written.
template <class V>
void write_field(boost::json::object& o, std::string_view key, V&& v, bool when_empty) {
  using T = std::remove_cv_t<std::remove_reference_t<V>>;
  if constexpr (kIsOptional<T>) {
    if (v) o.emplace(key, to_value(Enc{}, *std::forward<V>(v)));
  } else if constexpr (kHasEmpty<T>) {
    if (when_empty || !v.empty()) o.emplace(key, to_value(Enc{}, std::forward<V>(v)));
  } else {
    boost::json::value j = to_value(Enc{}, std::forward<V>(v));
    const bool empty = j.is_object() && j.get_object().empty();
    if (when_empty || !empty) o.emplace(key, std::move(j));
  }
}

/// Fields in description order, which is Go's struct order. `S` as in write_field.
template <class S, class T = std::remove_cv_t<std::remove_reference_t<S>>,
          std::enable_if_t<kDescribed<T>, int> = 0>
boost::json::value to_value(Enc, S&& s) {
  boost::json::object o;
  boost::mp11::mp_for_each<Fields<T>>([&](auto field) {
    using F = decltype(field);
    write_field(o, JsonName<F>::value, std::forward<S>(s).*F::pointer,
                kWritesEmptyFields<T> || kWrittenWhenEmpty<F::pointer>);
  });
  return boost::json::value(std::move(o));
}

}  // namespace trainer::detail
