// SPDX-License-Identifier: Apache-2.0
// Catch2 2.x main for the unit test binaries (Conan's catch2 2.x has no WithMain by default).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
