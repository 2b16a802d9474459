// SPDX-License-Identifier: Apache-2.0
//
// client-go's client-side rate limit: a token bucket with golang.org/x/time/rate semantics
// (`burst` tokens at start, refilled at `qps` per second; a waiter reserves its token at once,
// so waiters are served in arrival order). Every attempt of a request takes a token.
#pragma once

#include "trainer/kube.hpp"

#include <chrono>
#include <mutex>

namespace trainer::kube::detail {

class RateLimiter {
 public:
  /// `qps < 0` (or 0) disables the limit; `burst < 1` counts as 1.
  RateLimiter(double qps, int burst);

  enum class Outcome { kAcquired, kCancelled, kDeadline };
  /// Waits for a token. A wait that would end after `deadline` does not start (the token is
  /// not taken) and returns kDeadline; a cancelled wait gives its token back.
  [[nodiscard]] Outcome acquire(const CancelToken& cancel,
                                std::chrono::steady_clock::time_point deadline);

 private:
  using Clock = std::chrono::steady_clock;
  const double qps_;
  const double burst_;
  std::mutex mutex_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace trainer::kube::detail
