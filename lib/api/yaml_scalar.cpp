// SPDX-License-Identifier: Apache-2.0
#include "api/yaml_scalar.hpp"
#include "api/ascii.hpp"
#include "api/number_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <system_error>

namespace trainer::detail {
namespace {

namespace json = boost::json;

struct Word {
  std::string_view text;
  int kind;  // 0 null, 1 true, 2 false, 3 non-finite float
};

// go-yaml v2's resolve map (YAML 1.1 booleans included).
constexpr std::array<Word, 39> kWords{{
    {"", 0},      {"~", 0},     {"null", 0},  {"Null", 0},  {"NULL", 0}, {"y", 1},     {"Y", 1},
    {"yes", 1},   {"Yes", 1},   {"YES", 1},   {"true", 1},  {"True", 1}, {"TRUE", 1},  {"on", 1},
    {"On", 1},    {"ON", 1},    {"n", 2},     {"N", 2},     {"no", 2},   {"No", 2},    {"NO", 2},
    {"false", 2}, {"False", 2}, {"FALSE", 2}, {"off", 2},   {"Off", 2},  {"OFF", 2},   {".nan", 3},
    {".NaN", 3},  {".NAN", 3},  {".inf", 3},  {".Inf", 3},  {".INF", 3}, {"+.inf", 3}, {"+.Inf", 3},
    {"+.INF", 3}, {"-.inf", 3}, {"-.Inf", 3}, {"-.INF", 3},
}};

// What every word has in common, from the table: its longest length and its first characters.
struct WordShape {
  std::size_t longest = 0;
  std::array<bool, 256> starts{};
};

constexpr WordShape word_shape() {
  WordShape shape;
  for (const Word& w : kWords) {
    if (w.text.size() > shape.longest) shape.longest = w.text.size();
    if (!w.text.empty()) shape.starts[static_cast<unsigned char>(w.text[0])] = true;
  }
  return shape;
}

constexpr WordShape kWordShape = word_shape();

// The word `text` is, if any. Most scalars are longer than every word or start with a character
// no word starts with, and are answered without comparing (this runs for every plain scalar read
// and every string written).
const Word* find_word(std::string_view text) {
  if (text.size() > kWordShape.longest) return nullptr;
  if (!text.empty() && !kWordShape.starts[static_cast<unsigned char>(text[0])]) return nullptr;
  for (const Word& w : kWords) {
    if (w.text == text) return &w;
  }
  return nullptr;
}

using ascii::is_digit;

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

enum class IntParse { kOk, kSyntax, kRange };

// Go's strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) with the sign handled by the caller.
IntParse parse_go_unsigned(std::string_view s, std::uint64_t& out) {
  unsigned base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    const char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      s.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  if (s.empty()) return IntParse::kSyntax;
  std::uint64_t v = 0;
  bool overflow = false;
  for (const char c : s) {
    const int d = digit_value(c);
    if (d >= static_cast<int>(base)) return IntParse::kSyntax;
    const auto ud = static_cast<std::uint64_t>(d);
    if (v > (std::numeric_limits<std::uint64_t>::max() - ud) / base) overflow = true;
    v = v * base + ud;
  }
  out = v;
  return overflow ? IntParse::kRange : IntParse::kOk;
}

// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`
bool matches_yaml_float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  } else {
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && is_digit(s[i])) ++i;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const std::size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

// What a JSON reader sees after Go marshalled the float64: integral values below 1e21 are
// printed without fraction or exponent, so they come back as integers.
json::value float_value(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e21) {
    constexpr double kTwo63 = 9223372036854775808.0;
    if (v >= -kTwo63 && v < kTwo63) return json::value(static_cast<std::int64_t>(v));
    if (v > 0 && v < 2 * kTwo63) return json::value(static_cast<std::uint64_t>(v));
  }
  return json::value(v);
}

std::optional<json::value> resolve_number(std::string_view in) {
  std::string plain;
  plain.reserve(in.size());
  for (const char c : in) {
    if (c != '_') plain.push_back(c);
  }
  std::string_view s = plain;
  bool negative = false;
  bool signed_text = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    signed_text = true;
    s.remove_prefix(1);
  }
  std::uint64_t u = 0;
  const IntParse r = parse_go_unsigned(s, u);
  if (r == IntParse::kOk) {
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (!negative && u <= kMax) return json::value(static_cast<std::int64_t>(u));
    if (negative && u <= kMax + 1) {
      return json::value(u == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                       : -static_cast<std::int64_t>(u));
    }
    // ParseInt overflowed; ParseUint accepts the text only without a sign.
    if (!signed_text) return json::value(u);
  }
  if (matches_yaml_float(plain)) {
    if (auto f = parse_float(plain)) return float_value(*f);
  }
  return std::nullopt;
}

// The `.` branch of go-yaml calls ParseFloat on the raw text: no `_` removal, no sign.
bool matches_dot_float(std::string_view s) {
  return s.size() >= 2 && s[0] == '.' && matches_yaml_float(s);
}

}  // namespace

ResolvedScalar resolve_plain_scalar(std::string_view text) {
  if (const Word* w = find_word(text)) {
    switch (w->kind) {
      case 0: return json::value(nullptr);
      case 1: return json::value(true);
      case 2: return json::value(false);
      default:
        return std::string("the float ") + std::string(text) + " cannot be represented in JSON";
    }
  }
  if (text.empty()) return json::value(nullptr);
  const char c0 = text[0];
  if (c0 == '.') {
    if (matches_dot_float(text)) {
      if (auto f = parse_float(text)) return float_value(*f);
    }
  } else if (is_digit(c0) || c0 == '+' || c0 == '-') {
    if (auto v = resolve_number(text)) return std::move(*v);
  }
  return json::value(json::string(text));
}

bool plain_scalar_is_string(std::string_view text) {
  // The writer asks this of every string it outputs: answer the common case (a word that does
  // not start like a number) without building the resolved value.
  if (text.empty() || find_word(text) != nullptr) return false;
  const char c0 = text[0];
  if (c0 != '.' && !is_digit(c0) && c0 != '+' && c0 != '-') return true;
  const ResolvedScalar r = resolve_plain_scalar(text);
  const auto* v = std::get_if<json::value>(&r);
  return v != nullptr && v->is_string();
}

}  // namespace trainer::detail
