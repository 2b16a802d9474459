// SPDX-License-Identifier: Apache-2.0
//
// RFC 4648 section 4 base64 (standard alphabet, `=` padding), as Kubernetes Secret `data`,
// OpenSSH authorized_keys blobs and PEM bodies use it. Internal to trainer_core.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trainer::detail {

/// Padded base64 of `bytes`, no line breaks.
[[nodiscard]] std::string base64_encode(std::string_view bytes);
/// The bytes of padded base64 `text` (no whitespace allowed); nullopt when `text` is not
/// canonical base64 (bad character, bad length, misplaced padding, non-zero trailing bits).
[[nodiscard]] std::optional<std::string> base64_decode(std::string_view text);

}  // namespace trainer::detail
