// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trainer::detail {

/// Shortest text that reads back as the same double (`1.5`, `1e+21`); `null` for NaN and
/// infinities, which neither JSON nor our YAML reader accept.
[[nodiscard]] std::string double_text(double d);

/// Go's `strconv.ParseFloat(s, 64)` on decimal text (`[-+]?` digits, optional fraction and
/// exponent, as the YAML float pattern and JSON numbers have it): the correctly rounded double;
/// nullopt when the text is not such a number or overflows (Go's ErrRange); underflow is zero.
/// The one float parser of both readers: Boost.JSON's own is off by one ulp on long mantissas.
[[nodiscard]] std::optional<double> parse_float(std::string_view text);

}  // namespace trainer::detail
