// SPDX-License-Identifier: Apache-2.0
#include "cluster/operation_token.hpp"

namespace trainer::cluster::detail {

OperationToken::OperationToken(const kube::CancelToken& parent,
                               std::optional<Clock::time_point> deadline) {
  // The waker runs under the parent's lock and takes only this token's: no lock cycle.
  link_ = std::make_unique<kube::detail::CancelRegistration>(parent,
                                                             [token = token_] { token.cancel(); });
  if (!deadline) return;
  timer_ = std::thread([this, at = *deadline] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_until(lock, at, [this] { return done_; })) return;
    expired_ = true;
    token_.cancel();
  });
}

OperationToken::~OperationToken() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  if (timer_.joinable()) timer_.join();
}

}  // namespace trainer::cluster::detail
