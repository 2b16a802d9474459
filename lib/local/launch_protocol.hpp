// SPDX-License-Identifier: Apache-2.0
//
// `trainer-pod launch`: the one helper process per executor process that forks every pod's
// init (pod_launcher.cpp asks, helper/launcher.cpp serves). Shared by the
// executor and the helper; the two are always built together, so the format has no version.
#pragma once

#include <cstddef>
#include <cstdint>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainer::local::launch {

/// The helper's subcommand; its descriptor 0 is its end of a SOCK_SEQPACKET socket pair. Its
/// one argument after it, kTitleRoom spaces, only makes room: each init the launcher forks
/// writes its own argv there, so `ps` and a pod's /proc/1/cmdline show `trainer-pod init SPEC`.
inline constexpr const char* kSubcommand = "launch";
inline constexpr std::size_t kTitleRoom = 4096;

/// What the launcher sends once, first, when it is ready to serve.
inline constexpr char kHello[] = "trainer-pod launch ready";

/// One request, one message: this header, then `argc` NUL-terminated strings (the helper's
/// argv, argv[0] included), with the descriptors named by `fd_mask` (bit i: descriptor i of the
/// pod's init) attached in that order as SCM_RIGHTS.
struct RequestHeader {
  std::uint32_t namespaces = 0;  ///< new mount, UTS and PID namespaces
  std::int32_t death_signal = 0;
  std::uint32_t fd_mask = 0;
  std::uint32_t argc = 0;
};

/// The answer: `pid` > 0 and the init's pidfd attached as SCM_RIGHTS, or `pid` -1 and `error`
/// the clone's errno.
struct Reply {
  std::int32_t pid = -1;
  std::int32_t error = 0;
};

/// Largest request (the argv is the helper, a subcommand and a spec path).
inline constexpr std::size_t kMaxRequest = 16 * 1024;

/// Turns the calling child into a pod's init before it runs: leads a process group of its own
/// (Ctrl-C reaches the executor only), arms `death_signal` for when its parent thread ends, and
/// makes `given[i]` descriptor i (0 to 3), closing i where `given[i]` is negative, then closes
/// every descriptor from 4 on. Raw system calls only: it runs in a child that shares its
/// parent's memory until the exec (pod_spawn.cpp) as well as in a forked one (launcher.cpp).
/// Sources below 4 are moved above first, so no dup3 overwrites a later one's source (and no
/// source is its own target, whose close-on-exec flag dup3 would not clear).
__attribute__((no_sanitize("address", "thread", "undefined"))) inline void enter_pod_process(
    int death_signal, const int (&given)[4]) noexcept {
  syscall(SYS_setpgid, 0, 0);
  syscall(SYS_prctl, PR_SET_PDEATHSIG, death_signal, 0, 0, 0);
  int fds[4];
  for (int i = 0; i < 4; ++i) {
    fds[i] = given[i];
    if (fds[i] >= 0 && fds[i] < 4)
      fds[i] = static_cast<int>(syscall(SYS_fcntl, fds[i], F_DUPFD, 4));
  }
  for (int i = 0; i < 4; ++i) {
    if (fds[i] < 0) {
      syscall(SYS_close, i);
    } else {
      syscall(SYS_dup3, fds[i], i, 0);
    }
  }
  syscall(SYS_close_range, 4U, ~0U, 0U);
}

}  // namespace trainer::local::launch
