// SPDX-License-Identifier: Apache-2.0
//
// Quantity arithmetic and printing, following k8s.io/apimachinery/pkg/api/resource (v0.36):
// quantity.go (Add, Sub, Mul, Cmp, CanonicalizeBytes), amount.go and math.go. Kubernetes switches
// between an int64 fast path and inf.Dec; the results are the same exact values, so this file
// only keeps the exact one.
#include "trainer/quantity.hpp"

#include "kube/decimal.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

namespace trainer {

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

std::uint64_t magnitude_of(std::int64_t v) noexcept {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

// Kubernetes' decimal SI suffixes by base-10 exponent. Other exponents have none, and Kubernetes
// then prints the bare mantissa (e.g. 1000E prints as "1"); this mirrors it.
const char* decimal_si_suffix(std::int64_t exponent) noexcept {
  switch (exponent) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    case 18: return "E";
    default: return "";
  }
}

// Kubernetes' binary suffixes by power of 1024; none beyond Ei (as for decimal_si_suffix).
const char* binary_si_suffix(std::int32_t power) noexcept {
  switch (power) {
    case 1: return "Ki";
    case 2: return "Mi";
    case 3: return "Gi";
    case 4: return "Ti";
    case 5: return "Pi";
    case 6: return "Ei";
    default: return "";
  }
}

}  // namespace

void Quantity::normalize() {
  detail::strip_leading_zeros(digits_);
  std::size_t zeros = 0;
  while (zeros < digits_.size() && digits_[digits_.size() - 1 - zeros] == '0') ++zeros;
  if (zeros == digits_.size()) {
    digits_.clear();
    exponent_ = 0;
    negative_ = false;
    return;
  }
  digits_.resize(digits_.size() - zeros);
  exponent_ += static_cast<std::int32_t>(zeros);
}

Quantity Quantity::from_int(std::int64_t value, Format format) {
  Quantity q;
  q.format_ = format;
  q.negative_ = value < 0;
  q.digits_ = detail::u64_to_magnitude(magnitude_of(value));
  q.normalize();
  return q;
}

Quantity Quantity::from_milli(std::int64_t milli, Format format) {
  Quantity q = from_int(milli, format);
  if (!q.digits_.empty()) q.exponent_ -= 3;
  return q;
}

bool Quantity::is_zero() const noexcept {
  return digits_.empty();
}

int Quantity::sign() const noexcept {
  if (digits_.empty()) return 0;
  return negative_ ? -1 : 1;
}

int Quantity::compare(const Quantity& other) const noexcept {
  const int sa = sign();
  const int sb = other.sign();
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  // Both normalized: the position of the leading digit orders magnitudes; at equal positions the
  // digit strings compare lexicographically (a proper prefix is the smaller value, since neither
  // has trailing zeros).
  const auto lead_a = static_cast<std::int64_t>(digits_.size()) + exponent_;
  const auto lead_b = static_cast<std::int64_t>(other.digits_.size()) + other.exponent_;
  int c = 0;
  if (lead_a != lead_b) {
    c = lead_a < lead_b ? -1 : 1;
  } else {
    const int lex = digits_.compare(other.digits_);
    c = lex < 0 ? -1 : (lex > 0 ? 1 : 0);
  }
  return sa < 0 ? -c : c;
}

void Quantity::add_signed(const Quantity& other, bool negate_other) {
  if (other.digits_.empty()) return;
  const bool other_negative = other.negative_ != negate_other;
  if (digits_.empty()) {
    digits_ = other.digits_;
    exponent_ = other.exponent_;
    negative_ = other_negative;
    return;
  }
  // Align both mantissas on the smaller exponent. Every value is a multiple of 1n, so the
  // widening is bounded by the magnitude of the larger operand.
  const std::int32_t e = exponent_ < other.exponent_ ? exponent_ : other.exponent_;
  std::string a = digits_;
  a.append(static_cast<std::size_t>(exponent_ - e), '0');
  std::string b = other.digits_;
  b.append(static_cast<std::size_t>(other.exponent_ - e), '0');
  if (negative_ == other_negative) {
    digits_ = detail::add_magnitude(a, b);
  } else if (detail::compare_magnitude(a, b) >= 0) {
    digits_ = detail::sub_magnitude(a, b);
  } else {
    digits_ = detail::sub_magnitude(b, a);
    negative_ = other_negative;
  }
  exponent_ = e;
  normalize();
}

