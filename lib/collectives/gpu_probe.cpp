// SPDX-License-Identifier: Apache-2.0
// "Is there a GPU?" without touching NCCL: first the device nodes (a stat, microseconds), then
// the CUDA runtime (only where a driver is present); the answer is computed once and cached.
#include "trainer/collectives.hpp"

#include <unistd.h>

#if defined(TRAINER_HAVE_NCCL)
#include <cuda_runtime_api.h>
#endif

namespace trainer::collectives {
namespace {

bool device_nodes_present() noexcept {
  // /dev/nvidiactl: Linux NVIDIA driver (also in containers with the NVIDIA runtime);
  // /dev/dxg: WSL 2.
  return ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/dxg", F_OK) == 0;
}

bool probe() noexcept {
  if (!device_nodes_present()) return false;
#if defined(TRAINER_HAVE_NCCL)
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
#else
  return false;
#endif
}

}  // namespace

bool cuda_available() noexcept {
  static const bool available = probe();  // thread-safe one-time initialisation
  return available;
}

}  // namespace trainer::collectives
