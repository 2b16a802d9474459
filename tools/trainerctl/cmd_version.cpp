// SPDX-License-Identifier: Apache-2.0
#include "trainer.h"

#include "commands.hpp"

#include <cstdio>

namespace trainerctl {

int cmd_version(const Args& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "error: version takes no arguments\n");
    return kExitUsage;
  }
  std::printf("trainerctl %s (libtrainer %s", TRAINER_VERSION_STRING, trainer_version_string());
  const auto features = trainer_features();
  std::printf("; mpi: %s; nccl: %s)\n", (features & TRAINER_FEATURE_MPI) != 0U ? "yes" : "no",
              (features & TRAINER_FEATURE_NCCL) != 0U ? "yes" : "no");
  return kExitOk;
}

}  // namespace trainerctl
