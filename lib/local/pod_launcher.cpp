// SPDX-License-Identifier: Apache-2.0
#include "local/pod_launcher.hpp"

#include "local/fd_passing.hpp"
#include "local/launch_protocol.hpp"

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

namespace trainer::local::detail {
namespace {

// How long the launcher may take to say it is ready, or to answer a request (a fork): far
// above anything seen, low enough that a stuck launcher fails a pod instead of hanging a run.
constexpr int kAnswerSeconds = 10;
// Requests sent before their answers are read: the socket's buffer holds far more.
constexpr std::size_t kGroup = 16;

// The process's launcher. Its owner thread starts it and then waits for it, and never ends:
// the inits it forks are armed with PR_SET_PDEATHSIG toward that thread, and a thread that
// ended would take every running pod with it. Intentionally leaked (the owner thread uses it
// until the process exits).
struct Launcher {
  enum class Phase { kNone, kStarting, kRunning };
  std::mutex mutex;  // one batch of requests at a time; guards everything below
  std::condition_variable changed;
  bool owner_running = false;
  Phase phase = Phase::kNone;
  std::string path;         // the helper the launcher is (or is being started from)
  std::string failed_path;  // a helper that could not serve as launcher: asked no more
  int socket = -1;          // our end while kRunning
  pid_t pid = -1;
};

Launcher* the_launcher = nullptr;

// A fork of a process that had a launcher has neither its owner thread nor the right to use
// its launcher (whose inits would be the other process's children): it starts afresh.
void forget_in_child() {
  if (the_launcher != nullptr && the_launcher->socket >= 0) close(the_launcher->socket);
  the_launcher = new Launcher();
}

Launcher& launcher() {
  static std::once_flag once;
  std::call_once(once, [] {
    the_launcher = new Launcher();
    pthread_atfork(nullptr, nullptr, forget_in_child);
  });
  return *the_launcher;
}

void set_timeout(int fd) {
  timeval limit{};
  limit.tv_sec = kAnswerSeconds;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
}

// What start_launcher could do.
enum class Started { kRunning, kOutOfResources, kUnusableHelper };

// Starts a launcher from `path`: its pid and our socket end (kRunning), or nothing left open,
// either because this process is out of processes, descriptors or memory now (a later run tries
// again) or because the helper cannot serve (it is not asked again).
Started start_launcher(const std::string& path, pid_t& pid_out, int& socket_out) {
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
    return Started::kOutOfResources;
  }
  std::string program = path;
  std::string subcommand = launch::kSubcommand;
  std::string room(launch::kTitleRoom, ' ');
  char* argv[] = {program.data(), subcommand.data(), room.data(), nullptr};
  SpawnRequest request;
  request.path = program.c_str();
  request.argv = argv;
  request.death_signal = SIGKILL;
  request.fds[0] = ends[1];
  auto spawned = spawn_helper(request);
  close(ends[1]);
  if (!spawned) {
    close(ends[0]);
    return Started::kOutOfResources;
  }
  close(spawned->pidfd);
  // Ready only once it says so: a helper that is missing, cannot exec or is an older build
  // without `launch` ends instead, and its pods are then started one exec each.
  set_timeout(ends[0]);
  char hello[sizeof launch::kHello] = {};
  const ssize_t n = recv(ends[0], hello, sizeof hello, 0);
  if (n != static_cast<ssize_t>(sizeof launch::kHello - 1) ||
      std::memcmp(hello, launch::kHello, sizeof launch::kHello - 1) != 0) {
    close(ends[0]);
    kill(spawned->pid, SIGKILL);
    while (waitpid(spawned->pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return Started::kUnusableHelper;
  }
  socket_out = ends[0];
  pid_out = spawned->pid;
  return Started::kRunning;
}

[[noreturn]] void own_launchers(Launcher& state) {
  // No signal of the process is handled here: the thread only starts and waits.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, nullptr);
  for (;;) {
    std::unique_lock lock(state.mutex);
    state.changed.wait(lock, [&state] { return state.phase == Launcher::Phase::kStarting; });
    const std::string path = state.path;
    lock.unlock();
    int socket = -1;
    pid_t pid = -1;
    const Started started = start_launcher(path, pid, socket);
    lock.lock();
    state.socket = socket;
    state.pid = pid;
    state.phase = pid < 0 ? Launcher::Phase::kNone : Launcher::Phase::kRunning;
    if (started == Started::kUnusableHelper) state.failed_path = path;
    state.changed.notify_all();
    lock.unlock();
    if (pid < 0) continue;
    // Reaps it whenever it ends (killed; it never ends on its own while our end is open).
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    lock.lock();
    if (state.pid == pid) {
      close(state.socket);
      state.socket = -1;
      state.pid = -1;
      state.phase = Launcher::Phase::kNone;
    }
  }
}

// Asks the owner thread to start a launcher from `path` unless one runs, is being started or
// could not start from it before. Called with the lock held.
void want_launcher(Launcher& state, const std::string& path) {
  if (state.phase != Launcher::Phase::kNone || state.failed_path == path) return;
  if (!state.owner_running) {
    try {
      std::thread(own_launchers, std::ref(state)).detach();
    } catch (const std::system_error&) {
      return;  // out of threads: this batch starts its pods directly, a later one tries again
    }
    state.owner_running = true;
  }
  state.path = path;
  state.phase = Launcher::Phase::kStarting;
  state.changed.notify_all();
}

// Sends one request; false when the launcher did not take it (nothing was started).
bool send_request(int socket, const SpawnRequest& request) {
  launch::RequestHeader header;
  header.namespaces = request.namespaces ? 1U : 0U;
  header.death_signal = request.death_signal;
  std::string payload(sizeof header, '\0');
  int fds[4];
  std::size_t count = 0;
  for (int i = 0; i < 4; ++i) {
    if (request.fds[i] >= 0) {
      header.fd_mask |= 1U << i;
      fds[count++] = request.fds[i];
    }
  }
  for (char* const* arg = request.argv; *arg != nullptr; ++arg) {
    payload.append(*arg).push_back('\0');
    ++header.argc;
  }
  std::memcpy(payload.data(), &header, sizeof header);
  if (payload.size() > launch::kMaxRequest) return false;
  const ssize_t n = fd_passing::send_with_fds(socket, payload.data(), payload.size(), fds, count);
  return n == static_cast<ssize_t>(payload.size());
}

// One answer, or nothing when none came (the launcher ended or timed out).
std::optional<Result<Spawned>> receive_answer(int socket) {
  launch::Reply answer;
  auto got = fd_passing::receive_with_fds(socket, &answer, sizeof answer);
  const int pidfd = got.fds.size() == 1 ? got.fds.front() : -1;
  // An answer that is not one (or a started init without its pidfd): nothing more it says can
  // be trusted.
  if (got.bytes != static_cast<ssize_t>(sizeof answer) || got.truncated ||
      (answer.pid > 0 && pidfd < 0)) {
    fd_passing::close_all(got.fds);
    return std::nullopt;
  }
  if (answer.pid <= 0) {
    fd_passing::close_all(got.fds);
    return Result<Spawned>(
        fail(ErrorCode::kIo, std::string("fork: ") + std::strerror(answer.error)));
  }
  return Result<Spawned>(Spawned{static_cast<pid_t>(answer.pid), pidfd});
}

}  // namespace

void prepare_pod_launcher(const std::string& helper) {
  Launcher& state = launcher();
  const std::lock_guard lock(state.mutex);
  want_launcher(state, helper);
}

std::vector<Result<Spawned>> launch_pod_inits(const std::vector<SpawnRequest>& requests) {
  std::vector<Result<Spawned>> out;
  out.reserve(requests.size());
  if (requests.empty()) return out;
  Launcher& state = launcher();
  std::unique_lock lock(state.mutex);
  const std::string path = requests.front().path;
  want_launcher(state, path);
  state.changed.wait(lock, [&state] { return state.phase != Launcher::Phase::kStarting; });
  // Requests go out in groups and their answers come back in order: the launcher forks a
  // group's inits in one go instead of waking up for each.
  std::size_t next = 0;
  while (next < requests.size() && state.phase == Launcher::Phase::kRunning && state.path == path) {
    std::size_t sent = 0;
    while (sent < kGroup && next + sent < requests.size() &&
           send_request(state.socket, requests[next + sent])) {
      ++sent;
    }
    bool answered = true;
    for (std::size_t i = 0; i < sent; ++i) {
      auto answer = answered ? receive_answer(state.socket) : std::nullopt;
      answered = answer.has_value();
      out.push_back(answered ? std::move(*answer)
                             : fail(ErrorCode::kIo, "fork: the pod launcher gave no answer"));
    }
    next += sent;
    if (!answered) {
      // Later answers could no longer be matched to their requests: this launcher is done.
      kill(state.pid, SIGKILL);
      close(state.socket);
      state.socket = -1;
      state.pid = -1;
      state.phase = Launcher::Phase::kNone;
    }
    if (sent == 0) break;
  }
  lock.unlock();
  // What the launcher did not take (none runs, another helper, or it went away): one exec each.
  for (; next < requests.size(); ++next) out.push_back(spawn_helper(requests[next]));
  return out;
}

}  // namespace trainer::local::detail
