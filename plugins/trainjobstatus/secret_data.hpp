// SPDX-License-Identifier: Apache-2.0
//
// Reading a Secret's `data` the way a Go client does: standard base64 with padding (Go
// `base64.StdEncoding`, which skips `\r` and `\n`), and text made JSON-safe the way Go's
// `encoding/json` does (each byte of an invalid UTF-8 sequence becomes U+FFFD).
#pragma once

#include "trainer/error.hpp"

#include <string>
#include <string_view>

namespace trainer::plugins::secret_data {

/// Decodes standard base64. Errors (`kParse`) use Go's text and offsets:
/// `illegal base64 data at input byte <n>`.
[[nodiscard]] Result<std::string> base64_std_decode(std::string_view text);

/// `bytes` with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD.
[[nodiscard]] std::string to_valid_utf8(std::string_view bytes);

}  // namespace trainer::plugins::secret_data
