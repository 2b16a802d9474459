// SPDX-License-Identifier: Apache-2.0
// Base64 through OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock (libcrypto is linked anyway); this
// file adds only what they lack: the padding-aware decoded length and the canonical-form check.
#include "ssh/base64.hpp"

#include <openssl/evp.h>

#include <limits>
#include <stdexcept>

namespace trainer::detail {

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

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0 ||
      text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;
  }
  std::string out(text.size() / 4 * 3, '\0');
  // EVP_DecodeBlock also skips leading/trailing whitespace and accepts non-canonical forms; the
  // re-encoding check below refuses every such text, so only canonical base64 decodes.
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  std::size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  if (base64_encode(out) != text) return std::nullopt;
  return out;
}

}  // namespace trainer::detail
