// SPDX-License-Identifier: Apache-2.0
// SIGTERM and SIGINT as a request to stop, received on a thread of their own with sigwait (no
// signal handler, so the stop callback may lock, allocate and log). A second signal while the
// stop is under way ends the process at once with exit 1, as controller-runtime does; the same
// signal from the same process within a second of the first (a kill of the process and of its
// group, as timeout(1) sends it) is the first one delivered twice, not a second.
#pragma once

#include <pthread.h>
#include <atomic>
#include <functional>
#include <thread>

namespace trainerctl {

class StopSignals {
 public:
  /// Blocks SIGTERM and SIGINT in the calling thread, and so in every thread it starts later:
  /// call it before any thread exists, so that none of them receives the signals.
  static void block();

  /// Starts the waiting thread; `on_stop` runs on it at the first signal. When no thread can be
  /// started (out of processes) it warns and unblocks the signals: they then end the process.
  explicit StopSignals(std::function<void()> on_stop);
  /// Ends the waiting thread (it no longer reacts to signals) and joins it.
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  /// Whether a signal asked to stop.
  [[nodiscard]] bool signalled() const { return signalled_.load(); }

 private:
  void wait_loop();

  std::function<void()> on_stop_;
  std::atomic<bool> done_{false};
  std::atomic<bool> signalled_{false};
  std::thread thread_;
};

}  // namespace trainerctl
