// SPDX-License-Identifier: Apache-2.0
//
// The response headers the transport's policy reads: `Retry-After` (client-go retries only on
// an integer number of seconds) and `Warning` (RFC 7234 `299 - "text"`, several per header).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::kube::detail {

/// The seconds of a `Retry-After` value when it is a non-negative integer (client-go ignores
/// the HTTP-date form), else nullopt. Values above a day count as a day.
[[nodiscard]] std::optional<long> parse_retry_after(std::string_view value);

/// The texts of the code-299 warnings in one `Warning` header value (comma-joined warnings,
/// quoted texts with backslash escapes, an optional quoted date). Other codes are skipped; a
/// malformed rest of the value ends the parse (what was read before is kept).
[[nodiscard]] std::vector<std::string> parse_warnings(std::string_view value);

}  // namespace trainer::kube::detail
