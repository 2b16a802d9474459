// SPDX-License-Identifier: Apache-2.0
//
// The error of a failed CUDA runtime call, as the NCCL backend and the MPI backend's device
// buffer path both report it.
#pragma once

#include "trainer/error.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace trainer::collectives::detail {

/// kIo: "<what> failed: <CUDA's text for e>".
[[nodiscard]] inline tl::unexpected<Error> cuda_fail(const char* what, cudaError_t e) {
  return fail(ErrorCode::kIo, std::string(what) + " failed: " + cudaGetErrorString(e));
}

}  // namespace trainer::collectives::detail
