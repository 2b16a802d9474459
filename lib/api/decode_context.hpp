// SPDX-License-Identifier: Apache-2.0
//
// Building blocks of the JSON -> typed converters (struct_codec.hpp and the plugin Info view).
// A converter walks an object's keys in document order, so unknown-field warnings come out in
// the order kubectl prints them. The first type error is kept and every later step becomes a
// no-op (a sticky error instead of exceptions, so nothing can escape the public API).
#pragma once

#include "api/field_path.hpp"
#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::detail {

class DecodeContext {
 public:
  DecodeContext() = default;
  /// `takes_document`: the caller gives the document up, so embedded JSON (objects and arrays
  /// carried verbatim: a runtime's JobSet template, env lists) is moved out of it instead of
  /// copied. A render decodes its inputs once and never reads them again.
  explicit DecodeContext(bool takes_document) noexcept : takes_document_(takes_document) {}

  [[nodiscard]] bool takes_document() const noexcept { return takes_document_; }
  [[nodiscard]] bool failed() const noexcept { return error_.has_value(); }
  /// Records the first wrong-type error: `<path>: Invalid value: <v>: expected <what>`.
  void type_error(const FieldPath& path, const boost::json::value& value,
                  std::string_view expected);
  /// `unknown field "<path>"`, kubectl's strict-decoding warning.
  void unknown_field(const FieldPath& path);
  /// Turns the first pending unknown-field warning into a `kInvalid` error, for views where a
  /// misspelt key would otherwise be dropped without a word (the plugin Info view).
  void refuse_unknown_fields();
  void fail(Error error) {
    if (!error_) error_ = std::move(error);
  }

  [[nodiscard]] const std::optional<Error>& error() const noexcept { return error_; }
  [[nodiscard]] std::vector<std::string> take_warnings() { return std::move(warnings_); }

 private:
  bool takes_document_ = false;
  std::optional<Error> error_;
  std::vector<std::string> warnings_;
};

// Scalars and embedded objects. JSON null leaves the zero value, as Go's decoder does.
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                std::string& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path, bool& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                std::int32_t& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                std::int64_t& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                boost::json::object& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                boost::json::array& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                StringMap& out);

template <class T>
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                std::optional<T>& out) {
  if (v.is_null()) {
    out.reset();
    return;
  }
  T item{};
  read_value(c, v, path, item);
  out = std::move(item);
}

template <class T>
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                std::vector<T>& out) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_array()) {
    c.type_error(path, v, "expected array");
    return;
  }
  const boost::json::array& a = v.get_array();
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size() && !c.failed(); ++i) {
    T item{};
    read_value(c, a[i], FieldPath::index(path, i), item);
    out.push_back(std::move(item));
  }
}

/// Matches one key of an object against the fields of a typed struct.
struct FieldMatch {
  DecodeContext& context;
  std::string_view key;
  const boost::json::value& value;
  const FieldPath& path;

  template <class T>
  bool operator()(std::string_view name, T& out) const {
    if (key != name) return false;
    read_value(context, value, path, out);
    return true;
  }
  /// A field of the Go type that the model does not keep (e.g. `metadata.selfLink`).
  [[nodiscard]] bool ignored(std::string_view name) const { return key == name; }
};

/// Calls `match(FieldMatch&)` for every key of the object `v` in document order; a key it
/// does not recognise (returns false) becomes an unknown-field warning.
template <class Match>
void read_fields(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                 Match&& match) {
  if (v.is_null() || c.failed()) return;
  if (!v.is_object()) {
    c.type_error(path, v, "expected object");
    return;
  }
  for (const auto& kv : v.get_object()) {
    if (c.failed()) return;
    const FieldPath child = FieldPath::field(path, kv.key());
    FieldMatch m{c, kv.key(), kv.value(), child};
    if (!match(m)) c.unknown_field(child);
  }
}

}  // namespace trainer::detail
