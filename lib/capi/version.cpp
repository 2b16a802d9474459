// SPDX-License-Identifier: Apache-2.0
#include "trainer.h"

extern "C" {

uint32_t trainer_version_number(void) { return TRAINER_VERSION_NUMBER; }

const char* trainer_version_string(void) { return TRAINER_VERSION_STRING; }

}  // extern "C"
