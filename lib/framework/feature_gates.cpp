// SPDX-License-Identifier: Apache-2.0
// `--feature-gates` text -> FeatureGates, with the value syntax of Go's strconv.ParseBool, which
// upstream's component-base uses for gate values.
#include "trainer/framework.hpp"

#include "api/ascii.hpp"

#include <array>
#include <optional>

namespace trainer {
namespace {

using ascii::trim;

std::optional<bool> parse_go_bool(std::string_view v) {
  static constexpr std::array<std::string_view, 6> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  static constexpr std::array<std::string_view, 6> kFalse = {"0",     "f",     "F",
                                                             "FALSE", "false", "False"};
  for (const auto t : kTrue) {
    if (v == t) return true;
  }
  for (const auto f : kFalse) {
    if (v == f) return false;
  }
  return std::nullopt;
}

}  // namespace

Result<FeatureGates> parse_feature_gates(std::string_view text) {
  FeatureGates gates;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      return fail(ErrorCode::kInvalid, "feature gates: missing bool value for \"" +
                                           std::string(item) + "\" (expected Name=true|false)");
    }
    const std::string_view name = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    const auto on = parse_go_bool(value);
    if (!on) {
      return fail(ErrorCode::kInvalid, "feature gates: invalid value of " + std::string(name) +
                                           "=" + std::string(value) + ": not a boolean");
    }
    if (name == "TrainJobStatus") {
      gates.trainjob_status = *on;
    } else {
      return fail(ErrorCode::kInvalid,
                  "feature gates: unrecognized feature gate \"" + std::string(name) + "\"");
    }
  }
  return gates;
}

}  // namespace trainer
