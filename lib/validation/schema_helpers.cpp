// SPDX-License-Identifier: Apache-2.0
#include "validation/schema_helpers.hpp"

#include <cmath>
#include <limits>
#include <utility>

namespace trainer::detail {

std::size_t utf8_length(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char c : s) {
    // Count every byte that does not continue a multi-byte sequence.
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
  }
  return n;
}

std::optional<std::int64_t> as_integer(const boost::json::value& v) noexcept {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) {
    if (v.get_uint64() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(v.get_uint64());
  }
  if (v.is_double()) {
    const double d = v.get_double();
    // 2^63 bounds; anything integral inside them converts exactly.
    if (std::isfinite(d) && std::floor(d) == d && d >= -9.2233720368547758e18 &&
        d < 9.2233720368547758e18) {
      return static_cast<std::int64_t>(d);
    }
  }
  return std::nullopt;
}

const char* json_type_name(const boost::json::value& v) noexcept {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "integer";
    case boost::json::kind::double_: return as_integer(v) ? "integer" : "number";
    case boost::json::kind::string: return "string";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
  }
  return "null";
}

void check_max_length(Errors& errs, const FieldPath& path, std::string_view value,
                      std::size_t max) {
  if (utf8_length(value) > max) {
    errs.push_back(field_too_long(path.str(), boost::json::value(""), max));
  }
}

void check_max_items(Errors& errs, const FieldPath& path, std::size_t size, std::size_t max) {
  if (size > max) errs.push_back(field_too_many(path.str(), size, max));
}

void check_minimum(Errors& errs, const FieldPath& path, std::int64_t value, std::int64_t min) {
  if (value < min) {
    const std::string p = path.str();
    errs.push_back(
        field_invalid(p, boost::json::value(value),
                      p + " in body should be greater than or equal to " + std::to_string(min)));
  }
}

void check_maximum(Errors& errs, const FieldPath& path, std::int64_t value, std::int64_t max) {
  if (value > max) {
    const std::string p = path.str();
    errs.push_back(
        field_invalid(p, boost::json::value(value),
                      p + " in body should be less than or equal to " + std::to_string(max)));
  }
}

void check_enum(Errors& errs, const FieldPath& path, std::string_view value,
                std::initializer_list<std::string_view> allowed) {
  for (const auto a : allowed) {
    if (a == value) return;
  }
  errs.push_back(field_not_supported(path.str(), boost::json::value(value),
                                     std::vector<std::string>(allowed.begin(), allowed.end())));
}

void check_required_string(Errors& errs, const FieldPath& path, std::string_view value) {
  if (value.empty()) errs.push_back(field_required(path.str(), ""));
}

void report_pattern(Errors& errs, const FieldPath& path, const std::string& value,
                    std::string_view pattern) {
  const std::string p = path.str();
  errs.push_back(field_invalid(p, boost::json::value(value),
                               p + " in body should match '" + std::string(pattern) + "'"));
}

FieldError cel_invalid(const std::string& path, std::optional<boost::json::value> simple_value,
                       std::string message) {
  FieldError e{FieldErrorType::kInvalid, path, std::move(simple_value), std::move(message)};
  return e;
}

namespace {

// The indices of the second occurrence of each repeated key, in input order, as listtype's
// validateListSet reports them (a third occurrence is not reported again).
template <class T>
std::vector<std::size_t> second_occurrences(const std::vector<T>& keys) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::size_t seen = 0;
    for (std::size_t j = 0; j < i; ++j) {
      if (keys[j] == keys[i]) ++seen;
    }
    if (seen == 1) out.push_back(i);
  }
  return out;
}

}  // namespace

void check_unique_map_keys(Errors& errs, const FieldPath& path, std::string_view key_field,
                           const std::vector<std::optional<boost::json::value>>& keys) {
  for (const std::size_t i : second_occurrences(keys)) {
    boost::json::object dup;
    if (keys[i]) dup[key_field] = *keys[i];
    errs.push_back(field_duplicate(FieldPath::index(path, i).str(), std::move(dup)));
  }
}

void check_unique_set(Errors& errs, const FieldPath& path,
                      const std::vector<boost::json::value>& items) {
  for (const std::size_t i : second_occurrences(items)) {
    errs.push_back(field_duplicate(FieldPath::index(path, i).str(), items[i]));
  }
}

namespace {

FieldError type_error(const FieldPath& path, const boost::json::value& v,
                      std::string_view expected) {
  const std::string actual = json_type_name(v);
  const std::string p = path.str();
  return field_type_invalid(
      p, boost::json::value(actual),
      p + " in body must be of type " + std::string(expected) + ": \"" + actual + "\"");
}

}  // namespace

const boost::json::object* expect_object(Errors& errs, const FieldPath& path,
                                         const boost::json::value& v) {
  if (const auto* o = v.if_object()) return o;
  errs.push_back(type_error(path, v, "object"));
  return nullptr;
}

const boost::json::array* expect_array(Errors& errs, const FieldPath& path,
                                       const boost::json::value& v) {
  if (const auto* a = v.if_array()) return a;
  errs.push_back(type_error(path, v, "array"));
  return nullptr;
}

const boost::json::string* expect_string(Errors& errs, const FieldPath& path,
                                         const boost::json::value& v) {
  if (const auto* s = v.if_string()) return s;
  errs.push_back(type_error(path, v, "string"));
  return nullptr;
}

std::optional<std::int64_t> expect_integer(Errors& errs, const FieldPath& path,
                                           const boost::json::value& v) {
  if (auto i = as_integer(v)) return i;
  errs.push_back(type_error(path, v, "integer"));
  return std::nullopt;
}

void check_named_object_list(Errors& errs, const FieldPath& path,
                             const std::vector<boost::json::object>& items, std::size_t max_items,
                             std::initializer_list<std::string_view> required_fields) {
  check_max_items(errs, path, items.size(), max_items);
  std::vector<std::optional<boost::json::value>> keys;
  keys.reserve(items.size());
  for (const auto& item : items) {
    const auto* name = item.if_contains("name");
    keys.push_back(name != nullptr ? std::optional<boost::json::value>(*name) : std::nullopt);
  }
  check_unique_map_keys(errs, path, "name", keys);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const FieldPath item_path = FieldPath::index(path, i);
    for (const auto field : required_fields) {
      const auto* v = items[i].if_contains(field);
      if (v == nullptr) {
        errs.push_back(field_required(FieldPath::field(item_path, field).str(), ""));
      } else {
        (void)expect_string(errs, FieldPath::field(item_path, field), *v);
      }
    }
  }
}

}  // namespace trainer::detail
