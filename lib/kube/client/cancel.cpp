// SPDX-License-Identifier: Apache-2.0
#include "kube/client/cancel.hpp"

#include <utility>

namespace trainer::kube {

CancelToken::CancelToken() : state_(std::make_shared<State>()) {}

void CancelToken::cancel() const noexcept {
  // The wakers run under the lock: a registration's destructor takes it too, so a transfer
  // cannot free what its waker touches (a curl multi handle) while the waker runs.
  const std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->cancelled.exchange(true)) return;
  for (auto& entry : state_->wakers) entry.second();
}

bool CancelToken::cancelled() const noexcept {
  return state_->cancelled.load();
}

namespace detail {

CancelRegistration::CancelRegistration(const CancelToken& token, std::function<void()> wake)
    : state_(token.state()) {
  bool already = false;
  {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    already = state_->cancelled.load();
    if (!already) {
      id_ = ++state_->next_id;
      state_->wakers.emplace(id_, std::move(wake));
    }
  }
  if (already) wake();
}

CancelRegistration::~CancelRegistration() {
  if (id_ == 0) return;
  const std::lock_guard<std::mutex> lock(state_->mutex);
  state_->wakers.erase(id_);
}

}  // namespace detail
}  // namespace trainer::kube
