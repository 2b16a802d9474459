// SPDX-License-Identifier: Apache-2.0
#include "secret_data.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace trainer::plugins::secret_data {

namespace {

constexpr std::uint8_t kInvalid = 0xff;

constexpr std::array<std::uint8_t, 256> make_decode_map() {
  std::array<std::uint8_t, 256> map{};
  for (auto& v : map) v = kInvalid;
  constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    map[static_cast<unsigned char>(alphabet[i])] = static_cast<std::uint8_t>(i);
  }
  return map;
}

constexpr std::array<std::uint8_t, 256> kDecodeMap = make_decode_map();

tl::unexpected<Error> corrupt(std::size_t offset) {
  return fail(ErrorCode::kParse, "illegal base64 data at input byte " + std::to_string(offset));
}

bool is_newline(char c) {
  return c == '\n' || c == '\r';
}

}  // namespace

Result<std::string> base64_std_decode(std::string_view src) {
  std::string out;
  out.reserve(src.size() / 4 * 3);
  std::size_t si = 0;
  while (true) {
    // One quantum of up to four symbols, as Go's decodeQuantum.
    std::array<std::uint32_t, 4> dbuf{};
    std::size_t dlen = 4;
    bool end = false;
    for (std::size_t j = 0; j < 4; ++j) {
      if (si == src.size()) {
        if (j == 0) return out;
        return corrupt(si - j);
      }
      const char in = src[si];
      ++si;
      const std::uint8_t symbol = kDecodeMap[static_cast<unsigned char>(in)];
      if (symbol != kInvalid) {
        dbuf[j] = symbol;
        continue;
      }
      if (is_newline(in)) {
        --j;  // wraps for j == 0; the loop increment brings it back
        continue;
      }
      if (in != '=') return corrupt(si - 1);
      // Padding: only after two or three symbols.
      if (j < 2) return corrupt(si - 1);
      if (j == 2) {
        while (si < src.size() && is_newline(src[si])) ++si;
        if (si == src.size()) return corrupt(src.size());
        if (src[si] != '=') return corrupt(si - 1);
        ++si;
      }
      while (si < src.size() && is_newline(src[si])) ++si;
      if (si < src.size()) return corrupt(si);
      dlen = j;
      end = true;
      break;
    }
    const std::uint32_t bits = dbuf[0] << 18 | dbuf[1] << 12 | dbuf[2] << 6 | dbuf[3];
    out += static_cast<char>(bits >> 16 & 0xff);
    if (dlen > 2) out += static_cast<char>(bits >> 8 & 0xff);
    if (dlen > 3) out += static_cast<char>(bits & 0xff);
    if (end) return out;
  }
}

std::string to_valid_utf8(std::string_view bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < bytes.size() && byte(k) >= lo && byte(k) <= hi;
  };
  while (i < bytes.size()) {
    const unsigned char b = byte(i);
    std::size_t len = 0;
    if (b < 0x80) {
      len = 1;
    } else if (b >= 0xC2 && b <= 0xDF) {
      len = cont(i + 1) ? 2 : 0;
    } else if (b >= 0xE0 && b <= 0xEF) {
      // No overlongs (E0 needs A0..BF) and no surrogates (ED needs 80..9F).
      const unsigned lo = b == 0xE0 ? 0xA0 : 0x80;
      const unsigned hi = b == 0xED ? 0x9F : 0xBF;
      len = cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
    } else if (b >= 0xF0 && b <= 0xF4) {
      // No overlongs (F0 needs 90..BF) and nothing above U+10FFFF (F4 needs 80..8F).
      const unsigned lo = b == 0xF0 ? 0x90 : 0x80;
      const unsigned hi = b == 0xF4 ? 0x8F : 0xBF;
      len = cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
    }
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace trainer::plugins::secret_data
