// SPDX-License-Identifier: Apache-2.0
#include "tuning/search_space.hpp"

#include "api/number_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace trainer::tuning::detail {
namespace {

boost::json::value text(const std::string& s) {
  return boost::json::string_view(s);
}

std::string param_path(std::size_t i) {
  return "spec.parameters[" + std::to_string(i) + "].searchSpace";
}

// One range space: the API's decimal strings to numbers, Int bounds to the integers inside.
void parse_range(const RangeSearchSpace& r, const std::string& path, bool log, ParamSpace& out,
                 std::vector<FieldError>& errors) {
  const auto lo = trainer::detail::parse_float(r.min);
  const auto hi = trainer::detail::parse_float(r.max);
  if (!lo) errors.push_back(field_invalid(path + ".min", text(r.min), "must be a decimal number"));
  if (!hi) errors.push_back(field_invalid(path + ".max", text(r.max), "must be a decimal number"));
  if (!lo || !hi) return;
  if (*lo >= *hi) {
    errors.push_back(field_invalid(path + ".max", text(r.max), "must be greater than min"));
    return;
  }
  if (log && *lo <= 0) {
    errors.push_back(field_invalid(path + ".min", text(r.min), "must be greater than 0"));
    return;
  }
  out.is_int = r.type.value_or(ParameterType::kFloat) == ParameterType::kInt;
  out.low = *lo;
  out.high = *hi;
  if (out.is_int) {
    out.low = std::ceil(*lo);
    out.high = std::floor(*hi);
    // Beyond 2^53 integers are not exact doubles; the API's 64-character strings allow it.
    constexpr double kExact = 9007199254740992.0;
    if (out.low > out.high || std::fabs(out.low) > kExact || std::fabs(out.high) > kExact) {
      errors.push_back(
          field_invalid(path, text(r.min + ".." + r.max), "must contain an integer below 2^53"));
    }
  }
}

}  // namespace

double ParamSpace::internal_low() const {
  const double lo = is_int ? low - 0.5 : low;
  return kind == SpaceKind::kLogUniform ? std::log(lo) : lo;
}

double ParamSpace::internal_high() const {
  const double hi = is_int ? high + 0.5 : high;
  return kind == SpaceKind::kLogUniform ? std::log(hi) : hi;
}

std::string ParamSpace::value_text(double internal) const {
  double v = kind == SpaceKind::kLogUniform ? std::exp(internal) : internal;
  if (is_int) v = std::round(v);
  v = std::clamp(v, low, high);  // exp/log round-trips may land an ulp outside
  if (is_int) return std::to_string(static_cast<std::int64_t>(v));
  return trainer::detail::double_text(v);
}

double ParamSpace::internal_of(const std::string& text) const {
  const auto v = trainer::detail::parse_float(text);
  if (!v || (kind == SpaceKind::kLogUniform && *v <= 0)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return kind == SpaceKind::kLogUniform ? std::log(*v) : *v;
}

std::size_t choice_index(const ParamSpace& p, const std::string& text) {
  return static_cast<std::size_t>(std::find(p.choices.begin(), p.choices.end(), text) -
                                  p.choices.begin());
}

Result<std::vector<ParamSpace>> parse_space(const OptimizationJob& job) {
  std::vector<ParamSpace> out;
  std::vector<FieldError> errors;
  if (job.spec.parameters.empty()) {
    errors.push_back(field_required("spec.parameters", "at least one parameter"));
  }
  for (std::size_t i = 0; i < job.spec.parameters.size(); ++i) {
    const auto& p = job.spec.parameters[i];
    const auto& s = p.search_space;
    const std::string path = param_path(i);
    ParamSpace ps;
    ps.name = p.name;
    const int set = int(s.uniform.has_value()) + int(s.log_uniform.has_value()) +
                    int(s.categorical.has_value());
    if (set == 0) {
      errors.push_back(field_required(path, "one of uniform, logUniform, categorical"));
      continue;
    }
    if (set > 1) {
      errors.push_back(
          field_forbidden(path, "only one of uniform, logUniform, categorical may be set"));
      continue;
    }
    if (s.uniform) {
      ps.kind = SpaceKind::kUniform;
      parse_range(*s.uniform, path + ".uniform", false, ps, errors);
    } else if (s.log_uniform) {
      ps.kind = SpaceKind::kLogUniform;
      parse_range(*s.log_uniform, path + ".logUniform", true, ps, errors);
    } else {
      ps.kind = SpaceKind::kCategorical;
      ps.choices = s.categorical->choices;
      if (ps.choices.empty()) {
        errors.push_back(field_required(path + ".categorical.choices", "at least one choice"));
      }
    }
    out.push_back(std::move(ps));
  }
  if (!errors.empty()) return tl::unexpected(Error::invalid(std::move(errors)));
  return out;
}

}  // namespace trainer::tuning::detail
