// SPDX-License-Identifier: Apache-2.0
//
// Kubernetes `resource.Quantity`: parsing of the full grammar, exact arithmetic and the canonical
// text Kubernetes prints (k8s.io/apimachinery/pkg/api/resource).
#pragma once

#include "trainer/error.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace trainer {

class Quantity {
 public:
  /// How the quantity prints: with a binary suffix (Ki, Mi, ...), a decimal SI suffix (m, k, M,
  /// ...) or a decimal exponent (e3, E6, ...), as Kubernetes keeps the format of the input.
  enum class Format { kBinarySI, kDecimalSI, kDecimalExponent };

  /// Kubernetes `MaxMilliValue`: the largest `value()` whose `milli_value()` does not saturate.
  static constexpr std::int64_t kMaxMilliValue = std::numeric_limits<std::int64_t>::max() / 1000;
  /// Parsed values whose magnitude reaches 10^kMaxDigits are refused with `kLimit`. Kubernetes has
  /// no such bound, but it expands `1e2000000000` into a two-billion-digit integer; real
  /// quantities are nowhere near this.
  static constexpr int kMaxDigits = 1000;

  /// Zero in DecimalSI.
  Quantity() = default;

  /// Parses `<signedNumber><suffix>` per Kubernetes' grammar (`ParseQuantity`): values finer than
  /// 1n round up (away from zero) to the next nano, BinarySI values cap at 2^63-1 in magnitude, and
  /// a BinarySI value strictly between 0 and 1 in magnitude becomes DecimalSI.
  /// Errors (`kParse`, messages as Kubernetes): `quantities must match the regular expression
  /// '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, `unable to parse quantity's suffix`,
  /// `unable to parse numeric part of quantity`; `kLimit` beyond kMaxDigits.
  [[nodiscard]] static Result<Quantity> parse(std::string_view text);
  /// The pattern of every `resource.Quantity` field in a CRD schema (controller-gen's schema for
  /// the type; x-kubernetes-int-or-string), which the API server checks before anything parses
  /// the value.
  static constexpr const char* kSchemaPattern =
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+"
      "(\\.[0-9]*)?)|(\\.[0-9]+))))?$";
  /// Whether `text` matches kSchemaPattern. The pattern and `parse` disagree at the edges: `parse`
  /// reads `.`, `-` and `+` as zero (the pattern needs a digit) and refuses `1e.5` or `1e1.5`
  /// (the pattern allows a fraction in the exponent), so a quantity field of a custom resource
  /// holds text that both accept.
  [[nodiscard]] static bool matches_schema_pattern(std::string_view text) noexcept;
  /// An integer number of units (e.g. CPUs, bytes) in the given format.
  [[nodiscard]] static Quantity from_int(std::int64_t value, Format format = Format::kDecimalSI);
  /// An integer number of thousandths (millicores).
  [[nodiscard]] static Quantity from_milli(std::int64_t milli, Format format = Format::kDecimalSI);

  /// The text Kubernetes' `Quantity.String()` gives: e.g. `1500m` -> "1500m", `1.5` ->
  /// "1500m", `0.1` -> "100m", `1e3` -> "1e3", `2Gi` -> "2Gi", `1024Mi` -> "1Gi". Like Kubernetes,
  /// a freshly parsed quantity whose digits already look canonical prints as it was written
  /// (`+1` -> "+1", `1.500` -> "1.500", `1E3` -> "1E3"); arithmetic drops that memory.
  [[nodiscard]] std::string to_string() const;
  /// Kubernetes `CanonicalizeBytes`: the canonical text, never the parsed spelling. A mantissa
  /// with as many trailing zeros moved into the suffix as possible, the suffix exponent a multiple
  /// of 3 (of 10 for BinarySI); BinarySI prints as DecimalSI below 1024 in magnitude or when not
  /// an integer. As in Kubernetes, a DecimalSI exponent above 18 (1000E) or a BinarySI power above
  /// 1024^6 (1024Ei) has no suffix and prints without one: "1".
  [[nodiscard]] std::string canonical_string() const;

  /// `Value()`: the value rounded to an integer away from zero (Kubernetes: "rounded up to the
  /// nearest integer away from 0"), saturating at the int64 range where Kubernetes overflows.
  [[nodiscard]] std::int64_t value() const noexcept;
  /// `MilliValue()`: the value times 1000, rounded away from zero, saturating at the int64 range.
  [[nodiscard]] std::int64_t milli_value() const noexcept;

  [[nodiscard]] Format format() const noexcept { return format_; }
  [[nodiscard]] bool is_zero() const noexcept;
  [[nodiscard]] int sign() const noexcept;

  /// Exact sum; the result keeps this quantity's format, or takes `other`'s when this one is zero
  /// (Kubernetes `Add`).
  Quantity& operator+=(const Quantity& other);
  /// Exact difference; keeps this quantity's format, or takes `other`'s when this one is zero
  /// (Kubernetes `Sub`).
  Quantity& operator-=(const Quantity& other);
  /// Exact product with an integer; keeps the format (Kubernetes `Mul`).
  Quantity& operator*=(std::int64_t factor);

  /// Kubernetes `Neg`: the same magnitude with the opposite sign, same format.
  [[nodiscard]] Quantity operator-() const;

  /// Compares by numeric value, regardless of format (Kubernetes `Cmp`): -1, 0 or 1.
  [[nodiscard]] int compare(const Quantity& other) const noexcept;
  friend bool operator==(const Quantity& a, const Quantity& b) noexcept {
    return a.compare(b) == 0;
  }
  friend bool operator!=(const Quantity& a, const Quantity& b) noexcept { return !(a == b); }
  friend bool operator<(const Quantity& a, const Quantity& b) noexcept { return a.compare(b) < 0; }
  friend bool operator<=(const Quantity& a, const Quantity& b) noexcept {
    return a.compare(b) <= 0;
  }
  friend bool operator>(const Quantity& a, const Quantity& b) noexcept { return a.compare(b) > 0; }
  friend bool operator>=(const Quantity& a, const Quantity& b) noexcept {
    return a.compare(b) >= 0;
  }
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  friend Quantity operator*(Quantity a, std::int64_t f) { return a *= f; }

 private:
  void normalize();
  void add_signed(const Quantity& other, bool negate_other);
  [[nodiscard]] std::int64_t scaled_value(std::int32_t shift) const noexcept;

  // |value| = digits_ * 10^exponent_, exactly, like Kubernetes' inf.Dec fallback. digits_ has no
  // leading or trailing zeros ("" = 0, then exponent_ == 0 and !negative_), so equal values have
  // equal members. Every value is a multiple of 1n: parse rounds to nano and arithmetic keeps it.
  std::string digits_;
  std::int32_t exponent_ = 0;
  bool negative_ = false;
  Format format_ = Format::kDecimalSI;
  // The parsed text when Kubernetes caches it as the `String()` result (see to_string()).
  std::string text_;
};

}  // namespace trainer
