// SPDX-License-Identifier: Apache-2.0
#include "helper/helper.hpp"

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "init") == 0) {
    return trainer::local::helper::pod_init_main(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "rsh") == 0) {
    return trainer::local::helper::rsh_main(argc - 2, argv + 2);
  }
  std::fputs(
      "usage: trainer-pod init SPEC.json | trainer-pod rsh --run-dir=DIR [ssh options] HOST CMD\n"
      "Internal helper of libtrainer's local executor (docs/local.md).\n",
      stderr);
  return 2;
}
