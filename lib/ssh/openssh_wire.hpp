// SPDX-License-Identifier: Apache-2.0
//
// The OpenSSH public key wire format for ECDSA P-521, written from the RFCs:
//
// * RFC 4251 section 5: `string` = uint32 length (network byte order) followed by the bytes.
// * RFC 4253 section 6.6: a public key blob starts with the key format identifier as a string.
// * RFC 5656 section 3.1: the ECDSA blob is
//       string "ecdsa-sha2-" + identifier      ("ecdsa-sha2-nistp521")
//       string identifier                      ("nistp521", section 6.1 / 10.1)
//       string Q                               (SEC 1 section 2.3.3 point encoding)
//   and our Q is always the uncompressed point 0x04 || X || Y with X, Y of 66 bytes each.
// * The authorized_keys line (sshd(8) AUTHORIZED_KEYS FILE FORMAT): `<type> <base64(blob)>`,
//   here without a comment and with a trailing newline, as Go's ssh.MarshalAuthorizedKey.
//
// Internal to trainer_core.
#pragma once

#include "trainer/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace trainer::detail {

inline constexpr std::string_view kSshEcdsaP521Type = "ecdsa-sha2-nistp521";
inline constexpr std::string_view kSshP521Identifier = "nistp521";
/// Bytes of a P-521 field element / scalar: ceil(521 / 8).
inline constexpr std::size_t kP521FieldBytes = 66;
/// Bytes of an uncompressed P-521 point: 1 + 2 * 66.
inline constexpr std::size_t kP521PointBytes = 1 + 2 * kP521FieldBytes;

/// RFC 4251 `string`: uint32 big-endian length + bytes.
[[nodiscard]] std::string ssh_string(std::string_view bytes);

/// The RFC 5656 public key blob for the uncompressed P-521 point `q` (133 bytes, 0x04 first).
[[nodiscard]] std::string ecdsa_p521_public_blob(std::string_view q);

/// `ecdsa-sha2-nistp521 <base64(blob)>\n` for the uncompressed point `q`.
[[nodiscard]] std::string ecdsa_p521_authorized_key(std::string_view q);

/// The blob of an authorized_keys line `ecdsa-sha2-nistp521 <base64> [comment]` (options before
/// the type are not accepted), checked to be a well-formed P-521 blob whose inner type matches.
/// Errors: kParse (malformed), kInvalid (another key type).
[[nodiscard]] Result<std::string> parse_ecdsa_p521_authorized_key(std::string_view line);

}  // namespace trainer::detail
