// SPDX-License-Identifier: Apache-2.0
#include "api/number_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

namespace trainer::detail {

std::string double_text(double d) {
  if (!std::isfinite(d)) return "null";
  std::array<char, 32> buf{};
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), d);
  std::string s(buf.data(), r.ptr);
  // A JSON reader would take `3` for an integer; keep integral doubles recognisably doubles.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::optional<double> parse_float(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    const auto e = s.find_first_of("eE");
    const bool negative_exponent =
        e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
    if (!negative_exponent) return std::nullopt;
    v = 0;
  } else if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
    return std::nullopt;  // not a decimal number (from_chars also reads `inf` and `nan`)
  }
  return negative ? -v : v;
}

}  // namespace trainer::detail
