// SPDX-License-Identifier: Apache-2.0
// trainer_error: conversion from trainer::Error, the exception guard's mapping, accessors.
#include "capi/capi.hpp"

#include <boost/json/serialize.hpp>
#include <tl/expected.hpp>

#include <exception>
#include <memory>
#include <new>

namespace trainer::capi {

// Statuses are the core's error codes, cast: the two lists must not drift apart.
static_assert(static_cast<int>(ErrorCode::kTimeout) == TRAINER_E_TIMEOUT &&
                  static_cast<int>(ErrorCode::kCancelled) == TRAINER_E_CANCELLED &&
                  static_cast<int>(ErrorCode::kUnauthorized) == TRAINER_E_UNAUTHORIZED &&
                  static_cast<int>(ErrorCode::kForbidden) == TRAINER_E_FORBIDDEN &&
                  static_cast<int>(ErrorCode::kConflict) == TRAINER_E_CONFLICT &&
                  static_cast<int>(ErrorCode::kServer) == TRAINER_E_SERVER &&
                  static_cast<int>(ErrorCode::kFailed) == TRAINER_E_FAILED,
              "TRAINER_E_* mirror trainer::ErrorCode");

trainer_error* make_error(const Error& error) {
  auto out = std::make_unique<trainer_error>();
  out->code = static_cast<trainer_status>(error.code);
  out->message = error.message;
  out->http_status = static_cast<int32_t>(error.http_status);
  out->reason = error.reason;
  out->fields.reserve(error.fields.size());
  for (const auto& f : error.fields) {
    trainer_error_field field;
    field.path = f.path;
    field.type = go_name(f.type);
    if (f.value.has_value()) field.value = boost::json::serialize(*f.value);
    field.detail = f.detail;
    field.full = f.to_string();
    out->fields.push_back(std::move(field));
  }
  return out.release();
}

trainer_error* make_error(trainer_status code, std::string message) {
  auto out = std::make_unique<trainer_error>();
  out->code = code;
  out->message = std::move(message);
  return out.release();
}

trainer_status set_error(trainer_error** err, const Error& error) {
  if (err != nullptr) *err = make_error(error);
  return static_cast<trainer_status>(error.code);
}

trainer_status set_error(trainer_error** err, trainer_status code, std::string message) {
  if (err != nullptr) *err = make_error(code, std::move(message));
  return code;
}

namespace {

// Building the error object may itself fail; the status is what matters then.
trainer_status report(trainer_error** err, trainer_status code, const char* message) noexcept {
  if (err == nullptr) return code;
  try {
    *err = make_error(code, message);
  } catch (...) {
    *err = nullptr;
  }
  return code;
}

}  // namespace

trainer_status status_from_current_exception(trainer_error** err) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return report(err, TRAINER_E_NOMEM, "out of memory");
  } catch (const tl::bad_expected_access<Error>& e) {
    try {
      return set_error(err, e.error());
    } catch (...) {
      return report(err, static_cast<trainer_status>(e.error().code), "error");
    }
  } catch (const std::exception& e) {
    // Boost.JSON (boost::system::system_error), yaml-cpp (YAML::Exception) and the standard
    // library all derive from std::exception; none of them should reach here.
    return report(err, TRAINER_E_INTERNAL, e.what());
  } catch (...) {
    return report(err, TRAINER_E_INTERNAL, "unknown error");
  }
}

}  // namespace trainer::capi

namespace {

const trainer_error_field* field_at(const trainer_error* err, size_t i) noexcept {
  if (err == nullptr || i >= err->fields.size()) return nullptr;
  return &err->fields[i];
}

}  // namespace

extern "C" {

void trainer_error_free(trainer_error* err) {
  trainer::capi::guard_void([&] { delete err; });
}

trainer_status trainer_error_code(const trainer_error* err) {
  return trainer::capi::guard_value<trainer_status>(TRAINER_E_INVALID_ARGUMENT, [&] {
    return err == nullptr ? TRAINER_E_INVALID_ARGUMENT : err->code;
  });
}

const char* trainer_error_message(const trainer_error* err) {
  return trainer::capi::guard_value<const char*>(
      "", [&] { return err == nullptr ? "" : err->message.c_str(); });
}

size_t trainer_error_field_count(const trainer_error* err) {
  return trainer::capi::guard_value<size_t>(
      0, [&] { return err == nullptr ? size_t{0} : err->fields.size(); });
}

const char* trainer_error_field_path(const trainer_error* err, size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    const auto* f = field_at(err, i);
    return f == nullptr ? nullptr : f->path.c_str();
  });
}

const char* trainer_error_field_type(const trainer_error* err, size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    const auto* f = field_at(err, i);
    return f == nullptr ? nullptr : f->type;
  });
}

const char* trainer_error_field_value(const trainer_error* err, size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    const auto* f = field_at(err, i);
    return f == nullptr || !f->value ? nullptr : f->value->c_str();
  });
}

const char* trainer_error_field_detail(const trainer_error* err, size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    const auto* f = field_at(err, i);
    return f == nullptr ? nullptr : f->detail.c_str();
  });
}

const char* trainer_error_field_string(const trainer_error* err, size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    const auto* f = field_at(err, i);
    return f == nullptr ? nullptr : f->full.c_str();
  });
}

int32_t trainer_error_http_status(const trainer_error* err) {
  return trainer::capi::guard_value<int32_t>(0,
                                             [&] { return err == nullptr ? 0 : err->http_status; });
}

const char* trainer_error_reason(const trainer_error* err) {
  return trainer::capi::guard_value<const char*>(
      "", [&] { return err == nullptr ? "" : err->reason.c_str(); });
}

const char* trainer_status_name(trainer_status status) {
  return trainer::capi::guard_value<const char*>("TRAINER_E_?", [&]() -> const char* {
    switch (status) {
      case TRAINER_OK: return "TRAINER_OK";
      case TRAINER_E_INVALID_ARGUMENT: return "TRAINER_E_INVALID_ARGUMENT";
      case TRAINER_E_PARSE: return "TRAINER_E_PARSE";
      case TRAINER_E_INVALID: return "TRAINER_E_INVALID";
      case TRAINER_E_LIMIT: return "TRAINER_E_LIMIT";
      case TRAINER_E_NOT_FOUND: return "TRAINER_E_NOT_FOUND";
      case TRAINER_E_UNSUPPORTED: return "TRAINER_E_UNSUPPORTED";
      case TRAINER_E_NOMEM: return "TRAINER_E_NOMEM";
      case TRAINER_E_INTERNAL: return "TRAINER_E_INTERNAL";
      case TRAINER_E_USER: return "TRAINER_E_USER";
      case TRAINER_E_IO: return "TRAINER_E_IO";
      case TRAINER_E_TIMEOUT: return "TRAINER_E_TIMEOUT";
      case TRAINER_E_CANCELLED: return "TRAINER_E_CANCELLED";
      case TRAINER_E_UNAUTHORIZED: return "TRAINER_E_UNAUTHORIZED";
      case TRAINER_E_FORBIDDEN: return "TRAINER_E_FORBIDDEN";
      case TRAINER_E_CONFLICT: return "TRAINER_E_CONFLICT";
      case TRAINER_E_SERVER: return "TRAINER_E_SERVER";
      case TRAINER_E_FAILED: return "TRAINER_E_FAILED";
      default: return "TRAINER_E_?";
    }
  });
}

}  // extern "C"
