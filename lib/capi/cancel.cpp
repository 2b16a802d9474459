// SPDX-License-Identifier: Apache-2.0
// trainer_cancel_token: the C face of trainer::kube::CancelToken.
#include "capi/client.hpp"

#include <memory>

extern "C" {

trainer_status trainer_cancel_token_new(trainer_cancel_token** out, trainer_error** err) {
  return trainer::capi::guard(err, [&]() -> trainer_status {
    if (out == nullptr) {
      return trainer::capi::set_error(err, TRAINER_E_INVALID_ARGUMENT, "out is NULL");
    }
    *out = nullptr;
    *out = std::make_unique<trainer_cancel_token>().release();
    return TRAINER_OK;
  });
}

void trainer_cancel_token_cancel(trainer_cancel_token* token) {
  trainer::capi::guard_void([&] {
    if (token != nullptr) token->token.cancel();
  });
}

int32_t trainer_cancel_token_cancelled(const trainer_cancel_token* token) {
  return trainer::capi::guard_value<int32_t>(
      0, [&] { return token != nullptr && token->token.cancelled() ? 1 : 0; });
}

void trainer_cancel_token_free(trainer_cancel_token* token) {
  trainer::capi::guard_void([&] { delete token; });
}

}  // extern "C"
