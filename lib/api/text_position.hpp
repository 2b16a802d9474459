// SPDX-License-Identifier: Apache-2.0
//
// Byte-level checks on untrusted text shared by the YAML and JSON readers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::detail {

/// The byte offset of the first invalid UTF-8 sequence (overlong forms, surrogates and code
/// points above U+10FFFF are invalid), or nullopt when the whole text is valid.
[[nodiscard]] std::optional<std::size_t> find_invalid_utf8(std::string_view text) noexcept;

/// `text` with every byte that is not part of valid UTF-8 written as `\xNN` (as Go's %q
/// writes it), for messages that quote untrusted bytes (yaml-cpp quotes single bytes).
[[nodiscard]] std::string escape_invalid_utf8(std::string_view text);

/// `line L, column C` (both 1-based, columns in bytes) of a byte offset in `text`.
[[nodiscard]] std::string describe_position(std::string_view text, std::size_t offset);

}  // namespace trainer::detail
