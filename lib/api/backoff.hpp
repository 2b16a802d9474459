// SPDX-License-Identifier: Apache-2.0
//
// The one retry schedule: a delay that starts at `initial` and doubles after each failure, up
// to `max` (client-go's exponential failure rate limiter). The controller's work queue (5 ms to
// 1000 s per TrainJob), the watch (client-go's reflector: 800 ms to 30 s, each wait jittered by
// its caller) and the rendezvous connect (2 ms to 100 ms) use it. Header-only and free of other
// libtrainer code, so the collectives library takes it too.
#pragma once

#include <algorithm>
#include <chrono>

namespace trainer::detail {

class ExponentialBackoff {
 public:
  constexpr ExponentialBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
      : initial_(std::max(initial, std::chrono::milliseconds(0))),
        max_(std::max(max, std::chrono::milliseconds(0))),
        delay_(initial_) {}

  /// The delay after `failures` failures in a row (0: `initial`), without overflow.
  [[nodiscard]] constexpr std::chrono::milliseconds after(int failures) const {
    auto delay = initial_;
    for (int i = 0; i < failures && delay < max_; ++i) delay *= 2;
    return std::min(delay, max_);
  }

  /// The delay for this failure; the next one is twice as long (capped).
  constexpr std::chrono::milliseconds next() {
    const auto delay = std::min(delay_, max_);
    delay_ = delay_ < max_ ? delay_ * 2 : max_;
    return delay;
  }

  /// After a success: the next failure waits `initial` again.
  constexpr void reset() { delay_ = initial_; }

 private:
  std::chrono::milliseconds initial_;
  std::chrono::milliseconds max_;
  std::chrono::milliseconds delay_;
};

}  // namespace trainer::detail