Quantity& Quantity::operator+=(const Quantity& other) {
  text_.clear();
  if (is_zero()) format_ = other.format_;
  add_signed(other, false);
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  text_.clear();
  if (is_zero()) format_ = other.format_;
  add_signed(other, true);
  return *this;
}

Quantity& Quantity::operator*=(std::int64_t factor) {
  text_.clear();
  if (digits_.empty()) return *this;
  if (factor < 0) negative_ = !negative_;
  detail::mul_magnitude(digits_, magnitude_of(factor));
  normalize();
  return *this;
}

Quantity Quantity::operator-() const {
  Quantity q = *this;
  q.text_.clear();
  if (!q.digits_.empty()) q.negative_ = !q.negative_;
  return q;
}

std::int64_t Quantity::scaled_value(std::int32_t shift) const noexcept {
  if (digits_.empty()) return 0;
  const std::int64_t saturated = negative_ ? kInt64Min : kInt64Max;
  const std::int64_t e = static_cast<std::int64_t>(exponent_) + shift;
  const auto len = static_cast<std::int64_t>(digits_.size());
  // No allocation here: value() and milli_value() are noexcept.
  const std::string_view digits = digits_;
  std::uint64_t magnitude = 0;
  if (e >= 0) {
    if (len + e > 20 || !detail::magnitude_to_u64(digits, magnitude)) return saturated;
    for (std::int64_t i = 0; i < e; ++i) {
      if (magnitude > ~std::uint64_t{0} / 10) return saturated;
      magnitude *= 10;
    }
  } else {
    // The dropped digits end in a non-zero digit (no trailing zeros), so the value is inexact
    // and rounds away from zero, as Kubernetes' negativeScaleInt64 does.
    const std::int64_t keep = len + e;
    if (keep > 0 &&
        !detail::magnitude_to_u64(digits.substr(0, static_cast<std::size_t>(keep)), magnitude)) {
      return saturated;
    }
    if (magnitude == ~std::uint64_t{0}) return saturated;
    ++magnitude;
  }
  if (!negative_) {
    return magnitude > static_cast<std::uint64_t>(kInt64Max) ? kInt64Max
                                                             : static_cast<std::int64_t>(magnitude);
  }
  if (magnitude >= static_cast<std::uint64_t>(kInt64Max) + 1U) return kInt64Min;
  return -static_cast<std::int64_t>(magnitude);
}

std::int64_t Quantity::value() const noexcept {
  return scaled_value(0);
}

std::int64_t Quantity::milli_value() const noexcept {
  return scaled_value(3);
}

std::string Quantity::to_string() const {
  return text_.empty() ? canonical_string() : text_;
}

std::string Quantity::canonical_string() const {
  if (digits_.empty()) return "0";
  Format format = format_;
  if (format == Format::kBinarySI) {
    // Below 1024 in magnitude, or not an integer: DecimalSI, so that nothing is rounded.
    if (exponent_ < 0 || detail::compare_scaled(digits_, exponent_, "1024") < 0) {
      format = Format::kDecimalSI;
    }
  }
  std::string out = negative_ ? "-" : "";
  if (format == Format::kBinarySI) {
    std::string mantissa = digits_;
    mantissa.append(static_cast<std::size_t>(exponent_), '0');
    std::int32_t power = 0;
    while (true) {
      std::string quotient = mantissa;
      if (detail::divmod_magnitude(quotient, 1024) != 0) break;
      mantissa = std::move(quotient);
      ++power;
    }
    out += mantissa;
    out += binary_si_suffix(power);
    return out;
  }
  // Lower the exponent to a multiple of 3, widening the mantissa.
  std::string mantissa = digits_;
  std::int64_t exponent = exponent_;
  while (exponent % 3 != 0) {
    mantissa.push_back('0');
    --exponent;
  }
  out += mantissa;
  if (format == Format::kDecimalSI) {
    out += decimal_si_suffix(exponent);
  } else if (exponent != 0) {
    out += 'e';
    out += std::to_string(exponent);
  }
  return out;
}

}  // namespace trainer
