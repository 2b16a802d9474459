// SPDX-License-Identifier: Apache-2.0
//
// A sleep that a CancelToken ends at once (rate-limiter and Retry-After waits).
#pragma once

#include "trainer/kube.hpp"

#include <chrono>

namespace trainer::kube::detail {

/// Sleeps until `until`; returns false when `cancel` was cancelled before (or during) the wait.
[[nodiscard]] bool sleep_until(std::chrono::steady_clock::time_point until,
                               const CancelToken& cancel);

}  // namespace trainer::kube::detail
