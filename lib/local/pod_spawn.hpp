// SPDX-License-Identifier: Apache-2.0
//
// Starting a pod's helper process from the (possibly multi-threaded) executor: `clone` with
// CLONE_VM | CLONE_VFORK, as posix_spawn does, so the executor's memory is never copied, and
// with the pod's namespaces in the same call, so the helper is PID 1 of its pod from its first
// instruction (docs/local.md, "Pods").
#pragma once

#include "trainer/error.hpp"

#include <sys/types.h>

namespace trainer::local::detail {

/// What `spawn_helper` starts.
struct SpawnRequest {
  const char* path = nullptr;   ///< the program (absolute)
  char* const* argv = nullptr;  ///< its arguments, argv[0] included, null-terminated
  /// New mount, UTS and PID namespaces (CAP_SYS_ADMIN): the program is PID 1 of its own.
  bool namespaces = false;
  /// PR_SET_PDEATHSIG, armed before the exec: sent when the calling thread ends.
  int death_signal = 0;
  /// Become descriptors 0 to 3 of the program (close-on-exec or not); every other descriptor
  /// of this process is closed in it.
  int fds[4] = {-1, -1, -1, -1};
};

/// The started process.
struct Spawned {
  pid_t pid = -1;
  int pidfd = -1;  ///< owned by the caller
};

/// Starts `request`: the program leads a process group of its own (Ctrl-C reaches the executor
/// only) and starts with every signal blocked (so no stop request is lost before it installs
/// its own handling; the pod helper sets its mask first thing). Returns once the child has
/// exec'd or failed to (then it exits 125, as a program that cannot start). An error is the
/// clone's (`fork: ...`: out of processes, memory or namespaces).
[[nodiscard]] Result<Spawned> spawn_helper(const SpawnRequest& request);

}  // namespace trainer::local::detail
