// SPDX-License-Identifier: Apache-2.0
#include "trainer.h"

#include "commands.hpp"

#include <cstdio>

namespace trainerctl {

namespace {

int run_version(const Parsed& /*args*/) {
  std::printf("trainerctl %s (libtrainer %s", TRAINER_VERSION_STRING, trainer_version_string());
  const auto features = trainer_features();
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
