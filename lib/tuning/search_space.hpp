// SPDX-License-Identifier: Apache-2.0
//
// An OptimizationJob's parameters as numbers the samplers work with: bounds parsed from the
// API's decimal strings, Int bounds narrowed to the integers inside, and the value text a trial
// receives. One parse for every sampler, so they agree on what a space means.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace trainer::tuning::detail {

enum class SpaceKind { kUniform, kLogUniform, kCategorical };

struct ParamSpace {
  std::string name;
  SpaceKind kind = SpaceKind::kUniform;
  bool is_int = false;
  double low = 0;   ///< Int: the smallest integer >= min
  double high = 0;  ///< Int: the largest integer <= max
  std::vector<std::string> choices;

  /// The sampler's continuous interval: log(bounds) for logUniform, and for Int widened by half
  /// a step on each side so that every integer has the same chance after rounding.
  [[nodiscard]] double internal_low() const;
  [[nodiscard]] double internal_high() const;
  /// A point of the internal interval as the value text (`0.0125`, `3`), clamped to the bounds.
  [[nodiscard]] std::string value_text(double internal) const;
  /// Value text back to the internal interval; nullopt-like NaN when it is not a number.
  [[nodiscard]] double internal_of(const std::string& text) const;
};

/// Every parameter of `job.spec.parameters` in spec order; `kInvalid` naming the field
/// (`spec.parameters[0].searchSpace.uniform.min`) for bounds that do not parse, `min >= max`,
/// logUniform `min <= 0`, an Int range without an integer, or not exactly one search space.
[[nodiscard]] Result<std::vector<ParamSpace>> parse_space(const OptimizationJob& job);

/// The index of `text` among a categorical space's choices; `choices.size()` when absent.
[[nodiscard]] std::size_t choice_index(const ParamSpace& p, const std::string& text);

}  // namespace trainer::tuning::detail
