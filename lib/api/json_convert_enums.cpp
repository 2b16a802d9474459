// SPDX-License-Identifier: Apache-2.0
#include "api/json_convert_enums.hpp"

#include <utility>
#include <vector>

namespace trainer::detail {
namespace {

namespace json = boost::json;

// A value outside the CRD's `enum` cannot be held by the typed model, so it is refused while
// decoding with the API server's `Unsupported value` text.
template <class E>
void read_enum(DecodeContext& c, const json::value& v, const FieldPath& path, E& out,
               const std::vector<std::pair<std::string, E>>& values) {
  if (c.failed() || v.is_null()) return;
  if (!v.is_string()) {
    c.type_error(path, v, "expected string");
    return;
  }
  for (const auto& [text, value] : values) {
    if (v.get_string() == text) {
      out = value;
      return;
    }
  }
  std::vector<std::string> allowed;
  for (const auto& kv : values) allowed.push_back(kv.first);
  FieldError fe = field_not_supported(path.str(), v, allowed);
  Error e(ErrorCode::kParse, fe.to_string());
  e.fields.push_back(std::move(fe));
  c.fail(std::move(e));
}

// Upstream's enum order (`+kubebuilder:validation:Enum=Maximize;Minimize`, `Int;Float`).
const std::vector<std::pair<std::string, ObjectiveDirection>>& direction_values() {
  static const std::vector<std::pair<std::string, ObjectiveDirection>> v{
      {"Maximize", ObjectiveDirection::kMaximize}, {"Minimize", ObjectiveDirection::kMinimize}};
  return v;
}

const std::vector<std::pair<std::string, ParameterType>>& parameter_type_values() {
  static const std::vector<std::pair<std::string, ParameterType>> v{
      {"Int", ParameterType::kInt}, {"Float", ParameterType::kFloat}};
  return v;
}

template <class E>
std::string enum_text(E e, const std::vector<std::pair<std::string, E>>& values) {
  for (const auto& [text, value] : values) {
    if (value == e) return text;
  }
  return {};
}

}  // namespace

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path,
                ObjectiveDirection& out) {
  read_enum(c, v, path, out, direction_values());
}

void read_value(DecodeContext& c, const json::value& v, const FieldPath& path, ParameterType& out) {
  read_enum(c, v, path, out, parameter_type_values());
}

json::value to_value(Enc, ObjectiveDirection d) {
  return json::value(json::string(enum_text(d, direction_values())));
}

json::value to_value(Enc, ParameterType t) {
  return json::value(json::string(enum_text(t, parameter_type_values())));
}

}  // namespace trainer::detail
