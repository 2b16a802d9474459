// SPDX-License-Identifier: Apache-2.0
#include "local/pod_spawn.hpp"

#include "local/launch_protocol.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char** environ;

namespace trainer::local::detail {
namespace {

// The child's stack, on the parent's (CLONE_VFORK holds the parent until the exec). The child
// makes a handful of system calls, nothing more.
constexpr std::size_t kChildStack = 16 * 1024;

// Runs in the child, which shares the executor's memory until its exec: raw system calls only
// (no allocation, no lock, no libc state, nothing a sanitizer's runtime would record for the
// parent's thread), and nothing written but the child's own stack.
__attribute__((no_sanitize("address", "thread", "undefined"), noinline)) int child_main(void* arg) {
  const auto& request = *static_cast<const SpawnRequest*>(arg);
  launch::enter_pod_process(request.death_signal, request.fds);
  syscall(SYS_execve, request.path, request.argv, environ);
  syscall(SYS_exit_group, 125);
  return 125;
}

}  // namespace

Result<Spawned> spawn_helper(const SpawnRequest& request) {
  alignas(64) char stack[kChildStack];
  // Every signal blocked across the clone: no handler of this process runs in the child, which
  // shares its memory, and the helper inherits the mask through its exec.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  int flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD;
  if (request.namespaces) flags |= CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID;
  int pidfd = -1;
  const pid_t pid =
      clone(child_main, stack + sizeof stack, flags, const_cast<SpawnRequest*>(&request), &pidfd);
  const int err = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) return fail(ErrorCode::kIo, std::string("fork: ") + std::strerror(err));
  return Spawned{pid, pidfd};
}

}  // namespace trainer::local::detail
