// SPDX-License-Identifier: Apache-2.0
#include "helper/helper.hpp"
#include "launch_protocol.hpp"

#include <cstdio>
#include <cstring>

// LeakSanitizer's exit-time check stops the process's threads with ptrace from a helper task,
// which fails for PID 1 of a PID namespace (every pod's init): in a sanitizer build the pod
// would end with "LeakSanitizer has encountered a fatal error" instead of its program's exit
// status. AddressSanitizer's other checks stay on; this hook only exists in sanitizer builds'
// eyes (an ordinary build never calls it).
// Default visibility: the sanitizer runtime (a shared library) looks the hook up dynamically.
extern "C" __attribute__((visibility("default"))) int __lsan_is_turned_off() {  // NOLINT
  return 1;
}

namespace trainer::local::helper {

int helper_main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "init") == 0) return pod_init_main(argc - 2, argv + 2);
  if (argc >= 2 && std::strcmp(argv[1], "rsh") == 0) return rsh_main(argc - 2, argv + 2);
  if (argc >= 2 && std::strcmp(argv[1], launch::kSubcommand) == 0) {
    return launcher_main(argc, argv);
  }
  std::fputs(
      "usage: trainer-pod init SPEC.json | trainer-pod rsh --run-dir=DIR [ssh options] HOST CMD\n"
      "       | trainer-pod launch\n"
      "Internal helper of libtrainer's local executor (docs/local.md).\n",
      stderr);
  return 2;
}

}  // namespace trainer::local::helper

int main(int argc, char** argv) {
  return trainer::local::helper::helper_main(argc, argv);
}
