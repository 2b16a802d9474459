// SPDX-License-Identifier: Apache-2.0
#include "kube/client/rate_limiter.hpp"

#include "kube/client/cancellable_wait.hpp"

#include <algorithm>

namespace trainer::kube::detail {

RateLimiter::RateLimiter(double qps, int burst)
    : qps_(qps),
      burst_(static_cast<double>(std::max(burst, 1))),
      tokens_(burst_),
      last_(Clock::now()) {}

RateLimiter::Outcome RateLimiter::acquire(const CancelToken& cancel, Clock::time_point deadline) {
  if (cancel.cancelled()) return Outcome::kCancelled;
  if (qps_ <= 0) return Outcome::kAcquired;
  Clock::time_point ready;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
    const double after = tokens_ - 1;
    ready = now;
    if (after < 0) {
      ready +=
          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-after / qps_));
    }
    if (ready > deadline) return Outcome::kDeadline;
    tokens_ = after;
  }
  if (ready <= Clock::now() || sleep_until(ready, cancel)) return Outcome::kAcquired;
  // x/time/rate cancels the reservation: the token goes back to the bucket.
  const std::lock_guard<std::mutex> lock(mutex_);
  tokens_ = std::min(burst_, tokens_ + 1);
  return Outcome::kCancelled;
}

}  // namespace trainer::kube::detail
