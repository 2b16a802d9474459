// SPDX-License-Identifier: Apache-2.0
#include "serving/progress_endpoint.hpp"

#include "api/time_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>

namespace trainer::serving {
namespace {

namespace json = boost::json;

Response status_answer(int code, const std::string& reason, const std::string& message) {
  Response out;
  out.status = code;
  out.body = json::serialize(json::object{{"kind", "Status"},
                                          {"apiVersion", "v1"},
                                          {"metadata", json::object{}},
                                          {"status", "Failure"},
                                          {"message", message},
                                          {"reason", reason},
                                          {"code", code}});
  return out;
}

Response forbidden() {
  return status_answer(403, "Forbidden", "Forbidden");
}
Response invalid_payload() {
  return status_answer(422, "Invalid", "Invalid payload");
}
Response internal_error() {
  return status_answer(500, "InternalError", "Internal error");
}

// `Bearer <token>` as upstream splits it: exactly two whitespace-separated fields, the scheme
// case-insensitive; anything else is no token.
std::string bearer_token(std::string_view header) {
  std::istringstream words{std::string(header)};
  std::string scheme, token, extra;
  if (!(words >> scheme >> token) || (words >> extra)) return {};
  if (scheme.size() != 6) return {};
  for (std::size_t i = 0; i < 6; ++i) {
    if (std::tolower(static_cast<unsigned char>(scheme[i])) != "bearer"[i]) return {};
  }
  return token;
}

std::optional<std::int64_t> whole_number(const json::value& v) {
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64() && v.as_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    return static_cast<std::int64_t>(v.as_uint64());
  }
  return std::nullopt;
}

// `trainerStatus` as upstream's Go struct decodes it: int32 numbers, string metric values, an
// RFC 3339 time (written back in seconds, as metav1.Time marshals it); unknown members dropped.
std::optional<json::object> decode_trainer_status(const json::value& value) {
  if (!value.is_object()) return std::nullopt;
  const auto& in = value.as_object();
  json::object out;
  for (const char* key : {"progressPercentage", "estimatedRemainingSeconds"}) {
    const auto* member = in.if_contains(key);
    if (member == nullptr || member->is_null()) continue;
    const auto n = whole_number(*member);
    if (!n || *n < std::numeric_limits<std::int32_t>::min() ||
        *n > std::numeric_limits<std::int32_t>::max()) {
      return std::nullopt;
    }
    out[key] = *n;
  }
  if (const auto* metrics = in.if_contains("metrics"); metrics != nullptr && !metrics->is_null()) {
    if (!metrics->is_array()) return std::nullopt;
    json::array list;
    for (const auto& m : metrics->as_array()) {
      if (!m.is_object()) return std::nullopt;
      json::object metric;
      for (const char* key : {"name", "value"}) {
        const auto* member = m.as_object().if_contains(key);
        if (member == nullptr || member->is_null()) continue;
        if (!member->is_string()) return std::nullopt;
        metric[key] = member->as_string();
      }
      list.push_back(std::move(metric));
    }
    out["metrics"] = std::move(list);
  }
  if (const auto* time = in.if_contains("lastUpdatedTime"); time != nullptr && !time->is_null()) {
    if (!time->is_string()) return std::nullopt;
    const auto parsed = trainer::detail::parse_rfc3339(time->as_string());
    if (!parsed) return std::nullopt;
    out["lastUpdatedTime"] = trainer::detail::format_rfc3339(*parsed);
  }
  return out;
}

}  // namespace

std::string progress_audience(const std::string& ns, const std::string& name) {
  return "trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainjobs/" + name + "/status";
}

Response handle_progress(const ProgressBackend& backend, const Request& request) {
  const std::string ns = std::string(request.param("namespace"));
  const std::string name = std::string(request.param("name"));
  const auto auth = backend.authenticate(bearer_token(request.header("Authorization")), ns, name);
  if (auth.outcome == ProgressOutcome::kInternal) return internal_error();
  if (auth.outcome != ProgressOutcome::kOk) return forbidden();

  boost::system::error_code ec;
  const json::value body = json::parse(request.body, ec);
  if (ec || !body.is_object()) return invalid_payload();
  json::object echo;
  const auto* status = body.as_object().if_contains("trainerStatus");
  if (status == nullptr || status->is_null()) {
    Response out;
    out.body = json::serialize(echo);
    return out;
  }
  auto trainer_status = decode_trainer_status(*status);
  if (!trainer_status) return invalid_payload();
  const auto applied = backend.apply(ns, name, *trainer_status);
  switch (applied.outcome) {
    case ProgressOutcome::kOk: break;
    case ProgressOutcome::kInvalid: return status_answer(422, "Invalid", applied.message);
    case ProgressOutcome::kNotFound: return status_answer(404, "NotFound", "Train job not found");
    default: return internal_error();
  }
  echo["trainerStatus"] = std::move(*trainer_status);
  Response out;
  out.body = json::serialize(echo);
  return out;
}

Response progress_not_found(const Request& /*request*/) {
  return status_answer(404, "NotFound", "Not found");
}

std::vector<Route> progress_routes(const ProgressBackend& backend) {
  Route route;
  route.method = "POST";
  route.pattern = kProgressRoute;
  route.handler = [backend](const Request& request) { return handle_progress(backend, request); };
  route.body_limit = kProgressBodyLimit;
  route.too_large = [](const Request&) {
    return status_answer(413, "RequestEntityTooLarge", "Payload too large");
  };
  return {std::move(route)};
}

}  // namespace trainer::serving
