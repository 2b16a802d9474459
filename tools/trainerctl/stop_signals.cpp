// SPDX-License-Identifier: Apache-2.0
#include "stop_signals.hpp"

#include "output.hpp"

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <system_error>
#include <utility>

namespace trainerctl {
namespace {

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
  for (;;) {
    int signal = 0;
    if (sigwait(&set, &signal) != 0) continue;
    if (done_.load()) return;
    if (signalled_.exchange(true)) {
      // Second signal: the graceful stop takes too long for whoever sends them.
      static const char kText[] = "second signal: exiting without waiting for the stop\n";
      (void)!write(STDERR_FILENO, kText, sizeof kText - 1);
      _exit(1);
    }
    std::fprintf(stderr, "received %s: stopping (in-flight reconciles finish)\n",
                 signal == SIGINT ? "SIGINT" : "SIGTERM");
    std::fflush(stderr);
    on_stop_();
  }
}

}  // namespace trainerctl
