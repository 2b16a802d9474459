// SPDX-License-Identifier: Apache-2.0
#include "controller/work_queue.hpp"

#include <algorithm>

namespace trainer::controller::detail {

WorkQueue::WorkQueue(std::chrono::milliseconds backoff_base, std::chrono::milliseconds backoff_max)
    : backoff_(backoff_base, backoff_max) {}

void WorkQueue::add(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  add_locked(key);
}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;   // already waiting (or dirty while processing)
  if (processing_.count(key) != 0) return;  // `done` queues it again
  queue_.push_back(key);
  changed_.notify_all();
}

void WorkQueue::add_after(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (shutting_down_) return;
  if (delay <= std::chrono::milliseconds(0)) {
    add_locked(key);
    return;
  }
  const auto ready = SteadyClock::now() + delay;
  auto [it, inserted] = waiting_.emplace(key, ready);
  if (!inserted && ready < it->second) it->second = ready;
  // A sleeping `get` may now have to wake earlier.
  changed_.notify_all();
}

std::chrono::milliseconds WorkQueue::when(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return backoff_.after(failures_[key]++);
}

void WorkQueue::add_rate_limited(const std::string& key) {
  add_after(key, when(key));
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  failures_.erase(key);
}

int WorkQueue::failures(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

std::optional<WorkQueue::SteadyClock::time_point> WorkQueue::promote_locked(
    SteadyClock::time_point now) {
  std::optional<SteadyClock::time_point> next;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->second <= now) {
      add_locked(it->first);
      it = waiting_.erase(it);
    } else {
      if (!next || it->second < *next) next = it->second;
      ++it;
    }
  }
  return next;
}

std::optional<std::string> WorkQueue::get(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto deadline = SteadyClock::now() + timeout;
  for (;;) {
    if (shutting_down_) return std::nullopt;
    const auto now = SteadyClock::now();
    const auto next_delayed = promote_locked(now);
    if (!queue_.empty()) {
      std::string key = std::move(queue_.front());
      queue_.pop_front();
      dirty_.erase(key);
      processing_.insert(key);
      return key;
    }
    if (now >= deadline) return std::nullopt;
    changed_.wait_until(lock, next_delayed ? std::min(*next_delayed, deadline) : deadline);
  }
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  processing_.erase(key);
  if (dirty_.count(key) != 0 && !shutting_down_) {
    queue_.push_back(key);
    changed_.notify_all();
  }
  changed_.notify_all();  // wait_idle
}

void WorkQueue::shut_down() {
  std::lock_guard<std::mutex> lock(mutex_);
  shutting_down_ = true;
  queue_.clear();
  dirty_.clear();
  waiting_.clear();
  changed_.notify_all();
}

bool WorkQueue::shutting_down() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return shutting_down_;
}

bool WorkQueue::wait_idle(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return processing_.empty(); });
}

std::size_t WorkQueue::depth() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

std::size_t WorkQueue::delayed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_.size();
}

std::size_t WorkQueue::processing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return processing_.size();
}

}  // namespace trainer::controller::detail
