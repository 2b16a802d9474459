// SPDX-License-Identifier: Apache-2.0
//
// Unsigned arbitrary-precision integers as decimal digit strings (most significant digit first,
// '0'..'9'). Quantity keeps its magnitude this way because Kubernetes falls back to inf.Dec
// (unbounded) whenever an int64 would overflow, and the values involved are short.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace trainer::detail {

/// Removes leading '0's; "" stands for zero.
void strip_leading_zeros(std::string& digits);
/// Compares two magnitudes without leading zeros: -1, 0 or 1.
[[nodiscard]] int compare_magnitude(std::string_view a, std::string_view b) noexcept;
/// a + b.
[[nodiscard]] std::string add_magnitude(std::string_view a, std::string_view b);
/// a - b; requires a >= b. The result has no leading zeros.
[[nodiscard]] std::string sub_magnitude(std::string_view a, std::string_view b);
/// digits *= factor.
void mul_magnitude(std::string& digits, std::uint64_t factor);
/// digits /= divisor (divisor > 0); returns the remainder. The quotient has no leading zeros.
std::uint32_t divmod_magnitude(std::string& digits, std::uint32_t divisor);
/// digits + 1.
void increment_magnitude(std::string& digits);
/// The magnitude as uint64, or false when it does not fit.
[[nodiscard]] bool magnitude_to_u64(std::string_view digits, std::uint64_t& out) noexcept;
/// Compares digits * 10^exponent (no leading zeros) with the integer `integer`: -1, 0 or 1.
[[nodiscard]] int compare_scaled(std::string_view digits, std::int32_t exponent,
                                 std::string_view integer);
/// Decimal digits of v ("" for 0).
[[nodiscard]] std::string u64_to_magnitude(std::uint64_t v);

}  // namespace trainer::detail
