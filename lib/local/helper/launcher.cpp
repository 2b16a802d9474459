// SPDX-License-Identifier: Apache-2.0
//
// `trainer-pod launch`: forks the pod inits the executor asks for (launch_protocol.hpp), so a
// pod costs a fork of this small single-threaded program instead of an exec of the helper and
// its libc start (docs/local.md, "Performance"). Each init is cloned with CLONE_PARENT: it is
// the executor's child, exactly as when the executor starts the helper itself
// (pod_spawn.cpp), and with the pod's namespaces in the same clone it is PID 1 of its pod from
// its first instruction. Every signal stays blocked, as the executor started this process; the
// init sets its own mask first thing.
#include "fd_passing.hpp"
#include "helper/helper.hpp"
#include "launch_protocol.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace trainer::local::helper {
namespace {

constexpr int kSocket = 0;

// Sends the answer to one request, with the init's pidfd when there is one.
void reply(pid_t pid, int error, int pidfd) {
  launch::Reply answer;
  answer.pid = static_cast<std::int32_t>(pid);
  answer.error = error;
  // The executor waits for this answer; if it is gone, the next receive ends the loop.
  (void)fd_passing::send_with_fds(kSocket, &answer, sizeof answer, &pidfd, pidfd >= 0 ? 1 : 0);
}

// The command line this process shows (/proc/PID/cmdline, ps): the memory of its arguments,
// which the executor padded (launch_protocol.hpp) so that an init's own fits.
struct Title {
  char* begin = nullptr;
  std::size_t size = 0;
};

// Shows `argv` as this process's command line, cut to the room there is: a pod's PID 1 reads
// as `trainer-pod init SPEC`, as when the executor starts it directly.
void set_title(const Title& title, const std::vector<char*>& argv) {
  if (title.size == 0) return;
  std::size_t at = 0;
  for (const char* arg : argv) {
    if (arg == nullptr) break;
    const std::size_t len = std::min(std::strlen(arg) + 1, title.size - at);
    std::memcpy(title.begin + at, arg, len);
    at += len;
  }
  std::memset(title.begin + at, 0, title.size - at);
  title.begin[title.size - 1] = '\0';
}

// In the forked init: the process the executor would have started, minus the exec.
[[noreturn]] void become_init(const launch::RequestHeader& header, const std::vector<int>& fds,
                              std::vector<char*>& argv, const Title& title) {
  set_title(title, argv);
  int given[4] = {-1, -1, -1, -1};
  std::size_t next = 0;
  for (int i = 0; i < 4; ++i) {
    if ((header.fd_mask & (1U << i)) != 0) given[i] = fds[next++];
  }
  launch::enter_pod_process(header.death_signal, given);
  std::exit(helper_main(static_cast<int>(argv.size()) - 1, argv.data()));
}

}  // namespace

int launcher_main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fputs("usage: trainer-pod launch [PADDING] (descriptor 0: the executor's socket)\n",
               stderr);
    return 2;
  }
  // The arguments' memory is contiguous, argv[0] first: all of it is the room for a title.
  Title title;
  title.begin = argv[0];
  title.size = static_cast<std::size_t>(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0]);
  if (send(kSocket, launch::kHello, sizeof launch::kHello - 1, MSG_NOSIGNAL) < 0) return 1;
  std::vector<char> buffer(launch::kMaxRequest + 1);
  for (;;) {
    auto got = fd_passing::receive_with_fds(kSocket, buffer.data(), launch::kMaxRequest);
    // The executor closed its end (or is gone): nothing more to start.
    if (got.bytes <= 0) return 0;
    const std::vector<int>& fds = got.fds;
    // A malformed request is the executor's bug: refuse it instead of guessing.
    launch::RequestHeader header;
    const auto size = static_cast<std::size_t>(got.bytes);
    bool ok = !got.truncated && size >= sizeof header;
    std::vector<char*> init_argv;
    if (ok) {
      std::memcpy(&header, buffer.data(), sizeof header);
      ok = header.fd_mask < 16U &&
           static_cast<std::size_t>(__builtin_popcount(header.fd_mask)) == fds.size();
      buffer[size] = '\0';
      for (std::size_t at = sizeof header; ok && init_argv.size() < header.argc && at < size;) {
        init_argv.push_back(buffer.data() + at);
        at += std::strlen(buffer.data() + at) + 1;
      }
      ok = ok && header.argc >= 1 && init_argv.size() == header.argc;
      init_argv.push_back(nullptr);
    }
    if (!ok) {
      fd_passing::close_all(fds);
      reply(-1, EINVAL, -1);
      continue;
    }

    int flags = CLONE_PARENT | CLONE_PIDFD;
    if (header.namespaces != 0) flags |= CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID;
    int pidfd = -1;
    // A fork with clone's flags (no new stack: the child returns here on its copy of this one).
    const long pid = syscall(SYS_clone, flags, nullptr, &pidfd, nullptr, 0L);
    if (pid == 0) become_init(header, fds, init_argv, title);
    const int error = pid < 0 ? errno : 0;
    fd_passing::close_all(fds);
    reply(pid < 0 ? -1 : static_cast<pid_t>(pid), error, pidfd);
    if (pidfd >= 0) close(pidfd);
  }
}

}  // namespace trainer::local::helper
