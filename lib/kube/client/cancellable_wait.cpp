// SPDX-License-Identifier: Apache-2.0
#include "kube/client/cancellable_wait.hpp"

#include "kube/client/cancel.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <random>

namespace trainer::kube::detail {

bool sleep_until(std::chrono::steady_clock::time_point until, const CancelToken& cancel) {
  std::mutex mutex;
  std::condition_variable woken;
  bool cancelled = false;
  // Declared after the mutex and the condition variable so it is destroyed first: its
  // destructor waits for a running waker, which touches both.
  const CancelRegistration registration(cancel, [&] {
    const std::lock_guard<std::mutex> lock(mutex);
    cancelled = true;
    woken.notify_all();
  });
  std::unique_lock<std::mutex> lock(mutex);
  woken.wait_until(lock, until, [&] { return cancelled; });
  return !cancelled;
}

std::chrono::milliseconds jittered(std::chrono::milliseconds base, double factor) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> extra(0.0, factor);
  return base + std::chrono::milliseconds(
                    static_cast<std::int64_t>(static_cast<double>(base.count()) * extra(rng)));
}

}  // namespace trainer::kube::detail
