// SPDX-License-Identifier: Apache-2.0
#include "ssh/openssh_wire.hpp"

#include "trainer/base64.hpp"

#include <cstdint>
#include <optional>

namespace trainer::detail {
namespace {

// Reads one RFC 4251 string from the front of `in`, advancing it.
std::optional<std::string_view> read_ssh_string(std::string_view& in) {
  if (in.size() < 4) return std::nullopt;
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    n = (n << 8U) | static_cast<std::uint32_t>(static_cast<unsigned char>(in[i]));
  }
  in.remove_prefix(4);
  if (n > in.size()) return std::nullopt;
  const auto out = in.substr(0, n);
  in.remove_prefix(n);
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

}  // namespace

std::string ssh_string(std::string_view bytes) {
  const auto n = static_cast<std::uint32_t>(bytes.size());
  std::string out;
  out.reserve(4 + bytes.size());
  out += static_cast<char>((n >> 24U) & 0xFFU);
  out += static_cast<char>((n >> 16U) & 0xFFU);
  out += static_cast<char>((n >> 8U) & 0xFFU);
  out += static_cast<char>(n & 0xFFU);
  out.append(bytes);
  return out;
}

std::string ecdsa_p521_public_blob(std::string_view q) {
  return ssh_string(kSshEcdsaP521Type) + ssh_string(kSshP521Identifier) + ssh_string(q);
}

std::string ecdsa_p521_authorized_key(std::string_view q) {
  std::string line(kSshEcdsaP521Type);
  line += ' ';
  line += base64_encode(ecdsa_p521_public_blob(q));
  line += '\n';
  return line;
}

Result<std::string> parse_ecdsa_p521_authorized_key(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.find('\n') != std::string_view::npos) {
    return fail(ErrorCode::kParse, "SSH public key: expected one authorized_keys line");
  }
  const auto sp = line.find_first_of(" \t");
  if (sp == std::string_view::npos) {
    return fail(ErrorCode::kParse, "SSH public key: expected \"<type> <base64> [comment]\"");
  }
  const auto type = line.substr(0, sp);
  if (type != kSshEcdsaP521Type) {
    return fail(ErrorCode::kInvalid, "SSH public key: type \"" + std::string(type) +
                                         "\" is not supported, expected " +
                                         std::string(kSshEcdsaP521Type));
  }
  auto rest = line.substr(sp);
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  const auto end = rest.find_first_of(" \t");
  const auto b64 = rest.substr(0, end);
  auto blob = base64_decode(b64);
  if (!blob || blob->empty()) {
    return fail(ErrorCode::kParse, "SSH public key: the key data is not valid base64");
  }
  std::string_view in = *blob;
  const auto inner_type = read_ssh_string(in);
  const auto identifier = read_ssh_string(in);
  const auto q = read_ssh_string(in);
  if (!inner_type || !identifier || !q || !in.empty()) {
    return fail(ErrorCode::kParse, "SSH public key: malformed key blob");
  }
  if (*inner_type != kSshEcdsaP521Type || *identifier != kSshP521Identifier) {
    return fail(ErrorCode::kInvalid,
                "SSH public key: the key blob is not an ecdsa-sha2-nistp521 key");
  }
  if (q->size() != kP521PointBytes || q->front() != '\x04') {
    return fail(ErrorCode::kParse, "SSH public key: the point is not an uncompressed P-521 point");
  }
  return std::move(*blob);
}

}  // namespace trainer::detail
