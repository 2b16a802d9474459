// SPDX-License-Identifier: Apache-2.0
//
// Internals of the C ABI: the handle structs behind the opaque types of trainer.h, the one
// exception guard every `extern "C"` body goes through, and the conversions from the C++ core's
// values (trainer::Error, strings) to owned C objects.
#pragma once

#include "trainer.h"
#include "trainer/codec.hpp"
#include "trainer/error.hpp"
#include "trainer/local_progress.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

/// One field violation, every text pre-rendered so the accessors only hand out pointers.
struct trainer_error_field {
  std::string path;
  const char* type = "";             ///< static: trainer::go_name()
  std::optional<std::string> value;  ///< compact JSON; nullopt when omitted
  std::string detail;
  std::string full;  ///< Kubernetes `field.Error.Error()`
};

struct trainer_error {
  trainer_status code = TRAINER_E_INTERNAL;
  std::string message;
  std::vector<trainer_error_field> fields;
  int32_t http_status = 0;  ///< trainer::Error::http_status
  std::string reason;       ///< trainer::Error::reason
};

struct trainer_document {
  /// The Trainer kinds are typed; anything else is kept as JSON.
  std::variant<trainer::TrainJob, trainer::TrainingRuntime, trainer::ClusterTrainingRuntime,
               trainer::OptimizationJob, boost::json::value>
      object;
  std::vector<std::string> warnings;  ///< decoding warnings (`unknown field "..."`)
  // Cached header strings handed out by the accessors; refreshed after each mutation.
  std::string kind;
  std::string api_version;
  std::string name;
  std::string namespace_;

  void refresh_header();
};

/// A progress server for local runs; runs started with it hold their own reference.
struct trainer_progress_server {
  std::shared_ptr<trainer::local::ProgressServer> server;
};

struct trainer_document_list {
  std::vector<trainer_document> documents;
};

struct trainer_validation {
  std::vector<std::string> warnings;
};

namespace trainer::capi {

/// A new owned C error from a core error (code, message, every field error).
[[nodiscard]] trainer_error* make_error(const Error& error);
[[nodiscard]] trainer_error* make_error(trainer_status code, std::string message);

/// Stores `error` in `*err` when `err` is non-NULL; returns `error`'s status code. The "report a
/// failure" helper of every entry point.
trainer_status set_error(trainer_error** err, const Error& error);
trainer_status set_error(trainer_error** err, trainer_status code, std::string message);

/// Maps the exception being handled (call only inside a `catch`) to a status and, when `err` is
/// non-NULL, an error object: std::bad_alloc -> TRAINER_E_NOMEM; tl::bad_expected_access of a
/// trainer::Error -> that error; std::exception (Boost.JSON, yaml-cpp, std) -> TRAINER_E_INTERNAL
/// with its what(); anything else -> TRAINER_E_INTERNAL "unknown error". Never throws.
trainer_status status_from_current_exception(trainer_error** err) noexcept;

/// `set_error` with TRAINER_E_INVALID_ARGUMENT: an argument the caller got wrong.
inline trainer_status bad_argument(trainer_error** err, std::string message) {
  return set_error(err, TRAINER_E_INVALID_ARGUMENT, std::move(message));
}

/// A C string argument, NULL as "".
inline std::string str(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

/// Whether `fmt` is one of the trainer_format values.
inline bool known_format(trainer_format fmt) {
  return fmt == TRAINER_FORMAT_JSON || fmt == TRAINER_FORMAT_YAML ||
         fmt == TRAINER_FORMAT_JSON_PRETTY;
}

/// The caller's user data and its free function, freed when this goes unless `free_fn` was
/// cleared first: what an entry point holds on every early return until an owner takes it.
struct PendingUserData {
  void (*free_fn)(void*) = nullptr;
  void* user_data = nullptr;
  PendingUserData() = default;
  PendingUserData(const PendingUserData&) = delete;
  PendingUserData& operator=(const PendingUserData&) = delete;
  ~PendingUserData() {
    if (free_fn != nullptr) free_fn(user_data);
  }
};

/// The exception guard. Runs `body` (returning trainer_status); `*err` is reset to NULL first;
/// an exception becomes a status through status_from_current_exception().
template <class F>
trainer_status guard(trainer_error** err, F&& body) noexcept {
  if (err != nullptr) *err = nullptr;
  try {
    return std::forward<F>(body)();
  } catch (...) {
    return status_from_current_exception(err);
  }
}

/// The same guard for entry points that return a value instead of a status (accessors):
/// `fallback` is returned when `body` throws.
template <class T, class F>
T guard_value(T fallback, F&& body) noexcept {
  try {
    return std::forward<F>(body)();
  } catch (...) {
    (void)status_from_current_exception(nullptr);
    return fallback;
  }
}

/// The same guard for entry points without a result (`_free`).
template <class F>
void guard_void(F&& body) noexcept {
  try {
    std::forward<F>(body)();
  } catch (...) {
    (void)status_from_current_exception(nullptr);
  }
}

/// Applies the limits of `opts` (NULL: none) to `out`, reading only the fields that its struct
/// version has; the error text when its version is not supported (0 or newer than the header).
[[nodiscard]] std::optional<std::string> apply_parse_options(const trainer_parse_options* opts,
                                                             DecodeOptions& out);

/// The objects of a YAML stream or JSON text, a `v1` `List` replaced by its items.
[[nodiscard]] Result<std::vector<boost::json::value>> read_objects(
    std::string_view text, const DecodeOptions& options = {});

/// `kind`, `apiVersion`, `metadata.name` and `metadata.namespace` of a JSON object ("" for each
/// that is absent or not a string), as the C accessors hand them out.
struct ObjectHeader {
  std::string kind;
  std::string api_version;
  std::string name;
  std::string namespace_;
};
[[nodiscard]] ObjectHeader object_header(const boost::json::value& object);

/// Copies `text` into `out` with our allocator (NUL-terminated). Throws std::bad_alloc.
void buffer_assign(trainer_buffer* out, std::string_view text);

}  // namespace trainer::capi
