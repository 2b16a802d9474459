// SPDX-License-Identifier: Apache-2.0
// C++ consumer: the C ABI from C++ plus the static C++ core (whose headers bring Boost.JSON and
// tl::expected, the transitive headers the recipe declares).
#include <trainer.h>
#include <trainer/error.hpp>

#include <iostream>

int main() {
  const auto err = trainer::Error::invalid(
      {trainer::field_invalid("spec.trainer.numNodes", -1, "must be greater than or equal to 0")});
  if (err.message !=
      "spec.trainer.numNodes: Invalid value: -1: must be greater than or equal to 0") {
    std::cerr << "unexpected: " << err.message << "\n";
    return 1;
  }
  std::cout << "test_package_cpp: libtrainer " << trainer_version_string() << "\n";
  return 0;
}
