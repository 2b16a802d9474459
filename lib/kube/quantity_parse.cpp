// SPDX-License-Identifier: Apache-2.0
//
// Quantity::parse, a port of ParseQuantity and parseQuantityString from
// k8s.io/apimachinery/pkg/api/resource/quantity.go (v0.36), decision for decision, so that the
// accepted set, the errors and the cached `String()` text match Kubernetes.
#include "api/ascii.hpp"
#include "kube/decimal.hpp"
#include "trainer/quantity.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace trainer {

namespace {

constexpr const char* kErrFormatWrong =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr const char* kErrNumeric = "unable to parse numeric part of quantity";
constexpr const char* kErrSuffix = "unable to parse quantity's suffix";
constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
// Kubernetes' maxInt64Factors: decimal digits that always fit an int64.
constexpr std::int64_t kMaxInt64Factors = 18;
constexpr std::int32_t kNanoScale = -9;

using ascii::is_digit;

// The pieces parseQuantityString returns.
struct Scanned {
  bool positive = true;
  std::string_view value;  // sign and number as written (what inf.Dec.SetString would read)
  std::string_view num;    // integer digits without leading zeros, "0" when there are none
  std::string_view denom;  // fraction digits
  std::string_view suffix;
};

// parseQuantityString: a permissive scanner; the suffix is validated afterwards.
bool scan(std::string_view str, Scanned& out) {
  std::size_t pos = 0;
  const std::size_t end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    out.positive = str[0] == '+';
    ++pos;
  }
  // Leading zeros. A string of nothing but zeros (or a bare sign) is zero without a suffix.
  while (true) {
    if (pos >= end) {
      out.num = "0";
      out.value = "0";
      return true;
    }
    if (str[pos] != '0') break;
    ++pos;
  }
  std::size_t i = pos;
  while (i < end && is_digit(str[i])) ++i;
  if (i >= end) {
    out.num = str.substr(pos);
    out.value = str;
    return true;
  }
  out.num = str.substr(pos, i - pos);
  pos = i;
  if (out.num.empty()) out.num = "0";
  if (pos < end && str[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && is_digit(str[i])) ++i;
    out.denom = str.substr(pos, i - pos);
    if (i >= end) {
      out.value = str;
      return true;
    }
    pos = i;
  }
  out.value = str.substr(0, pos);
  const std::size_t suffix_start = pos;
  while (pos < end && kSuffixChars.find(str[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  if (pos < end) return false;
  out.suffix = str.substr(suffix_start);
  return true;
}

struct Suffix {
  int base = 10;
  std::int32_t exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

// Go's strconv.ParseInt(s, 10, 64).
bool parse_int64(std::string_view s, std::int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  std::uint64_t v = 0;
  const std::uint64_t limit =
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1U : 0U);
  for (const char c : s) {
    if (!is_digit(c)) return false;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  if (negative) {
    out = v == limit ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(v);
  } else {
    out = static_cast<std::int64_t>(v);
  }
  return true;
}

// suffixer.interpret.
bool interpret(std::string_view s, Suffix& out) {
  using F = Quantity::Format;
  struct Entry {
    std::string_view text;
    int base;
    std::int32_t exponent;
    F format;
  };
  static constexpr Entry kTable[] = {
      {"", 10, 0, F::kDecimalSI},   {"n", 10, -9, F::kDecimalSI}, {"u", 10, -6, F::kDecimalSI},
      {"m", 10, -3, F::kDecimalSI}, {"k", 10, 3, F::kDecimalSI},  {"M", 10, 6, F::kDecimalSI},
      {"G", 10, 9, F::kDecimalSI},  {"T", 10, 12, F::kDecimalSI}, {"P", 10, 15, F::kDecimalSI},
      {"E", 10, 18, F::kDecimalSI}, {"Ki", 2, 10, F::kBinarySI},  {"Mi", 2, 20, F::kBinarySI},
      {"Gi", 2, 30, F::kBinarySI},  {"Ti", 2, 40, F::kBinarySI},  {"Pi", 2, 50, F::kBinarySI},
      {"Ei", 2, 60, F::kBinarySI},
  };
  for (const Entry& e : kTable) {
    if (e.text == s) {
      out = Suffix{e.base, e.exponent, e.format};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::int64_t parsed = 0;
    if (!parse_int64(s.substr(1), parsed)) return false;
    // Go's int32(parsed) keeps the low 32 bits.
    const auto low = static_cast<std::uint32_t>(static_cast<std::uint64_t>(parsed) & 0xFFFFFFFFU);
    const auto exponent =
        low <= 0x7FFFFFFFU
            ? static_cast<std::int32_t>(low)
            : static_cast<std::int32_t>(static_cast<std::int64_t>(low) - 0x100000000);
    out = Suffix{10, exponent, F::kDecimalExponent};
    return true;
  }
  return false;
}

bool ends_with_000(std::string_view s) noexcept {
  return s.size() >= 3 && s.substr(s.size() - 3) == "000";
}

// `([0-9]+(\.[0-9]*)?)|(\.[0-9]+)` from `i`: the end of the match, or npos.
std::size_t match_schema_number(std::string_view s, std::size_t i) noexcept {
  const std::size_t start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i > start) {
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && is_digit(s[i])) ++i;
    }
    return i;
  }
  if (i < s.size() && s[i] == '.') {
    const std::size_t digits = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i > digits) return i;
  }
  return std::string_view::npos;
}

}  // namespace

