// SPDX-License-Identifier: Apache-2.0
//
// Building blocks that reproduce how the Kubernetes API server reports CRD schema (kube-openapi)
// and CEL failures for custom resources, so that every rule file renders the same texts.
#pragma once

#include "api/field_path.hpp"
#include "trainer/error.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::detail {

using Errors = std::vector<FieldError>;

/// `field.Path.String()` of the nil path, which is where the API server reports CEL rules declared
/// on the root of a CRD schema (the TrainJob `metadata.name` rules).
inline constexpr const char* kRootPath = "<nil>";

/// The rules carry their field paths as `FieldPath` steps (`FieldPath::field` for `a.b`,
/// `FieldPath::index` for `a[3]`, `FieldPath::map_key` for `a[key]`, field.Path's rendering), so
/// a path is written out only for an error: the rules visit every field of every object admitted.

/// kube-openapi `maxLength` counts Unicode code points, although the message says "bytes".
[[nodiscard]] std::size_t utf8_length(std::string_view s) noexcept;

/// The JSON Schema type name kube-openapi reports for a value (`integer` for integral numbers).
[[nodiscard]] const char* json_type_name(const boost::json::value& v) noexcept;

// Schema rules, with the texts of apiextensions-apiserver's kubeOpenAPIResultToFieldErrors.
void check_max_length(Errors& errs, const FieldPath& path, std::string_view value, std::size_t max);
void check_max_items(Errors& errs, const FieldPath& path, std::size_t size, std::size_t max);
void check_minimum(Errors& errs, const FieldPath& path, std::int64_t value, std::int64_t min);
void check_maximum(Errors& errs, const FieldPath& path, std::int64_t value, std::int64_t max);
void check_enum(Errors& errs, const FieldPath& path, std::string_view value,
                std::initializer_list<std::string_view> allowed);
/// A required string field. The typed model cannot tell an absent field from `""`, so an empty
/// value is reported as absent (`Required value`), the common case.
void check_required_string(Errors& errs, const FieldPath& path, std::string_view value);
/// `<path> in body should match '<pattern>'`.
void report_pattern(Errors& errs, const FieldPath& path, const std::string& value,
                    std::string_view pattern);

/// A failed CEL rule: `Invalid` at `path`. Since Kubernetes 1.35 the value shown is the field's
/// own value when it is a string, number or boolean, and omitted for objects and lists.
[[nodiscard]] FieldError cel_invalid(const std::string& path,
                                     std::optional<boost::json::value> simple_value,
                                     std::string message);

/// Uniqueness of `x-kubernetes-list-type: map` keys (one key field) as apiextensions' listtype
/// validation does it: a `Duplicate` error at the second occurrence of a key only, with the value
/// `{"<key>": <key>}` (or `{}` for entries without the key).
void check_unique_map_keys(Errors& errs, const FieldPath& path, std::string_view key_field,
                           const std::vector<std::optional<boost::json::value>>& keys);
/// `x-kubernetes-list-type: set`: `Duplicate` at the second occurrence with the item as value.
void check_unique_set(Errors& errs, const FieldPath& path,
                      const std::vector<boost::json::value>& items);

/// Type assertions for embedded JSON objects: on mismatch they record kube-openapi's
/// `Invalid value: "<actual>": <path> in body must be of type <expected>: "<actual>"` and return
/// nullptr / nullopt, so that callers can skip what is below.
const boost::json::object* expect_object(Errors& errs, const FieldPath& path,
                                         const boost::json::value& v);
const boost::json::array* expect_array(Errors& errs, const FieldPath& path,
                                       const boost::json::value& v);
const boost::json::string* expect_string(Errors& errs, const FieldPath& path,
                                         const boost::json::value& v);
std::optional<std::int64_t> expect_integer(Errors& errs, const FieldPath& path,
                                           const boost::json::value& v);

/// An integral JSON number (Go's unstructured decoding accepts `1.0` as an integer).
[[nodiscard]] std::optional<std::int64_t> as_integer(const boost::json::value& v) noexcept;

/// Validation of `[]corev1.EnvVar`-like map lists carried as JSON objects: maxItems, `name`
/// required and unique.
void check_named_object_list(Errors& errs, const FieldPath& path,
                             const std::vector<boost::json::object>& items, std::size_t max_items,
                             std::initializer_list<std::string_view> required_fields);

}  // namespace trainer::detail
