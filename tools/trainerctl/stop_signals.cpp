// SPDX-License-Identifier: Apache-2.0
#include "stop_signals.hpp"

#include "output.hpp"

#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <system_error>
#include <utility>

namespace trainerctl {
namespace {

// How long after the first signal the same signal from the same sender counts as that first
// signal delivered twice (to the process and to its process group) rather than as a second.
constexpr std::chrono::seconds kEchoWindow{1};

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

void StopSignals::block() {
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

StopSignals::StopSignals(std::function<void()> on_stop) : on_stop_(std::move(on_stop)) {
  try {
    thread_ = std::thread([this] { wait_loop(); });
  } catch (const std::system_error& e) {
    // Out of processes (threads count): the command goes on, but a signal can no longer ask
    // for a graceful stop, so it gets its default action again rather than being ignored.
    const sigset_t set = stop_set();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    print_warning("no thread for SIGINT/SIGTERM (" + e.code().message() +
                  "): a signal ends trainerctl at once");
  }
}

StopSignals::~StopSignals() {
  if (!thread_.joinable()) return;
  done_.store(true);
  // Wakes sigwait: a SIGTERM aimed at that thread, which it takes as the end, not a stop.
  pthread_kill(thread_.native_handle(), SIGTERM);
  thread_.join();
}

void StopSignals::wait_loop() {
  const sigset_t set = stop_set();
  siginfo_t first{};
  std::chrono::steady_clock::time_point first_at;
  for (;;) {
    siginfo_t info{};
    const int signal = sigwaitinfo(&set, &info);
    if (signal < 0) continue;
    if (done_.load()) return;
    const auto now = std::chrono::steady_clock::now();
    if (signalled_.load()) {
      // A sender that signals the process and then its process group (timeout(1) does) reaches
      // it twice: the same signal from the same sender at once is that first signal again, not
      // a second one. A terminal's Ctrl-C (SI_KERNEL) reaches each process once.
      const bool echo = info.si_code == SI_USER && first.si_code == SI_USER &&
                        info.si_signo == first.si_signo && info.si_pid == first.si_pid &&
                        now - first_at < kEchoWindow;
      if (echo) continue;
      // Second signal: the graceful stop takes too long for whoever sends them.
      static const char kText[] = "second signal: exiting without waiting for the stop\n";
      (void)!write(STDERR_FILENO, kText, sizeof kText - 1);
      _exit(1);
    }
    signalled_.store(true);
    first = info;
    first_at = now;
    std::fprintf(stderr, "received %s: stopping (in-flight reconciles finish)\n",
                 signal == SIGINT ? "SIGINT" : "SIGTERM");
    std::fflush(stderr);
    on_stop_();
  }
}

}  // namespace trainerctl
