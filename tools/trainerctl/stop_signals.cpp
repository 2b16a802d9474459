// SPDX-License-Identifier: Apache-2.0
#include "stop_signals.hpp"

#include <unistd.h>
#include <csignal>
#include <cstdio>
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
  thread_ = std::thread([this] { wait_loop(); });
}

StopSignals::~StopSignals() {
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
