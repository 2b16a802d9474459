// SPDX-License-Identifier: Apache-2.0
//
// Non-2xx answers as trainer::Error, the way client-go classifies them (reference section 5.3):
// a `Status` body with `status: Failure` is taken as it is; anything else is synthesized from the
// HTTP code (client-go's NewGenericServerResponse), naming the request.
//
// What `Error` holds: `http_status` and `reason` as the server gave them (or synthesized), the
// code mapped (404 kNotFound, 422 kInvalid, 401 kUnauthorized, 403 kForbidden, 409 kConflict,
// 504 and the Timeout/ServerTimeout reasons kTimeout, any other kServer), and as `message` what
// kubectl prints after its prefix. For `Invalid` kubectl prints no prefix but builds its text
// from `details.kind`, `details.name` and the causes, which the Error has no place for, so there
// `message` is kubectl's whole text (`The TrainJob "x" is invalid: spec.a: ...`) and each cause
// is also a FieldError (path = cause.field, server_body = cause.message).
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace trainer::kube::detail {

/// What the failed request was, for synthesized messages: `(get trainjobs.trainer.kubeflow.org x)`.
struct RequestContext {
  std::string method;  ///< `GET`, `POST`, ...
  std::string
      resource;      ///< qualified plural (`trainjobs.trainer.kubeflow.org`, `pods`); may be empty
  std::string name;  ///< may be empty
};

/// The error for a `Status` object with `status: Failure` (an answer body or the object of a
/// watch ERROR event); `http_status` is used where the Status has no `code`.
[[nodiscard]] Error error_from_status(const boost::json::object& status, long http_status);

/// The error for a non-2xx answer.
[[nodiscard]] Error error_from_response(long http_status, std::string_view content_type,
                                        std::string_view body, const RequestContext& context);

/// The code trainer::Error uses for an HTTP status and Status reason.
[[nodiscard]] ErrorCode code_for(long http_status, std::string_view reason) noexcept;

/// Whether `error` says a resourceVersion or continue token is too old (410, Expired/Gone).
[[nodiscard]] bool is_expired(const Error& error) noexcept;

}  // namespace trainer::kube::detail
