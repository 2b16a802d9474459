// SPDX-License-Identifier: Apache-2.0
//
// The shared state behind kube::CancelToken: a flag plus the wake-up functions of the transfers
// waiting on it, so cancel() interrupts a blocked curl_multi_poll instead of being polled.
#pragma once

#include "trainer/kube.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace trainer::kube {

struct CancelToken::State {
  std::atomic<bool> cancelled{false};
  std::mutex mutex;
  std::uint64_t next_id = 0;
  std::map<std::uint64_t, std::function<void()>> wakers;
};

namespace detail {

/// Registers `wake` with `token` for the lifetime of this object; `wake` runs (on the
/// cancelling thread) when the token is cancelled, at once when it already is.
class CancelRegistration {
 public:
  CancelRegistration(const CancelToken& token, std::function<void()> wake);
  ~CancelRegistration();
  CancelRegistration(const CancelRegistration&) = delete;
  CancelRegistration& operator=(const CancelRegistration&) = delete;

 private:
  std::shared_ptr<CancelToken::State> state_;
  std::uint64_t id_ = 0;
};

}  // namespace detail
}  // namespace trainer::kube
