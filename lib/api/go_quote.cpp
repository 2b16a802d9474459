// SPDX-License-Identifier: Apache-2.0
#include "trainer/error.hpp"

namespace trainer {

std::string go_quote(std::string_view s) {
  static constexpr const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\x";
          out.push_back(kHex[u >> 4U]);
          out.push_back(kHex[u & 0xfU]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace trainer
