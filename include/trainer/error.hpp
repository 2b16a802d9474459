// SPDX-License-Identifier: Apache-2.0
//
// The error model shared by every layer of libtrainer: a stable code, a message, and the
// Kubernetes-style field errors (`field.Error`) that validation collects.
#pragma once

#include <boost/json/value.hpp>
#include <tl/expected.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer {

/// Stable error codes. The numeric values are the C ABI's `TRAINER_E_*` status codes; they are
/// never renumbered and new codes are only appended.
enum class ErrorCode : int {
  kOk = 0,
  kInvalidArgument = -1,  ///< the caller passed something unusable (NULL, bad option value)
  kParse = -2,            ///< the input is not well-formed YAML/JSON or has the wrong shape
  kInvalid = -3,          ///< the input is well-formed but violates admission rules (field errors)
  kLimit = -4,            ///< the input exceeds a configured limit (size, depth, aliases)
  kNotFound = -5,         ///< a referenced object does not exist
  kUnsupported = -6,      ///< the feature is compiled out or not implemented for this input
  kNoMemory = -7,         ///< allocation failed
  kInternal = -8,         ///< a bug in libtrainer
  kUser = -9,             ///< a user callback reported failure
  kIo = -10,              ///< an operating-system or network operation failed
  kTimeout = -11,         ///< an operation did not complete in time
  kCancelled = -12,       ///< the caller cancelled the operation (kube::CancelToken)
  kUnauthorized = -13,    ///< an API server refused the credentials (HTTP 401)
  kForbidden = -14,       ///< an API server denied the request (HTTP 403, RBAC or admission)
  kConflict = -15,        ///< an API server reported a conflict (HTTP 409: AlreadyExists, Conflict)
  kServer = -16,          ///< any other error an API server answered (see Error::http_status)
  kFailed = -17,          ///< what was awaited can no longer happen (a TrainJob Failed meanwhile)
};

/// Kubernetes `field.ErrorType`. `to_string()` gives the text Kubernetes prints.
enum class FieldErrorType {
  kNotFound,      ///< "Not found"
  kRequired,      ///< "Required value"
  kDuplicate,     ///< "Duplicate value"
  kInvalid,       ///< "Invalid value"
  kNotSupported,  ///< "Unsupported value"
  kForbidden,     ///< "Forbidden"
  kTooLong,       ///< "Too long"
  kTooMany,       ///< "Too many"
  kInternal,      ///< "Internal error"
  kTypeInvalid,   ///< "Invalid value" (wrong JSON type)
};

/// One violation at a field path, rendered exactly like Kubernetes `field.Error.Error()`:
/// `<path>: <Type>[: <value>][: <detail>]`.
struct FieldError {
  FieldErrorType type = FieldErrorType::kInvalid;
  std::string path;  ///< e.g. `spec.trainer.numNodes`, `spec.runtimePatches[0].manager`
  /// The offending value; `std::nullopt` means "omitted" (Kubernetes `field.OmitValueType`).
  std::optional<boost::json::value> value;
  std::string detail;
  /// When set, `body()` is this text: a `details.causes[].message` from an API server, which
  /// sends the value and the detail as one message (`Invalid value: 0: must be ...`).
  std::optional<std::string> server_body = std::nullopt;

  /// Kubernetes `ErrorBody()`: the text after `<path>: `.
  [[nodiscard]] std::string body() const;
  /// Kubernetes `Error()`: `<path>: <body>`.
  [[nodiscard]] std::string to_string() const;

  friend bool operator==(const FieldError& a, const FieldError& b) {
    return a.type == b.type && a.path == b.path && a.value == b.value && a.detail == b.detail &&
           a.server_body == b.server_body;
  }
};

/// Kubernetes' text for a field error type (`Invalid value`, `Required value`, ...).
[[nodiscard]] const char* to_string(FieldErrorType type) noexcept;
/// Kubernetes' Go constant name (`FieldValueInvalid`, `FieldValueRequired`, ...).
[[nodiscard]] const char* go_name(FieldErrorType type) noexcept;

/// An error value. For `kInvalid` the `fields` list holds every violation found; `message` is
/// then the aggregate text (one violation: its text; several: `[a, b, ...]`, as Kubernetes'
/// `ErrorList.ToAggregate().Error()`).
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::vector<FieldError> fields;
  /// For an error a Kubernetes API server answered: the HTTP status code (0 for every other
  /// error) and the `Status.reason` (`NotFound`, `Invalid`, `Conflict`, `Expired`, ...; empty
  /// when the server sent none). `message` is then what kubectl prints after its prefix
  /// (`kube::kubectl_text()` gives the whole line).
  int http_status = 0;
  std::string reason;

  Error() = default;
  Error(ErrorCode c, std::string msg) : code(c), message(std::move(msg)) {}

  /// An `kInvalid` error from a non-empty list of field errors, with the aggregate message.
  [[nodiscard]] static Error invalid(std::vector<FieldError> errors);
};

/// The result of every fallible libtrainer call.
template <class T>
using Result = tl::expected<T, Error>;

/// Shorthand for returning an error from a function that yields `Result<T>`.
[[nodiscard]] inline tl::unexpected<Error> fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error(code, std::move(message)));
}

// Constructors for field errors, named like Kubernetes' `field.Invalid(...)` helpers.
[[nodiscard]] FieldError field_invalid(std::string path, boost::json::value value,
                                       std::string detail);
[[nodiscard]] FieldError field_required(std::string path, std::string detail);
[[nodiscard]] FieldError field_forbidden(std::string path, std::string detail);
[[nodiscard]] FieldError field_duplicate(std::string path, boost::json::value value);
[[nodiscard]] FieldError field_not_supported(std::string path, boost::json::value value,
                                             const std::vector<std::string>& valid_values);
[[nodiscard]] FieldError field_too_long(std::string path, boost::json::value value,
                                        std::size_t max_length);
[[nodiscard]] FieldError field_too_many(std::string path, std::size_t actual,
                                        std::size_t max_items);
[[nodiscard]] FieldError field_type_invalid(std::string path, boost::json::value value,
                                            std::string detail);
[[nodiscard]] FieldError field_internal(std::string path, std::string detail);

/// `s` quoted as Go's `%q` does (`"a\"b"`, control bytes as `\x01`, UTF-8 as it is): how
/// upstream's messages quote a value, so that a message built with it reads as upstream's.
[[nodiscard]] std::string go_quote(std::string_view s);

}  // namespace trainer
