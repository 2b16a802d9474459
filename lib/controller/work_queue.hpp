// SPDX-License-Identifier: Apache-2.0
//
// The controller's work queue: client-go's rate-limiting delaying queue (reference 9.1) for
// `<namespace>/<name>` keys.
//
// - `add` of a key already waiting is a no-op (dedup while queued).
// - A key being processed is never handed to a second worker: `add` only marks it dirty and
//   `done` queues it again, so a change made during a reconcile is not lost.
// - `add_after` delays a key; when it is already delayed, the earlier ready time wins.
// - `add_rate_limited` delays by the key's own exponential backoff (base * 2^failures, capped;
//   no overall token bucket, as controller-runtime >= 0.23); `forget` resets it after success.
// - `shut_down` stops intake and drops waiting keys (a restarted controller lists everything
//   again); keys being processed finish, `wait_idle` waits for them with a bound.
#pragma once

#include "api/backoff.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace trainer::controller::detail {

class WorkQueue {
 public:
  using SteadyClock = std::chrono::steady_clock;

  WorkQueue(std::chrono::milliseconds backoff_base, std::chrono::milliseconds backoff_max);

  void add(const std::string& key);
  void add_after(const std::string& key, std::chrono::milliseconds delay);
  /// `add_after(key, when(key))`.
  void add_rate_limited(const std::string& key);
  /// The key's next backoff (base * 2^failures, capped) and one more failure counted.
  [[nodiscard]] std::chrono::milliseconds when(const std::string& key);
  void forget(const std::string& key);
  [[nodiscard]] int failures(const std::string& key) const;

  /// The next ready key, now marked processing (the caller must call `done`). Blocks at most
  /// `timeout`; nullopt on timeout or once the queue is shut down.
  [[nodiscard]] std::optional<std::string> get(std::chrono::milliseconds timeout);
  void done(const std::string& key);

  void shut_down();
  [[nodiscard]] bool shutting_down() const;
  /// Waits until no key is being processed; false when `timeout` passed first.
  [[nodiscard]] bool wait_idle(std::chrono::milliseconds timeout);

  /// Keys ready to be handed out (client-go's `Len`).
  [[nodiscard]] std::size_t depth() const;
  /// Keys delayed by `add_after` / `add_rate_limited` and not yet ready.
  [[nodiscard]] std::size_t delayed() const;
  [[nodiscard]] std::size_t processing() const;

 private:
  void add_locked(const std::string& key);
  // Moves delayed keys whose time came into the queue; returns the next delayed time.
  std::optional<SteadyClock::time_point> promote_locked(SteadyClock::time_point now);

  const trainer::detail::ExponentialBackoff backoff_;  // its after(): stateless, per key
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // needs processing (queued, or re-queued on done)
  std::set<std::string> processing_;  // handed to a worker
  std::map<std::string, SteadyClock::time_point> waiting_;  // add_after, earliest wins
  std::map<std::string, int> failures_;
  bool shutting_down_ = false;
};

}  // namespace trainer::controller::detail
