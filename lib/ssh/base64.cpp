// SPDX-License-Identifier: Apache-2.0
#include "ssh/base64.hpp"

#include <array>
#include <cstdint>

namespace trainer::detail {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> make_decode_table() {
  std::array<std::int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  }
  return table;
}

constexpr auto kDecode = make_decode_table();

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto byte = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = (byte(i) << 16U) | (byte(i + 1) << 8U) | byte(i + 2);
    out += kAlphabet[(n >> 18U) & 63U];
    out += kAlphabet[(n >> 12U) & 63U];
    out += kAlphabet[(n >> 6U) & 63U];
    out += kAlphabet[n & 63U];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    const std::uint32_t n = byte(i) << 16U;
    out += kAlphabet[(n >> 18U) & 63U];
    out += kAlphabet[(n >> 12U) & 63U];
    out += "==";
  } else if (rest == 2) {
    const std::uint32_t n = (byte(i) << 16U) | (byte(i + 1) << 8U);
    out += kAlphabet[(n >> 18U) & 63U];
    out += kAlphabet[(n >> 12U) & 63U];
    out += kAlphabet[(n >> 6U) & 63U];
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::uint32_t n = 0;
    int pad = 0;
    for (std::size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=') {
        // Padding only in the last quantum, only in its last two places, and only at the end.
        if (!last || k < 2) return std::nullopt;
        ++pad;
        n <<= 6U;
        continue;
      }
      if (pad > 0) return std::nullopt;
      const std::int8_t v = kDecode[static_cast<unsigned char>(c)];
      if (v < 0) return std::nullopt;
      n = (n << 6U) | static_cast<std::uint32_t>(v);
    }
    out += static_cast<char>((n >> 16U) & 0xFFU);
    if (pad < 2) out += static_cast<char>((n >> 8U) & 0xFFU);
    if (pad < 1) out += static_cast<char>(n & 0xFFU);
    // Canonical form: the bits under the padding are zero.
    if ((pad == 1 && (n & 0xFFU) != 0) || (pad == 2 && (n & 0xFFFFU) != 0)) return std::nullopt;
  }
  return out;
}

}  // namespace trainer::detail
