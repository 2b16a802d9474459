// SPDX-License-Identifier: Apache-2.0
//
// Internals of the cluster section of the C ABI (trainer/cluster.h): the handles behind
// trainer_cancel_token and trainer_client, shared by the client and cluster shims.
#pragma once

#include "capi/capi.hpp"
#include "trainer/kube.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct trainer_cancel_token {
  trainer::kube::CancelToken token;  // copies share the state, so calls hold their own copy
};

namespace trainer::capi {

/// The caller's warning callback and its user data, released exactly once (when the last
/// holder, the kube client's on_warning or the C handle, goes).
struct WarningSink {
  trainer_warning_fn fn = nullptr;
  void* user_data = nullptr;
  void (*user_data_free)(void*) = nullptr;

  WarningSink() = default;
  WarningSink(const WarningSink&) = delete;
  WarningSink& operator=(const WarningSink&) = delete;
  ~WarningSink() {
    if (user_data_free != nullptr) user_data_free(user_data);
  }
  /// Calls the callback with a NUL-terminated copy of `text` (no-op without a callback). It
  /// runs inside the client's requests, possibly on their transfer threads, so it never throws:
  /// a warning that cannot be copied is dropped.
  void warn(std::string_view text) const noexcept {
    if (fn == nullptr) return;
    try {
      const std::string copy(text);
      (void)fn(user_data, copy.c_str(), copy.size());
    } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory; a warning cannot fail a call
    }
  }
};

/// `token` (may be NULL) and `timeout_ms` (0 or less: the client's) as the core's call options.
template <class Options>
void set_call_options(Options& out, const trainer_cancel_token* token, int64_t timeout_ms) {
  if (token != nullptr) out.cancel = token->token;
  if (timeout_ms > 0) out.timeout = std::chrono::milliseconds(timeout_ms);
}

}  // namespace trainer::capi

struct trainer_client {
  trainer::kube::Client client;
  std::shared_ptr<trainer::capi::WarningSink> warnings;
  std::shared_ptr<trainer::capi::WarningSink> logs;  // on_log: the same shape as a warning
  std::string server;                                // handed out by trainer_client_server()
};
