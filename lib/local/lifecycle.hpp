// SPDX-License-Identifier: Apache-2.0
//
// The controllers' bookkeeping without processes: pod outcomes -> Job (backoffLimit,
// activeDeadlineSeconds) -> JobSet (dependsOn, successPolicy, failurePolicy with maxRestarts
// and rules, suspend) -> TrainJob conditions (Complete/Failed copied from the JobSet,
// DeadlineExceeded). The supervisor feeds it events and carries out the actions it returns.
#pragma once

#include "local/plan.hpp"

#include "trainer/local.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace trainer::local::detail {

using Clock = std::chrono::system_clock;

enum class PodPhase { kPending, kStarting, kRunning, kSucceeded, kFailed };

struct PodState {
  PodPhase phase = PodPhase::kPending;
  int attempt = 0;              ///< pods created for this slot over the whole run (names end in it)
  bool alive = false;           ///< a process exists (starting, running or being stopped)
  bool stop_requested = false;  ///< the supervisor was told to stop it
  std::optional<int> exit_code;
  std::string name;  ///< current pod name
  long pid = 0;      ///< set by the supervisor, reported only
  std::string log;   ///< set by the supervisor, reported only
  /// Why the pod's container could not start (setup or exec failure), when it could not.
  std::string start_error;
  /// The container's termination, as the kubelet reports it: `Completed`, `Error` (non-zero
  /// exit) or `StartError` (never started), with a message naming the cause.
  std::string reason, message;
};

struct JobState {
  enum class Phase { kActive, kSucceeded, kFailed } phase = Phase::kActive;
  std::int64_t failed_pods = 0;
  std::string reason;  ///< BackoffLimitExceeded, DeadlineExceeded
  std::optional<Clock::time_point> start;
};

struct Condition {
  std::string type, status, reason, message;
  Clock::time_point time;
};

class Lifecycle {
 public:
  Lifecycle(Plan plan, Clock::time_point now);

  struct Actions {
    std::vector<std::size_t> start;  ///< pods to create now (PodState::name is set)
    std::vector<std::size_t> stop;   ///< pods to stop (SIGTERM, grace, SIGKILL)
  };
  /// Advances the state machine (deadlines, dependencies, restarts) and says what to do.
  [[nodiscard]] Actions step(Clock::time_point now);

  /// The pod's process is up and its setup done (Ready, for `dependsOn: Ready`).
  void pod_running(std::size_t pod, Clock::time_point now);
  /// The pod's process is gone with this exit code (128 + signal when killed).
  void pod_exited(std::size_t pod, int exit_code, Clock::time_point now);
  /// The pod's process reported that its container cannot start (its exit follows).
  void pod_setup_failed(std::size_t pod, std::string message);
  /// The pod could not be created at all (counts as a failed pod).
  void pod_start_failed(std::size_t pod, const std::string& message, Clock::time_point now);
  /// Fails the run with reason `Cancelled`, unless it is already finished.
  void cancel(Clock::time_point now);
  /// Fails the run with reason `StartFailed` and `message` (no pod was created: the executor
  /// itself could not start), unless it is already finished.
  void fail_to_start(const std::string& message, Clock::time_point now);

  /// The TrainJob has a terminal condition and no pod process is left.
  [[nodiscard]] bool finished() const;
  [[nodiscard]] Phase phase() const;
  /// When `step` must run again even without events (the earliest deadline), if any.
  [[nodiscard]] std::optional<Clock::time_point> next_deadline() const;
  [[nodiscard]] boost::json::value status(Clock::time_point now) const;

  [[nodiscard]] const Plan& plan() const { return plan_; }
  [[nodiscard]] PodState& pod(std::size_t i) { return pods_[i]; }
  [[nodiscard]] const PodState& pod(std::size_t i) const { return pods_[i]; }
  [[nodiscard]] std::int64_t restarts() const { return restarts_; }

 private:
  void finish(const std::string& type, const std::string& reason, const std::string& message,
              Clock::time_point now);
  void update_jobs(Clock::time_point now);
  void apply_policies(Clock::time_point now);
  [[nodiscard]] bool replicated_job_is(std::size_t r, const std::string& status) const;
  [[nodiscard]] bool terminal() const;

  Plan plan_;
  std::vector<PodState> pods_;
  std::vector<JobState> jobs_;
  std::vector<Condition> conditions_;
  Clock::time_point created_;
  std::int64_t restarts_ = 0;
  std::int64_t restarts_towards_max_ = 0;
  bool restarting_ = false;
  bool started_any_ = false;
  std::optional<Clock::time_point> completion_;
};

/// RFC 3339 UTC with seconds, as Kubernetes writes `metav1.Time`.
[[nodiscard]] std::string rfc3339(Clock::time_point t);

}  // namespace trainer::local::detail
