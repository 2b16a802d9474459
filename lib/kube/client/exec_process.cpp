// SPDX-License-Identifier: Apache-2.0
#include "kube/client/exec_process.hpp"

#include "kube/client/cancel.hpp"
#include "kube/client/config_files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <thread>

namespace trainer::kube::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Both ends close-on-exec, so no other plugin run or child of the embedding process inherits them.
struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      read = fds[0];
      write = fds[1];
    }
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  [[nodiscard]] bool ok() const { return read >= 0; }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

// Ends the process (and its group when it leads one) and reaps it; SIGKILL cannot be caught,
// so the wait is bounded.
void kill_and_reap(pid_t pid, bool own_group) {
  ::kill(own_group ? -pid : pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return -1;  // ended by a signal: Go's ExitCode() is -1, and client-go prints that
}

}  // namespace

Result<ProcessResult> run_process(const ProcessSpec& spec, const CancelToken& cancel) {
  if (cancel.cancelled()) return fail(ErrorCode::kCancelled, "exec: cancelled");
  Pipe out;
  Pipe wake;
  if (!out.ok() || !wake.ok()) return fail(ErrorCode::kIo, "exec: pipe: " + errno_text(errno));
  ::fcntl(wake.write, F_SETFL, O_NONBLOCK);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  if (!spec.interactive) {
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  // A group of its own lets a timeout kill what the plugin started too; an interactive plugin
  // stays in the terminal's foreground group so it can read the terminal.
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (!spec.interactive) {
    flags = static_cast<short>(flags | POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(spec.program.c_str()));
  for (const auto& a : spec.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  pid_t pid = -1;
  const bool search_path = spec.program.find('/') == std::string::npos;
  const int rc =
      search_path
          ? ::posix_spawnp(&pid, spec.program.c_str(), &actions, &attr, argv.data(), envp.data())
          : ::posix_spawn(&pid, spec.program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc == ENOENT) {
    return fail(ErrorCode::kNotFound, "exec: executable " + spec.program + " not found");
  }
  if (rc != 0) {
    return fail(ErrorCode::kIo, "exec: fork/exec " + spec.program + ": " + errno_text(rc));
  }
  out.close_write();
  const bool own_group = !spec.interactive;

  // cancel() writes to the wake pipe, so the wait below returns at once instead of polling.
  const int wake_fd = wake.write;
  CancelRegistration registration(cancel, [wake_fd] {
    const char byte = 1;
    [[maybe_unused]] const auto n = ::write(wake_fd, &byte, 1);
  });

  const auto deadline = Clock::now() + spec.timeout;
  ProcessResult result;
  char buf[8192];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      kill_and_reap(pid, own_group);
      return fail(ErrorCode::kTimeout, "timeout");
    }
    pollfd fds[2] = {{out.read, POLLIN, 0}, {wake.read, POLLIN, 0}};
    const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      kill_and_reap(pid, own_group);
      return fail(ErrorCode::kIo, "exec: poll: " + errno_text(err));
    }
    if (fds[1].revents != 0 || cancel.cancelled()) {
      kill_and_reap(pid, own_group);
      return fail(ErrorCode::kCancelled, "exec: cancelled");
    }
    if (fds[0].revents == 0) continue;
    const ssize_t got = ::read(out.read, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) break;  // end of stdout (or an error reading it): wait for the exit
    if (result.stdout_text.size() + static_cast<std::size_t>(got) > spec.max_stdout) {
      kill_and_reap(pid, own_group);
      return fail(ErrorCode::kLimit, "wrote more than " + std::to_string(spec.max_stdout) +
                                         " bytes to standard output");
    }
    result.stdout_text.append(buf, static_cast<std::size_t>(got));
  }
  // stdout is closed; the process normally exits right away. Still bounded by the deadline.
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      result.exit_code = decode_status(status);
      break;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;  // ECHILD: the embedding process reaps children itself (SIGCHLD ignored)
    if (cancel.cancelled()) {
      kill_and_reap(pid, own_group);
      return fail(ErrorCode::kCancelled, "exec: cancelled");
    }
    if (Clock::now() >= deadline) {
      kill_and_reap(pid, own_group);
      return fail(ErrorCode::kTimeout, "timeout");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Like client-go, what the plugin left running after it exited is left alone (an agent it
  // started for later runs, say); only a plugin that overruns is killed with its group.
  return result;
}

}  // namespace trainer::kube::detail
