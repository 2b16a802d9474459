// SPDX-License-Identifier: Apache-2.0
//
// The collectives backends compiled into this build (the TRAINER_FEATURE_* bits of trainer.h):
// what trainer_features() answers and `trainerctl version` prints, without loading
// libtrainer.so. Its includers link trainer_build_features, which defines TRAINER_HAVE_MPI and
// TRAINER_HAVE_NCCL as the build found them.
#pragma once

#include "trainer.h"

#include <cstdint>

namespace trainer::capi {

[[nodiscard]] constexpr std::uint32_t built_features() noexcept {
  std::uint32_t features = 0;
#if defined(TRAINER_HAVE_MPI) && TRAINER_HAVE_MPI
  features |= TRAINER_FEATURE_MPI;
#endif
#if defined(TRAINER_HAVE_NCCL) && TRAINER_HAVE_NCCL
  features |= TRAINER_FEATURE_NCCL;
#endif
  return features;
}

}  // namespace trainer::capi
