// SPDX-License-Identifier: Apache-2.0
// Version and feature queries: constants, no state, cannot fail.
#include "capi/capi.hpp"
#include "capi/features.hpp"

extern "C" {

uint32_t trainer_version_number(void) {
  return trainer::capi::guard_value<uint32_t>(0, [] { return uint32_t{TRAINER_VERSION_NUMBER}; });
}

const char* trainer_version_string(void) {
  return trainer::capi::guard_value<const char*>(TRAINER_VERSION_STRING,
                                                 [] { return TRAINER_VERSION_STRING; });
}

uint32_t trainer_features(void) {
  return trainer::capi::guard_value<uint32_t>(0, [] { return trainer::capi::built_features(); });
}

}  // extern "C"
