// SPDX-License-Identifier: Apache-2.0
// Go's `%q` for the strings that reach Kubernetes-style messages.
#pragma once

#include <string>
#include <string_view>

namespace trainer::detail {

/// `s` in double quotes with Go's escapes: `\"`, `\\`, `\n`, `\t`, `\r`, and `\xNN` for other
/// control bytes. Valid UTF-8 stays as it is, as Go prints printable runes.
[[nodiscard]] std::string go_quote(std::string_view s);

}  // namespace trainer::detail
