// SPDX-License-Identifier: Apache-2.0
#include "trainer/error.hpp"

#include "api/number_text.hpp"
#include "api/value_text.hpp"

#include <boost/json/serialize.hpp>

namespace trainer {
namespace {}  // namespace

// Kubernetes prints simple values with %v, strings with %q and everything else through a
// printer of its own; we print composite values as compact JSON (see docs/upstream-differences.md).
std::string detail::value_text(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::string: return go_quote(std::string(v.get_string()));
    case boost::json::kind::bool_: return v.get_bool() ? "true" : "false";
    case boost::json::kind::double_: return detail::double_text(v.get_double());
    default: return boost::json::serialize(v);
  }
}

const char* to_string(FieldErrorType type) noexcept {
  switch (type) {
    case FieldErrorType::kNotFound: return "Not found";
    case FieldErrorType::kRequired: return "Required value";
    case FieldErrorType::kDuplicate: return "Duplicate value";
    case FieldErrorType::kInvalid: return "Invalid value";
    case FieldErrorType::kNotSupported: return "Unsupported value";
    case FieldErrorType::kForbidden: return "Forbidden";
    case FieldErrorType::kTooLong: return "Too long";
    case FieldErrorType::kTooMany: return "Too many";
    case FieldErrorType::kInternal: return "Internal error";
    case FieldErrorType::kTypeInvalid: return "Invalid value";
  }
  return "Invalid value";
}

const char* go_name(FieldErrorType type) noexcept {
  switch (type) {
    case FieldErrorType::kNotFound: return "FieldValueNotFound";
    case FieldErrorType::kRequired: return "FieldValueRequired";
    case FieldErrorType::kDuplicate: return "FieldValueDuplicate";
    case FieldErrorType::kInvalid: return "FieldValueInvalid";
    case FieldErrorType::kNotSupported: return "FieldValueNotSupported";
    case FieldErrorType::kForbidden: return "FieldValueForbidden";
    case FieldErrorType::kTooLong: return "FieldValueTooLong";
    case FieldErrorType::kTooMany: return "FieldValueTooMany";
    case FieldErrorType::kInternal: return "InternalError";
    case FieldErrorType::kTypeInvalid: return "FieldValueTypeInvalid";
  }
  return "FieldValueInvalid";
}

std::string FieldError::body() const {
  if (server_body) return *server_body;
  std::string s = trainer::to_string(type);
  // Kubernetes never prints the value of these types, whatever was passed.
  const bool value_hidden = type == FieldErrorType::kRequired ||
                            type == FieldErrorType::kForbidden ||
                            type == FieldErrorType::kTooLong || type == FieldErrorType::kInternal;
  if (!value_hidden && value.has_value()) {
    s += ": ";
    s += detail::value_text(*value);
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string FieldError::to_string() const {
  return path + ": " + body();
}

Error Error::invalid(std::vector<FieldError> errors) {
  Error e(ErrorCode::kInvalid, {});
  if (errors.size() == 1) {
    e.message = errors.front().to_string();
  } else {
    // Kubernetes' aggregate: "[a, b]" (a single error is printed bare).
    e.message = "[";
    for (std::size_t i = 0; i < errors.size(); ++i) {
      if (i != 0) e.message += ", ";
      e.message += errors[i].to_string();
    }
    e.message += "]";
  }
  e.fields = std::move(errors);
  return e;
}

FieldError field_invalid(std::string path, boost::json::value value, std::string detail) {
  return {FieldErrorType::kInvalid, std::move(path), std::move(value), std::move(detail)};
}

FieldError field_required(std::string path, std::string detail) {
  return {FieldErrorType::kRequired, std::move(path), boost::json::value(""), std::move(detail)};
}

FieldError field_forbidden(std::string path, std::string detail) {
  return {FieldErrorType::kForbidden, std::move(path), boost::json::value(""), std::move(detail)};
}

FieldError field_duplicate(std::string path, boost::json::value value) {
  return {FieldErrorType::kDuplicate, std::move(path), std::move(value), {}};
}

FieldError field_not_supported(std::string path, boost::json::value value,
                               const std::vector<std::string>& valid_values) {
  std::string detail;
  if (!valid_values.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < valid_values.size(); ++i) {
      if (i != 0) detail += ", ";
      detail += go_quote(valid_values[i]);
    }
  }
  return {FieldErrorType::kNotSupported, std::move(path), std::move(value), std::move(detail)};
}

FieldError field_too_long(std::string path, boost::json::value value, std::size_t max_length) {
  std::string detail =
      "may not be more than " + std::to_string(max_length) + (max_length == 1 ? " byte" : " bytes");
  return {FieldErrorType::kTooLong, std::move(path), std::move(value), std::move(detail)};
}

FieldError field_too_many(std::string path, std::size_t actual, std::size_t max_items) {
  std::string detail =
      "must have at most " + std::to_string(max_items) + (max_items == 1 ? " item" : " items");
  return {FieldErrorType::kTooMany, std::move(path),
          boost::json::value(static_cast<std::uint64_t>(actual)), std::move(detail)};
}

FieldError field_type_invalid(std::string path, boost::json::value value, std::string detail) {
  return {FieldErrorType::kTypeInvalid, std::move(path), std::move(value), std::move(detail)};
}

FieldError field_internal(std::string path, std::string detail) {
  return {FieldErrorType::kInternal, std::move(path), std::nullopt, std::move(detail)};
}

}  // namespace trainer
