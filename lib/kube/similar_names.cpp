// SPDX-License-Identifier: Apache-2.0
// "Did you mean" for names: the edit distance and the closest candidate (trainer/names.hpp).
#include "trainer/names.hpp"

#include "api/ascii.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace trainer {
namespace {

using ascii::to_lower;

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic-programming table: a swap looks two rows back.
  std::vector<std::size_t> two_back(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min(
          {previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], two_back[j - 2] + 1);
      }
    }
    std::swap(two_back, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates) {
  const std::string t = to_lower(typed);
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(t, to_lower(candidate));
    const std::size_t limit = std::max<std::size_t>(1, std::max(t.size(), candidate.size()) / 3);
    if (d > limit || (best != nullptr && d >= best_distance)) continue;
    best = &candidate;
    best_distance = d;
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace trainer
