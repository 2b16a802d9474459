// SPDX-License-Identifier: Apache-2.0
#include "api/number_text.hpp"

#include <array>
#include <charconv>
#include <cmath>

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

}  // namespace trainer::detail