bool Quantity::matches_schema_pattern(std::string_view text) noexcept {
  // No backtracking is needed: the number part never ends in a suffix character.
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  i = match_schema_number(text, i);
  if (i == std::string_view::npos) return false;
  const std::string_view suffix = text.substr(i);
  if (suffix.empty()) return true;
  if (suffix.size() == 2 && suffix[1] == 'i') {
    return std::string_view("KMGTPE").find(suffix[0]) != std::string_view::npos;
  }
  if (suffix.size() == 1 &&
      std::string_view("numkMGTPE").find(suffix[0]) != std::string_view::npos) {
    return true;
  }
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  std::size_t j = 1;
  if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) ++j;
  j = match_schema_number(suffix, j);
  return j == suffix.size();
}

Result<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty()) return fail(ErrorCode::kParse, kErrFormatWrong);
  if (text == "0") {
    Quantity q;
    q.text_ = "0";
    return q;
  }
  Scanned s;
  if (!scan(text, s)) return fail(ErrorCode::kParse, kErrFormatWrong);
  Suffix suf;
  if (!interpret(s.suffix, suf)) return fail(ErrorCode::kParse, kErrSuffix);

  const auto num_len = static_cast<std::int64_t>(s.num.size());
  const auto denom_len = static_cast<std::int64_t>(s.denom.size());

  // Kubernetes' int64 fast path. Its result equals the exact path below, but only it may keep
  // the input as the cached String() text, and only the exact path (inf.Dec.SetString) refuses
  // a number without digits such as "-.Pi".
  std::int64_t precision = -1;
  std::int64_t scale = 0;
  if (suf.format == Format::kBinarySI) {
    if (suf.exponent >= 0 && s.denom.empty()) {
      precision = 15 - num_len - suf.exponent * 3 / 10 - 1;
    }
  } else {
    scale = suf.exponent;
    precision = kMaxInt64Factors - (num_len + denom_len);
  }
  bool fast = false;
  bool cache_text = false;
  if (precision >= 0) {
    scale -= denom_len;
    if (scale >= kNanoScale) {
      fast = true;
      std::string shifted(s.num);
      shifted.append(s.denom);
      if (suf.format == Format::kBinarySI) {
        std::uint64_t v = 0;
        // At most 18 digits here (precision >= 0), so this cannot fail.
        (void)detail::magnitude_to_u64(shifted, v);
        cache_text = suf.exponent % 10 == 0 && (v & 0x07U) != 0;
      } else {
        cache_text = scale % 3 == 0 && !ends_with_000(shifted) && shifted[0] != '0';
      }
    }
  }
  if (!fast && s.value.find_first_of("0123456789") == std::string_view::npos) {
    return fail(ErrorCode::kParse, kErrNumeric);
  }

  Quantity q;
  q.format_ = suf.format;
  q.negative_ = !s.positive;
  q.digits_.assign(s.num);
  q.digits_.append(s.denom);
  detail::strip_leading_zeros(q.digits_);
  std::int64_t exponent = -denom_len;
  if (suf.base == 10) {
    exponent += suf.exponent;
  } else {
    detail::mul_magnitude(q.digits_, std::uint64_t{1} << static_cast<unsigned>(suf.exponent));
  }
  // Move trailing zeros into the exponent (in 64 bits: the text may be long).
  std::size_t zeros = 0;
  while (zeros < q.digits_.size() && q.digits_[q.digits_.size() - 1 - zeros] == '0') ++zeros;
  q.digits_.resize(q.digits_.size() - zeros);
  exponent += static_cast<std::int64_t>(zeros);
  if (q.digits_.empty()) {
    exponent = 0;
    q.negative_ = false;
  }
  const auto magnitude_digits = static_cast<std::int64_t>(q.digits_.size()) + exponent;
  if (!q.digits_.empty() && magnitude_digits > kMaxDigits) {
    return fail(ErrorCode::kLimit,
                "quantity too large: the magnitude must be below 10^" + std::to_string(kMaxDigits));
  }
  // Round up to 1n: "if you want some resources, you should get some resources".
  if (!q.digits_.empty() && exponent < kNanoScale) {
    const std::int64_t keep = magnitude_digits - kNanoScale;
    if (keep <= 0) {
      q.digits_ = "1";
    } else {
      q.digits_.resize(static_cast<std::size_t>(keep));
      detail::increment_magnitude(q.digits_);
    }
    exponent = kNanoScale;
  }
  q.exponent_ = static_cast<std::int32_t>(exponent);
  q.normalize();

  if (q.format_ == Format::kBinarySI && !q.digits_.empty()) {
    static const std::string kMaxInt64 = detail::u64_to_magnitude(
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (detail::compare_scaled(q.digits_, q.exponent_, kMaxInt64) > 0) {
      q.digits_ = kMaxInt64;
      q.exponent_ = 0;
      q.normalize();
    } else if (static_cast<std::int64_t>(q.digits_.size()) + q.exponent_ <= 0) {
      // Strictly between 0 and 1: printed as DecimalSI so that no rounding happens.
      q.format_ = Format::kDecimalSI;
    }
  }
  if (cache_text) q.text_.assign(text);
  return q;
}

}  // namespace trainer
