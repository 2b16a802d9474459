// SPDX-License-Identifier: Apache-2.0
//
// A sleep that a CancelToken ends at once (rate-limiter, Retry-After and backoff waits), and the
// jitter of client-go's wait.Jitter for the waits that many clients would otherwise take in step.
#pragma once

#include "trainer/kube.hpp"

#include <chrono>

namespace trainer::kube::detail {

/// Sleeps until `until`; returns false when `cancel` was cancelled before (or during) the wait.
[[nodiscard]] bool sleep_until(std::chrono::steady_clock::time_point until,
                               const CancelToken& cancel);

/// client-go's `wait.Jitter(base, factor)`: `base` plus a random part of up to `base * factor`.
[[nodiscard]] std::chrono::milliseconds jittered(std::chrono::milliseconds base, double factor);

}  // namespace trainer::kube::detail
