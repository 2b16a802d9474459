// SPDX-License-Identifier: Apache-2.0
#include "api/text_position.hpp"

#include <cstdint>
#include <cstring>

namespace trainer::detail {

std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept {
  const std::size_t n = text.size();
  std::size_t i = 0;
  constexpr std::uint64_t kHighBits = 0x8080808080808080U;
  while (i < n) {
    // Eight ASCII bytes at a time: most of a manifest is ASCII, and every input is checked.
    if (n - i >= sizeof(std::uint64_t)) {
      std::uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & kHighBits) == 0) {
        i += sizeof word;
        continue;
      }
    }
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (b0 < 0x80U) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    std::uint32_t min = 0;
    if ((b0 & 0xE0U) == 0xC0U) {
      len = 2;
      cp = b0 & 0x1FU;
      min = 0x80U;
    } else if ((b0 & 0xF0U) == 0xE0U) {
      len = 3;
      cp = b0 & 0x0FU;
      min = 0x800U;
    } else if ((b0 & 0xF8U) == 0xF0U) {
      len = 4;
      cp = b0 & 0x07U;
      min = 0x10000U;
    } else {
      return i;
    }
    if (n - i < len) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      if ((b & 0xC0U) != 0x80U) return i;
      cp = (cp << 6U) | (b & 0x3FU);
    }
    // Overlong encodings would let a forbidden character hide behind a longer form.
    if (cp < min || cp > 0x10FFFFU || (cp >= 0xD800U && cp <= 0xDFFFU)) return i;
    i += len;
  }
  return std::nullopt;
}

std::string escape_invalid_utf8(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  while (const auto bad = find_invalid_utf8(text)) {
    const auto b = static_cast<unsigned char>(text[*bad]);
    out.append(text.substr(0, *bad));
    out += "\\x";
    out += kHex[b >> 4U];
    out += kHex[b & 0xFU];
    text.remove_prefix(*bad + 1);
  }
  out.append(text);
  return out;
}

std::string describe_position(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace trainer::detail
