// SPDX-License-Identifier: Apache-2.0
#include "kube/decimal.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace trainer::detail {

namespace {

int digit(char c) noexcept {
  return c - '0';
}
char to_char(std::uint64_t d) noexcept {
  return static_cast<char>('0' + static_cast<int>(d));
}

}  // namespace

void strip_leading_zeros(std::string& digits) {
  const auto first = digits.find_first_not_of('0');
  digits.erase(0, first == std::string::npos ? digits.size() : first);
}

int compare_magnitude(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string add_magnitude(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);
  std::string out(a.size() + 1, '0');
  int carry = 0;
  std::size_t ia = a.size();
  std::size_t ib = b.size();
  std::size_t io = out.size();
  while (ia > 0) {
    int sum = digit(a[--ia]) + carry;
    if (ib > 0) sum += digit(b[--ib]);
    carry = sum / 10;
    out[--io] = static_cast<char>('0' + sum % 10);
  }
  out[0] = static_cast<char>('0' + carry);
  strip_leading_zeros(out);
  return out;
}

std::string sub_magnitude(std::string_view a, std::string_view b) {
  std::string out(a);
  int borrow = 0;
  std::size_t io = out.size();
  std::size_t ib = b.size();
  while (io > 0) {
    --io;
    int d = digit(out[io]) - borrow;
    if (ib > 0) d -= digit(b[--ib]);
    borrow = d < 0 ? 1 : 0;
    if (d < 0) d += 10;
    out[io] = static_cast<char>('0' + d);
    if (ib == 0 && borrow == 0) break;
  }
  strip_leading_zeros(out);
  return out;
}

void mul_magnitude(std::string& digits, std::uint64_t factor) {
  if (digits.empty()) return;
  if (factor == 0) {
    digits.clear();
    return;
  }
  // Schoolbook product with the factor's own digits: the factor has at most 20 of them, and the
  // per-column sums stay far below 2^64.
  const std::string f = u64_to_magnitude(factor);
  std::vector<std::uint64_t> acc(digits.size() + f.size(), 0);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    for (std::size_t j = 0; j < f.size(); ++j) {
      acc[i + j + 1] +=
          static_cast<std::uint64_t>(digit(digits[i])) * static_cast<std::uint64_t>(digit(f[j]));
    }
  }
  std::string out(acc.size(), '0');
  std::uint64_t carry = 0;
  for (std::size_t k = acc.size(); k > 0; --k) {
    const std::uint64_t v = acc[k - 1] + carry;
    out[k - 1] = to_char(v % 10);
    carry = v / 10;
  }
  strip_leading_zeros(out);
  digits = std::move(out);
}

std::uint32_t divmod_magnitude(std::string& digits, std::uint32_t divisor) {
  std::uint64_t rem = 0;
  for (char& c : digits) {
    const std::uint64_t cur = rem * 10 + static_cast<std::uint64_t>(digit(c));
    c = to_char(cur / divisor);
    rem = cur % divisor;
  }
  strip_leading_zeros(digits);
  return static_cast<std::uint32_t>(rem);
}

void increment_magnitude(std::string& digits) {
  for (std::size_t i = digits.size(); i > 0; --i) {
    if (digits[i - 1] != '9') {
      ++digits[i - 1];
      return;
    }
    digits[i - 1] = '0';
  }
  digits.insert(digits.begin(), '1');
}

bool magnitude_to_u64(std::string_view digits, std::uint64_t& out) noexcept {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  std::uint64_t v = 0;
  for (const char c : digits) {
    const auto d = static_cast<std::uint64_t>(digit(c));
    if (v > (kMax - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

int compare_scaled(std::string_view digits, std::int32_t exponent, std::string_view integer) {
  if (exponent >= 0) {
    // Magnitude first, so that a huge exponent is never expanded.
    const auto len = static_cast<std::int64_t>(digits.size()) + exponent;
    if (digits.empty()) return integer.empty() ? 0 : -1;
    if (len != static_cast<std::int64_t>(integer.size())) {
      return len < static_cast<std::int64_t>(integer.size()) ? -1 : 1;
    }
    std::string whole(digits);
    whole.append(static_cast<std::size_t>(exponent), '0');
    return compare_magnitude(whole, integer);
  }
  const auto frac = static_cast<std::size_t>(-static_cast<std::int64_t>(exponent));
  std::string whole;
  bool has_fraction = false;
  if (frac >= digits.size()) {
    has_fraction = !digits.empty();
  } else {
    whole.assign(digits.substr(0, digits.size() - frac));
    strip_leading_zeros(whole);
    has_fraction =
        digits.substr(digits.size() - frac).find_first_not_of('0') != std::string_view::npos;
  }
  const int c = compare_magnitude(whole, integer);
  if (c != 0) return c;
  return has_fraction ? 1 : 0;
}

std::string u64_to_magnitude(std::uint64_t v) {
  std::string out;
  while (v > 0) {
    out.push_back(to_char(v % 10));
    v /= 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace trainer::detail
