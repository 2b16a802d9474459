// SPDX-License-Identifier: Apache-2.0
#include "api/decode_context.hpp"

#include <boost/json/array.hpp>

#include <limits>
#include <utility>

namespace trainer::detail {
namespace {

namespace json = boost::json;

const char* kind_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: return "object";
    case json::kind::array: return "array";
    case json::kind::string: return "string";
    case json::kind::bool_: return "boolean";
    case json::kind::null: return "null";
    default: return "number";
  }
}

// Embedded JSON for the typed object: moved out of a document the caller gave up (the only
// documents decoded with `takes_document`, so the const_cast never touches a const object),
// copied otherwise.
template <class Json>
Json embedded(const DecodeContext& c, const Json& v) {
  if (c.takes_document()) return std::move(const_cast<Json&>(v));
  return v;
}

// Go's decoder accepts only JSON integers (no fraction, no exponent) for integer fields.
template <class Int>
bool read_integer(DecodeContext& c, const json::value& v, const FieldPath& path, Int& out,
                  std::string_view expected) {
  if (v.is_int64()) {
    const std::int64_t i = v.get_int64();
    if (i >= std::numeric_limits<Int>::min() && i <= std::numeric_limits<Int>::max()) {
      out = static_cast<Int>(i);
      return true;
    }
  }
  c.type_error(path, v, expected);
  return false;
}

}  // namespace

void DecodeContext::type_error(const FieldPath& path, const json::value& value,
                               std::string_view expected) {
  if (error_) return;
  FieldError fe;
  if (value.is_object() || value.is_array()) {
    // A whole subtree would drown the message; name its kind instead.
    fe = field_type_invalid(path.str(), json::value(nullptr),
                            std::string(expected) + ", got " + kind_name(value));
    fe.value.reset();
  } else {
    fe = field_type_invalid(path.str(), value, std::string(expected));
  }
  Error e(ErrorCode::kParse, fe.to_string());
  e.fields.push_back(std::move(fe));
  error_ = std::move(e);
}

void DecodeContext::unknown_field(const FieldPath& path) {
  warnings_.push_back("unknown field \"" + path.str() + "\"");
}

void DecodeContext::refuse_unknown_fields() {
  if (!warnings_.empty() && !error_) error_ = Error(ErrorCode::kInvalid, warnings_.front());
  warnings_.clear();
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, std::string& out) {
  if (v.is_null()) {
    out.clear();
  } else if (v.is_string()) {
    out = std::string(v.get_string());
  } else {
    c.type_error(path, v, "expected string");
  }
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, bool& out) {
  if (v.is_null()) {
    out = false;
  } else if (v.is_bool()) {
    out = v.get_bool();
  } else {
    c.type_error(path, v, "expected boolean");
  }
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, std::int32_t& out) {
  if (v.is_null()) {
    out = 0;
    return;
  }
  (void)read_integer(c, v, path, out, "expected int32");
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, std::int64_t& out) {
  if (v.is_null()) {
    out = 0;
    return;
  }
  (void)read_integer(c, v, path, out, "expected int64");
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, json::object& out) {
  if (v.is_null()) {
    out.clear();
  } else if (v.is_object()) {
    out = embedded(c, v.get_object());
  } else {
    c.type_error(path, v, "expected object");
  }
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, json::array& out) {
  if (v.is_null()) {
    out.clear();
  } else if (v.is_array()) {
    out = embedded(c, v.get_array());
  } else {
    c.type_error(path, v, "expected array");
  }
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, StringMap& out) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_object()) {
    c.type_error(path, v, "expected object");
    return;
  }
  for (const auto& kv : v.get_object()) {
    std::string item;
    const json::value& value = kv.value();
    if (!value.is_null() && !value.is_string()) {
      c.type_error(FieldPath::map_key(path, kv.key()), value, "expected string");
      return;
    }
    read_value(c, value, path, item);
    out.emplace(std::string(kv.key()), std::move(item));
  }
}

}  // namespace trainer::detail
