// SPDX-License-Identifier: Apache-2.0
//
// Polling for a condition another thread or process makes true (a server's connection count, a
// controller's writes, a watch's store): the tests' one loop for it.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace trainer::testing {

/// Calls `done` every `poll` until it returns true or `timeout` has passed; true when it did.
/// It is called once more at the deadline, so a condition met during the last sleep counts.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                       std::chrono::milliseconds poll = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(poll);
  }
  return done();
}

}  // namespace trainer::testing
