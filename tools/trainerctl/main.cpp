// SPDX-License-Identifier: Apache-2.0
#include "trainer.h"

#include <cstdio>

int main() {
  std::printf("trainerctl %s\n", TRAINER_VERSION_STRING);
  return 0;
}
