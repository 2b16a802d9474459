// SPDX-License-Identifier: Apache-2.0
//
// A plugin's reply: parsed with the codec's JSON reader and limits, then checked member by
// member against what the phase allows (trainer/plugin.h). Nothing here trusts the reply: every
// wrong shape becomes `plugin "<name>": <phase>: reply: <path>: <what>`.
#include "api/readers.hpp"
#include "plugin/plugin_internal.hpp"
#include "trainer/codec.hpp"

#include <boost/json/serialize.hpp>

#include <optional>
#include <string>
#include <utility>

namespace trainer::detail {
namespace {

namespace json = boost::json;

// lib/api/error.cpp's go_name(), read backwards.
std::optional<FieldErrorType> field_type_from_go(std::string_view name) {
  for (auto t : {FieldErrorType::kNotFound, FieldErrorType::kRequired, FieldErrorType::kDuplicate,
                 FieldErrorType::kInvalid, FieldErrorType::kNotSupported,
                 FieldErrorType::kForbidden, FieldErrorType::kTooLong, FieldErrorType::kTooMany,
                 FieldErrorType::kInternal, FieldErrorType::kTypeInvalid}) {
    if (name == go_name(t)) return t;
  }
  return std::nullopt;
}

bool allowed(PluginPhase phase, std::string_view member) {
  if (member == "info") {
    return phase == PluginPhase::kEnforceMLPolicy || phase == PluginPhase::kEnforcePodGroupPolicy ||
           phase == PluginPhase::kEnforcePodSpec || phase == PluginPhase::kPreBuildSync;
  }
  if (member == "trainJob") return phase == PluginPhase::kEnforceMLPolicy;
  if (member == "errors" || member == "warnings") return phase == PluginPhase::kValidate;
  if (member == "objects") return phase == PluginPhase::kBuild;
  if (member == "status") return phase == PluginPhase::kStatus;
  return false;
}

Result<FieldError> read_field_error(const json::value& v, const std::string& path) {
  const auto* o = v.if_object();
  if (o == nullptr) return fail(ErrorCode::kInvalid, path + ": expected object");
  FieldError fe;
  const auto* type = o->if_contains("type");
  if (type == nullptr || !type->is_string()) {
    return fail(ErrorCode::kInvalid,
                path + ".type: expected a string such as \"FieldValueInvalid\"");
  }
  auto t = field_type_from_go(type->get_string());
  if (!t) {
    return fail(ErrorCode::kInvalid,
                path + ".type: unknown field error type " + json::serialize(*type));
  }
  fe.type = *t;
  const auto* field = o->if_contains("field");
  if (field == nullptr || !field->is_string()) {
    return fail(ErrorCode::kInvalid, path + ".field: expected string");
  }
  fe.path = std::string(field->get_string());
  if (const auto* value = o->if_contains("value")) fe.value = *value;
  if (const auto* detail = o->if_contains("detail")) {
    if (!detail->is_string()) return fail(ErrorCode::kInvalid, path + ".detail: expected string");
    fe.detail = std::string(detail->get_string());
  }
  for (const auto& kv : *o) {
    const auto k = kv.key();
    if (k != "type" && k != "field" && k != "value" && k != "detail") {
      return fail(ErrorCode::kInvalid, path + "." + std::string(k) + ": unknown member");
    }
  }
  return fe;
}

Result<void> read_validation(const json::object& reply, ValidationResult& out) {
  if (const auto* errors = reply.if_contains("errors")) {
    if (!errors->is_array()) return fail(ErrorCode::kInvalid, "errors: expected array");
    for (std::size_t i = 0; i < errors->get_array().size(); ++i) {
      auto fe = read_field_error(errors->get_array()[i], "errors[" + std::to_string(i) + "]");
      if (!fe) return tl::unexpected(fe.error());
      out.errors.push_back(std::move(*fe));
    }
  }
  if (const auto* warnings = reply.if_contains("warnings")) {
    if (!warnings->is_array()) return fail(ErrorCode::kInvalid, "warnings: expected array");
    for (std::size_t i = 0; i < warnings->get_array().size(); ++i) {
      const auto& w = warnings->get_array()[i];
      if (!w.is_string()) {
        return fail(ErrorCode::kInvalid, "warnings[" + std::to_string(i) + "]: expected string");
      }
      out.warnings.emplace_back(w.get_string());
    }
  }
  return {};
}

}  // namespace

Error plugin_reply_error(std::string_view plugin, PluginPhase phase, const std::string& what) {
  return Error(ErrorCode::kInvalid,
               "plugin \"" + std::string(plugin) + "\": " + phase_name(phase) + ": reply: " + what);
}

Result<PluginReply> parse_plugin_reply(std::string_view plugin, PluginPhase phase,
                                       std::string_view text) {
  auto bad = [&](const std::string& what) {
    return tl::unexpected(plugin_reply_error(plugin, phase, what));
  };
  PluginReply out;
  // The size was bounded before the reply was copied (plugin_reply_set).
  const DecodeOptions limits;
  auto parsed = read_json(text, limits);
  if (!parsed) {
    return bad((parsed.error().code == ErrorCode::kLimit ? "" : "not JSON: ") +
               parsed.error().message);
  }
  if (parsed->is_null()) return out;
  if (!parsed->is_object()) return bad("expected a JSON object");
  const json::object& reply = parsed->get_object();
  for (const auto& kv : reply) {
    if (!allowed(phase, kv.key())) {
      return bad(std::string(kv.key()) + ": not allowed in phase " + phase_name(phase));
    }
  }
  if (const auto* info = reply.if_contains("info")) {
    if (!info->is_object()) return bad("info: expected object");
    out.info = *info;
  }
  if (const auto* job_patch = reply.if_contains("trainJob")) {
    if (!job_patch->is_object()) return bad("trainJob: expected object");
    out.train_job = *job_patch;
  }
  if (const auto* status = reply.if_contains("status")) {
    if (!status->is_object()) return bad("status: expected object");
    out.status = *status;
  }
  if (auto r = read_validation(reply, out.validation); !r) return bad(r.error().message);
  if (const auto* objects = reply.if_contains("objects")) {
    if (!objects->is_array()) return bad("objects: expected array");
    // What each object must be, and where it may go, the Framework checks for every plugin
    // (framework/plugin_confinement.hpp).
    out.objects.assign(objects->get_array().begin(), objects->get_array().end());
  }
  return out;
}

}  // namespace trainer::detail
