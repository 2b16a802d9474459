// SPDX-License-Identifier: Apache-2.0
//
// Text made JSON-safe the way Go's `encoding/json` does (each byte of an invalid UTF-8 sequence
// becomes U+FFFD), for a Secret's bytes copied into a ConfigMap. (A Secret's `data` is decoded
// as a Go client does with trainer/base64.hpp, Base64Decoding::kGo.)
#pragma once

#include <string>
#include <string_view>

namespace trainer::plugins::secret_data {

/// `bytes` with every byte that does not start a valid UTF-8 sequence replaced by U+FFFD.
[[nodiscard]] std::string to_valid_utf8(std::string_view bytes);

}  // namespace trainer::plugins::secret_data
