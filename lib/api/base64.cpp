// SPDX-License-Identifier: Apache-2.0
// Decoding follows Go's encoding/base64 (decodeQuantum) step for step, so the errors carry the
// offsets a Go program reports; encoding is OpenSSL's EVP_EncodeBlock (libcrypto is linked
// anyway).
#include "trainer/base64.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace trainer {
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

}  // namespace

std::string base64_encode(std::string_view bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) / 4 * 3) {
    throw std::length_error("base64_encode: input too large");
  }
  std::string out((bytes.size() + 2) / 3 * 4 + 1, '\0');  // + the NUL EVP_EncodeBlock writes
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

Result<std::string> base64_decode(std::string_view src, Base64Decoding mode) {
  const bool canonical = mode == Base64Decoding::kCanonical;
  const auto skipped = [canonical](char c) { return !canonical && (c == '\n' || c == '\r'); };
  std::string out;
  out.reserve(src.size() / 4 * 3);
  std::size_t si = 0;
  while (true) {
    // One quantum of up to four symbols.
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
      if (skipped(in)) {
        --j;  // wraps for j == 0; the loop increment brings it back
        continue;
      }
      if (in != '=') return corrupt(si - 1);
      // Padding: only after two or three symbols.
      if (j < 2) return corrupt(si - 1);
      if (j == 2) {
        while (si < src.size() && skipped(src[si])) ++si;
        if (si == src.size()) return corrupt(src.size());
        if (src[si] != '=') return corrupt(si - 1);
        ++si;
      }
      while (si < src.size() && skipped(src[si])) ++si;
      if (si < src.size()) return corrupt(si);
      dlen = j;
      end = true;
      break;
    }
    const std::uint32_t bits = dbuf[0] << 18 | dbuf[1] << 12 | dbuf[2] << 6 | dbuf[3];
    // Strict: the bits the padding stands for must be zero (Go's offsets).
    if (canonical && dlen == 3 && (bits & 0xff) != 0) return corrupt(si - 1);
    if (canonical && dlen == 2 && (bits & 0xffff) != 0) return corrupt(si - 2);
    out += static_cast<char>(bits >> 16 & 0xff);
    if (dlen > 2) out += static_cast<char>(bits >> 8 & 0xff);
    if (dlen > 3) out += static_cast<char>(bits & 0xff);
    if (end) return out;
  }
}

}  // namespace trainer
