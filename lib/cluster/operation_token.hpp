// SPDX-License-Identifier: Apache-2.0
//
// The cancellation of one cluster operation: a token of its own that is cancelled when the
// caller's token is, when the operation's deadline passes, or by the operation itself (one of
// several log streams ended: stop the others). The caller's token is never cancelled by it.
#pragma once

#include "kube/client/cancel.hpp"
#include "trainer/kube.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace trainer::cluster::detail {

class OperationToken {
 public:
  using Clock = std::chrono::steady_clock;

  explicit OperationToken(const kube::CancelToken& parent,
                          std::optional<Clock::time_point> deadline = std::nullopt);
  ~OperationToken();
  OperationToken(const OperationToken&) = delete;
  OperationToken& operator=(const OperationToken&) = delete;

  [[nodiscard]] const kube::CancelToken& token() const noexcept { return token_; }
  void cancel() const noexcept { token_.cancel(); }
  /// Whether the deadline (not the caller, not `cancel()`) cancelled the token.
  [[nodiscard]] bool expired() const noexcept { return expired_.load(); }

 private:
  kube::CancelToken token_;
  std::unique_ptr<kube::detail::CancelRegistration> link_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::atomic<bool> expired_{false};
  std::thread timer_;
};

}  // namespace trainer::cluster::detail
