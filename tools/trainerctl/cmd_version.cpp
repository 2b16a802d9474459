// SPDX-License-Identifier: Apache-2.0
#include "capi/features.hpp"
#include "commands.hpp"
#include "trainer.h"

#include <cstdio>

namespace trainerctl {

namespace {

int run_version(const Parsed& /*args*/) {
  // trainerctl holds the core it was built with: its version and backends are this build's.
  std::printf("trainerctl %s (libtrainer %s", TRAINER_VERSION_STRING, TRAINER_VERSION_STRING);
  constexpr auto features = trainer::capi::built_features();
  std::printf("; mpi: %s; nccl: %s)\n", (features & TRAINER_FEATURE_MPI) != 0U ? "yes" : "no",
              (features & TRAINER_FEATURE_NCCL) != 0U ? "yes" : "no");
  return kExitOk;
}

}  // namespace

const Command& version_command() {
  static const Command command{"version",
                               "print the trainerctl and libtrainer versions",
                               "Prints the versions of trainerctl and libtrainer and whether MPI "
                               "and NCCL are built in.",
                               {},
                               {},
                               run_version};
  return command;
}

}  // namespace trainerctl
