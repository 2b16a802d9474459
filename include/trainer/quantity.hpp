// SPDX-License-Identifier: Apache-2.0
//
// Kubernetes `resource.Quantity`: parsing of the full grammar, exact arithmetic and the canonical
// text Kubernetes prints (k8s.io/apimachinery/pkg/api/resource).
#pragma once

#include "trainer/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace trainer {

class Quantity {
 public:
  /// How the quantity prints: with a binary suffix (Ki, Mi, ...), a decimal SI suffix (m, k, M,
  /// ...) or a decimal exponent (e3, E6, ...), as Kubernetes keeps the format of the input.
  enum class Format { kBinarySI, kDecimalSI, kDecimalExponent };

  /// Zero in DecimalSI.
  Quantity() = default;

  /// Parses `<signedNumber><suffix>` per Kubernetes' grammar; `kParse` error otherwise
  /// (message as Kubernetes: `quantities must match the regular expression ...`).
  [[nodiscard]] static Result<Quantity> parse(std::string_view text);
  /// An integer number of units (e.g. CPUs, bytes) in the given format.
  [[nodiscard]] static Quantity from_int(std::int64_t value, Format format = Format::kDecimalSI);
  /// An integer number of thousandths (millicores).
  [[nodiscard]] static Quantity from_milli(std::int64_t milli, Format format = Format::kDecimalSI);

  /// Canonical text, as Kubernetes' `Quantity.String()`: e.g. `1500m` -> "1500m", `1.5` ->
  /// "1500m", `0.1` -> "100m", `1e3` -> "1e3", `2Gi` -> "2Gi", `1024Mi` -> "1Gi".
  [[nodiscard]] std::string to_string() const;

  /// `Value()`: the value rounded up to an integer (towards +infinity), saturating at int64.
  [[nodiscard]] std::int64_t value() const noexcept;
  /// `MilliValue()`: the value times 1000, rounded up, saturating at int64.
  [[nodiscard]] std::int64_t milli_value() const noexcept;

  [[nodiscard]] Format format() const noexcept { return format_; }
  [[nodiscard]] bool is_zero() const noexcept;
  [[nodiscard]] int sign() const noexcept;

  /// Exact sum; the result keeps this quantity's format (Kubernetes `Add`).
  Quantity& operator+=(const Quantity& other);
  /// Exact difference; keeps this quantity's format (Kubernetes `Sub`).
  Quantity& operator-=(const Quantity& other);
  /// Exact product with an integer; keeps the format (Kubernetes `Mul`).
  Quantity& operator*=(std::int64_t factor);

  /// Compares by numeric value, regardless of format (Kubernetes `Cmp`): -1, 0 or 1.
  [[nodiscard]] int compare(const Quantity& other) const noexcept;
  friend bool operator==(const Quantity& a, const Quantity& b) noexcept {
    return a.compare(b) == 0;
  }
  friend bool operator!=(const Quantity& a, const Quantity& b) noexcept { return !(a == b); }
  friend bool operator<(const Quantity& a, const Quantity& b) noexcept { return a.compare(b) < 0; }
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  friend Quantity operator*(Quantity a, std::int64_t f) { return a *= f; }

 private:
  // The implementation chooses the exact representation (e.g. an arbitrary-precision decimal
  // mantissa and a base-10 scale, as Kubernetes' inf.Dec); see lib/kube/quantity.cpp.
  std::string digits_;  // decimal digits of |value| * 10^-scale_, no leading zeros ("" = 0)
  std::int32_t scale_ = 0;
  bool negative_ = false;
  Format format_ = Format::kDecimalSI;
};

}  // namespace trainer
