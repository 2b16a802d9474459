// SPDX-License-Identifier: Apache-2.0
//
// Katib's StdOut collector filter (reference 4.5), matched by hand rather than std::regex: the
// pattern `([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)` taken leftmost-first like Go's
// regexp, then the value read with strconv.ParseFloat's rules.
#include "trainer/tuning.hpp"

#include "api/number_text.hpp"

#include <algorithm>
#include <cctype>

namespace trainer::tuning {
namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '|' || c == '-';
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
bool space(char c) {  // Go's \s: [\t\n\f\r ]
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

// The value group at `i`: [+-]?\d*(\.\d+)?([Ee][+-]?\d+)?, each optional part taken only when
// complete (the regex backtracks over a `.` without digits or an exponent without digits).
std::size_t value_end(std::string_view s, std::size_t i) {
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (i < s.size() && digit(s[i])) ++i;
  if (i + 1 < s.size() && s[i] == '.' && digit(s[i + 1])) {
    i += 2;
    while (i < s.size() && digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && digit(s[j])) {
      while (j < s.size() && digit(s[j])) ++j;
      i = j;
    }
  }
  return i;
}

}  // namespace

std::vector<std::pair<std::string, double>> parse_metrics_line(
    std::string_view line, const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, double>> out;
  std::size_t pos = 0;
  while (pos < line.size()) {
    // A match starts at the start of a run of name characters, and only the whole run can be
    // followed by `\s*=`; a run that is not cannot match from any position inside it either.
    if (!name_char(line[pos])) {
      ++pos;
      continue;
    }
    std::size_t end = pos;
    while (end < line.size() && name_char(line[end])) ++end;
    std::size_t eq = end;
    while (eq < line.size() && space(line[eq])) ++eq;
    if (eq >= line.size() || line[eq] != '=') {
      pos = end;
      continue;
    }
    std::size_t v = eq + 1;
    while (v < line.size() && space(line[v])) ++v;
    const std::size_t v_end = value_end(line, v);
    const std::string name(line.substr(pos, end - pos));
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      if (const auto value = trainer::detail::parse_float(line.substr(v, v_end - v))) {
        out.emplace_back(name, *value);
      }
    }
    // An empty value group still matched (`\s*` may have eaten spaces): go on after it, and
    // never stay in place.
    pos = std::max(v_end, eq + 1);
  }
  return out;
}

}  // namespace trainer::tuning
