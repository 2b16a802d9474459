// SPDX-License-Identifier: Apache-2.0
//
// Kubernetes time text: `metav1.Time` (RFC 3339 UTC, seconds), `metav1.MicroTime` (microseconds)
// and RFC 3339 parsing with fractions and offsets (ExecCredential expiry, condition times), and
// ages as kubectl prints them. The one place that formats or parses them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::detail {

/// `2026-01-02T15:04:05Z` (`metav1.Time`).
[[nodiscard]] std::string format_rfc3339(std::chrono::system_clock::time_point t);
/// `2026-01-02T15:04:05.123456Z` (`metav1.MicroTime`: Lease times, event times).
[[nodiscard]] std::string format_rfc3339_micro(std::chrono::system_clock::time_point t);
/// RFC 3339 (`2018-03-05T17:30:20-08:00`, fractional seconds allowed) as a time point; nullopt
/// when `text` is not one.
[[nodiscard]] std::optional<std::chrono::system_clock::time_point> parse_rfc3339(
    std::string_view text);

/// How long ago, as kubectl's AGE columns and `describe` show it (apimachinery's
/// duration.HumanDuration): `45s`, `2m30s`, `15m`, `5h20m`, `30h`, `3d4h`, `20d`, `2y10d`;
/// `0s` up to 2 s in the future (clock skew), `<invalid>` beyond.
[[nodiscard]] std::string human_duration(std::chrono::milliseconds elapsed);

}  // namespace trainer::detail
