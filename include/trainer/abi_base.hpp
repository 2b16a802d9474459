// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's foundation (include <trainer.hpp>, which includes this): the library version and
// features, trainer_error -> trainer::Error, and the small helpers every section of the wrapper
// uses. Like all of trainer.hpp it calls nothing but the C ABI.
#pragma once

#include "trainer.h"
#include "trainer/error.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <tl/expected.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace trainer::abi {

// ---- Version and features --------------------------------------------------------------------

/// The library's version number at run time (compare with TRAINER_VERSION_NUMBER).
[[nodiscard]] inline std::uint32_t version_number() noexcept {
  return trainer_version_number();
}
/// The library's version string at run time ("0.1.0").
[[nodiscard]] inline std::string_view version_string() noexcept {
  return trainer_version_string();
}
/// Bitmask of TRAINER_FEATURE_* compiled into the library.
[[nodiscard]] inline std::uint32_t features() noexcept {
  return trainer_features();
}
/// Whether every bit of `feature` (TRAINER_FEATURE_*) is compiled in.
[[nodiscard]] inline bool has_feature(std::uint32_t feature) noexcept {
  return (trainer_features() & feature) == feature;
}
/// The constant name of a status code ("TRAINER_E_PARSE").
[[nodiscard]] inline std::string_view status_name(trainer_status status) noexcept {
  return trainer_status_name(status);
}

// ---- Errors ----------------------------------------------------------------------------------

/// The FieldErrorType whose Kubernetes Go name (`trainer_error_field_type`) is `go_name`;
/// kInternal for names this header does not know.
[[nodiscard]] inline FieldErrorType field_error_type_from_go_name(
    std::string_view go_name) noexcept {
  struct Entry {
    std::string_view name;
    FieldErrorType type;
  };
  static constexpr Entry kTypes[] = {
      {"FieldValueNotFound", FieldErrorType::kNotFound},
      {"FieldValueRequired", FieldErrorType::kRequired},
      {"FieldValueDuplicate", FieldErrorType::kDuplicate},
      {"FieldValueInvalid", FieldErrorType::kInvalid},
      {"FieldValueNotSupported", FieldErrorType::kNotSupported},
      {"FieldValueForbidden", FieldErrorType::kForbidden},
      {"FieldValueTooLong", FieldErrorType::kTooLong},
      {"FieldValueTooMany", FieldErrorType::kTooMany},
      {"InternalError", FieldErrorType::kInternal},
      {"FieldValueTypeInvalid", FieldErrorType::kTypeInvalid},
  };
  for (const auto& entry : kTypes) {
    if (entry.name == go_name) return entry.type;
  }
  return FieldErrorType::kInternal;
}

/// A copy of the C error `err` as a trainer::Error (code, message, field errors). `fallback` is
/// the code used when `err` is NULL (the caller passed no error object, or the library could not
/// allocate one). A field value that is not valid JSON (never produced by libtrainer) is kept as
/// a JSON string.
[[nodiscard]] inline Error to_error(const trainer_error* err, trainer_status fallback) {
  if (err == nullptr) {
    return Error(static_cast<ErrorCode>(fallback),
                 std::string("libtrainer call failed with ") + trainer_status_name(fallback));
  }
  Error out(static_cast<ErrorCode>(trainer_error_code(err)), trainer_error_message(err));
  const std::size_t n = trainer_error_field_count(err);
  out.fields.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    FieldError field;
    field.type = field_error_type_from_go_name(trainer_error_field_type(err, i));
    field.path = trainer_error_field_path(err, i);
    if (const char* value = trainer_error_field_value(err, i)) {
      boost::system::error_code ec;
      boost::json::value parsed = boost::json::parse(value, ec);
      field.value = ec ? boost::json::value(value) : std::move(parsed);
    }
    field.detail = trainer_error_field_detail(err, i);
    out.fields.push_back(std::move(field));
  }
  out.http_status = trainer_error_http_status(err);
  out.reason = trainer_error_reason(err);
  return out;
}

namespace detail {

struct ErrorDeleter {
  void operator()(trainer_error* err) const noexcept { trainer_error_free(err); }
};
using ErrorPtr = std::unique_ptr<trainer_error, ErrorDeleter>;

/// Takes ownership of `err` (the C call's error out-parameter) and converts it.
[[nodiscard]] inline tl::unexpected<Error> failure(trainer_status status, trainer_error* err) {
  const ErrorPtr owner(err);
  return tl::unexpected<Error>(to_error(owner.get(), status));
}

/// A trainer_buffer that frees itself.
struct Buffer {
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { trainer_buffer_free(&buf); }
  [[nodiscard]] std::string str() const {
    return buf.data == nullptr ? std::string() : std::string(buf.data, buf.len);
  }
};

[[nodiscard]] inline std::string_view view(const char* s) noexcept {
  return s == nullptr ? std::string_view() : std::string_view(s);
}
/// An optional string argument: "" is passed as NULL (the library default).
[[nodiscard]] inline const char* c_str(const std::string& s) noexcept {
  return s.empty() ? nullptr : s.c_str();
}
[[nodiscard]] inline std::int64_t millis(std::chrono::milliseconds d) noexcept {
  return static_cast<std::int64_t>(d.count());
}

}  // namespace detail

}  // namespace trainer::abi
