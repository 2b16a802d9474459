// SPDX-License-Identifier: Apache-2.0
#include "kube/client/status_error.hpp"

#include "api/ascii.hpp"
#include "kube/client/json_body.hpp"
#include "trainer/json_path.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace trainer::kube::detail {
namespace {

using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

FieldErrorType field_type_for(std::string_view reason) {
  for (const auto type :
       {FieldErrorType::kNotFound, FieldErrorType::kRequired, FieldErrorType::kDuplicate,
        FieldErrorType::kInvalid, FieldErrorType::kNotSupported, FieldErrorType::kForbidden,
        FieldErrorType::kTooLong, FieldErrorType::kTooMany, FieldErrorType::kInternal,
        FieldErrorType::kTypeInvalid}) {
    if (reason == go_name(type)) return type;
  }
  return FieldErrorType::kInvalid;
}

// kubectl's checkErr for IsInvalid (reference section 5.4): a header from details.kind and
// details.name, then the causes rendered `<field>: <message>`, duplicates dropped; one cause on
// the header's line, several as `* ` lines.
std::string invalid_text(const std::string& message, const boost::json::object* details,
                         const std::vector<std::string>& causes) {
  std::string header = "The request is invalid";
  if (details == nullptr) return message.empty() ? header : header + ": " + message;
  const auto kind = find_string(*details, "kind").value_or("");
  const auto name = find_string(*details, "name").value_or("");
  if (!kind.empty() || !name.empty()) {
    header = "The " + kind + " \"" + name + "\" is invalid";
  } else if (!message.empty() && causes.empty()) {
    header += ": " + message;
  }
  if (causes.empty()) return header;
  if (causes.size() == 1) return header + ": " + causes.front();
  std::string text = header + ": ";
  for (const auto& cause : causes) text += "\n* " + cause;
  return text;
}

using ascii::to_lower;

}  // namespace

ErrorCode code_for(long http_status, std::string_view reason) noexcept {
  if (reason == "Timeout" || reason == "ServerTimeout") return ErrorCode::kTimeout;
  switch (http_status) {
    case 401: return ErrorCode::kUnauthorized;
    case 403: return ErrorCode::kForbidden;
    case 404: return ErrorCode::kNotFound;
    case 409: return ErrorCode::kConflict;
    case 422: return ErrorCode::kInvalid;
    case 504: return ErrorCode::kTimeout;
    default: return ErrorCode::kServer;
  }
}

bool is_expired(const Error& error) noexcept {
  return error.http_status == 410 || error.reason == "Expired" || error.reason == "Gone";
}

Error error_from_status(const boost::json::object& status, long http_status) {
  Error error;
  const auto code = find_int(status, "code");
  error.http_status = static_cast<int>(code && *code != 0 ? *code : http_status);
  error.reason = find_string(status, "reason").value_or("");
  error.message = find_string(status, "message").value_or("");
  error.code = code_for(error.http_status, error.reason);
  if (error.code != ErrorCode::kInvalid && error.reason != "Invalid") return error;

  error.code = ErrorCode::kInvalid;
  const auto* details = find_object(status, "details");
  std::vector<std::string> rendered;
  std::set<std::string> seen;
  if (const auto* causes = details != nullptr ? find_array(*details, "causes") : nullptr) {
    for (const auto& item : *causes) {
      if (!item.is_object()) continue;
      const auto& cause = item.get_object();
      FieldError field;
      field.type = field_type_for(find_string(cause, "reason").value_or(""));
      field.path = find_string(cause, "field").value_or("");
      field.server_body = find_string(cause, "message").value_or("");
      field.value = std::nullopt;
      const std::string text = field.path + ": " + *field.server_body;
      if (seen.insert(text).second) rendered.push_back(text);
      error.fields.push_back(std::move(field));
    }
  }
  error.message = invalid_text(error.message, details, rendered);
  return error;
}

Error error_from_response(long http_status, std::string_view content_type, std::string_view body,
                          const RequestContext& context) {
  if (auto parsed = parse_object(body, "the error answer")) {
    if (find_string(*parsed, "kind").value_or("") == "Status" &&
        find_string(*parsed, "status").value_or("") == "Failure") {
      return error_from_status(*parsed, http_status);
    }
  }
  // client-go's newUnstructuredResponseError: a text body (at most 2048 bytes) is the server's
  // message, anything else is "unknown".
  std::string server_message = "unknown";
  if (content_type.empty() || content_type.rfind("text/", 0) == 0) {
    // Go's strings.TrimSpace, for the ASCII spaces it removes.
    server_message = std::string(ascii::trim(body.substr(0, 2048), " \t\n\v\f\r"));
  }
  Error error;
  error.http_status = static_cast<int>(http_status);
  error.message = "the server responded with the status code " + std::to_string(http_status) +
                  " but did not return more information";
  switch (http_status) {
    case 409:
      error.reason = context.method == "POST" ? "AlreadyExists" : "Conflict";
      error.message = "the server reported a conflict";
      break;
    case 404:
      error.reason = "NotFound";
      error.message = "the server could not find the requested resource";
      break;
    case 400:
      error.reason = "BadRequest";
      error.message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      error.reason = "Unauthorized";
      error.message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      error.reason = "Forbidden";
      error.message = server_message;
      break;
    case 405:
      error.reason = "MethodNotAllowed";
      error.message = "the server does not allow this method on the requested resource";
      break;
    case 406:
      error.reason = "NotAcceptable";
      error.message = server_message.empty() || server_message == "unknown"
                          ? "the server was unable to respond with a content type that the "
                            "client supports"
                          : server_message;
      break;
    case 415:
      error.reason = "UnsupportedMediaType";
      error.message = server_message;
      break;
    case 422:
      error.reason = "Invalid";
      error.message = "the server rejected our request due to an error in our request";
      break;
    case 429:
      error.reason = "TooManyRequests";
      error.message =
          "the server has received too many requests and has asked us to try again later";
      break;
    case 503:
      error.reason = "ServiceUnavailable";
      error.message = "the server is currently unable to handle the request";
      break;
    case 504:
      error.reason = "Timeout";
      error.message =
          "the server was unable to return a response in the time allotted, but may still be "
          "processing the request";
      break;
    default:
      if (http_status >= 500) {
        error.reason = "InternalError";
        error.message = "an error on the server (\"" + server_message +
                        "\") has prevented the request from succeeding";
      }
      break;
  }
  if (!context.resource.empty()) {
    error.message += " (" + to_lower(context.method) + " " + context.resource;
    if (!context.name.empty()) error.message += " " + context.name;
    error.message += ")";
  }
  error.code = code_for(http_status, error.reason);
  if (error.reason == "Invalid") error.message = "The request is invalid: " + error.message;
  return error;
}

}  // namespace trainer::kube::detail
