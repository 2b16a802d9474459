// SPDX-License-Identifier: Apache-2.0
#include "tuning/rng.hpp"

#include <algorithm>
#include <cmath>

namespace trainer::tuning::detail {

double unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

std::size_t index(std::mt19937_64& rng, std::size_t n) {
  const auto i = static_cast<std::size_t>(unit(rng) * static_cast<double>(n));
  return std::min(i, n - 1);
}

double normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - unit(rng);  // (0, 1]: log(u1) is finite
  const double u2 = unit(rng);
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace trainer::tuning::detail
