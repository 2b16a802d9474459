// SPDX-License-Identifier: Apache-2.0
#include "local/lifecycle.hpp"

#include "trainer/model.hpp"

#include "api/time_text.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <ctime>

namespace trainer::local::detail {
namespace json = boost::json;
namespace {

// JobSet v0.x condition reasons and messages (sigs.k8s.io/jobset pkg/constants).
constexpr const char* kCompletedReason = "AllJobsCompleted";
constexpr const char* kCompletedMessage = "jobset completed successfully";
constexpr const char* kFailedJobsReason = "FailedJobs";
constexpr const char* kFailedJobsMessage = "jobset failed due to one or more job failures";
constexpr const char* kMaxRestartsReason = "ReachedMaxRestarts";
constexpr const char* kMaxRestartsMessage = "jobset failed due to reaching max number of restarts";
constexpr const char* kFailJobSetReason = "FailJobSetFailurePolicyAction";
constexpr const char* kFailJobSetMessage = "applying FailJobSet failure policy action";

const char* pod_phase_name(PodPhase p) {
  switch (p) {
    case PodPhase::kPending:
    case PodPhase::kStarting: return "Pending";
    case PodPhase::kRunning: return "Running";
    case PodPhase::kSucceeded: return "Succeeded";
    case PodPhase::kFailed: return "Failed";
  }
  return "Unknown";
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

}  // namespace

std::string rfc3339(Clock::time_point t) {
  return trainer::detail::format_rfc3339(t);
}

Lifecycle::Lifecycle(Plan plan, Clock::time_point now)
    : plan_(std::move(plan)), pods_(plan_.pods.size()), jobs_(plan_.jobs.size()), created_(now) {
  for (std::size_t i = 0; i < pods_.size(); ++i) pods_[i].name = plan_.pods[i].hostname;
  if (plan_.suspend) {
    // Upstream's own constants for the TrainJob `Suspended` condition.
    conditions_.push_back({"Suspended", "True", "Suspended", "TrainJob is suspended", now});
  }
}

bool Lifecycle::terminal() const {
  return plan_.suspend || finishing_condition(conditions_) != nullptr;
}

bool Lifecycle::finished() const {
  return terminal() &&
         std::none_of(pods_.begin(), pods_.end(), [](const auto& p) { return p.alive; });
}

Phase Lifecycle::phase() const {
  if (plan_.suspend) return Phase::kSuspended;
  for (const auto& c : conditions_) {
    if (c.status != "True") continue;
    if (c.type == "Complete") return Phase::kComplete;
    if (c.type == "Failed") return Phase::kFailed;
  }
  return started_any_ ? Phase::kRunning : Phase::kPending;
}

void Lifecycle::finish(const std::string& type, const std::string& reason,
                       const std::string& message, Clock::time_point now) {
  if (terminal()) return;
  conditions_.push_back({type, "True", reason, message, now});
  completion_ = now;
}

void Lifecycle::cancel(Clock::time_point now) {
  finish("Failed", "Cancelled", "the local run was cancelled", now);
}

void Lifecycle::fail_to_start(const std::string& message, Clock::time_point now) {
  finish("Failed", "StartFailed", message, now);
}

void Lifecycle::pod_running(std::size_t pod, Clock::time_point now) {
  auto& p = pods_[pod];
  if (p.phase == PodPhase::kStarting) p.phase = PodPhase::kRunning;
  auto& job = jobs_[plan_.pods[pod].job];
  if (!job.start) job.start = now;
}

void Lifecycle::pod_setup_failed(std::size_t pod, std::string message) {
  pods_[pod].start_error = std::move(message);
}

void Lifecycle::pod_start_failed(std::size_t pod, const std::string& message,
                                 Clock::time_point now) {
  pods_[pod].alive = true;  // pod_exited clears it
  pods_[pod].start_error = message;
  pod_exited(pod, 127, now);
}

void Lifecycle::pod_exited(std::size_t pod, int exit_code, Clock::time_point now) {
  auto& p = pods_[pod];
  p.alive = false;
  p.exit_code = exit_code;
  if (!p.start_error.empty()) {
    p.reason = "StartError";
    p.message = p.start_error;
  } else if (exit_code == 0) {
    p.reason = "Completed";
    p.message.clear();
  } else {
    p.reason = "Error";
    p.message = exit_code > 128 ? "exit code " + std::to_string(exit_code) + " (signal " +
                                      std::to_string(exit_code - 128) + ")"
                                : "exit code " + std::to_string(exit_code);
  }
  const auto& pp = plan_.pods[pod];
  auto& job = jobs_[pp.job];
  if (!job.start) job.start = now;
  if (p.stop_requested) {
    // Stopped by us (restart, job or JobSet ended): not an outcome of its own.
    p.phase = exit_code == 0 ? PodPhase::kSucceeded : PodPhase::kFailed;
    return;
  }
  if (exit_code == 0) {
    p.phase = PodPhase::kSucceeded;
    const auto& jp = plan_.jobs[pp.job];
    const bool all = std::all_of(jp.pods.begin(), jp.pods.end(), [&](std::size_t i) {
      return pods_[i].phase == PodPhase::kSucceeded;
    });
    if (all && job.phase == JobState::Phase::kActive) job.phase = JobState::Phase::kSucceeded;
    return;
  }
  ++job.failed_pods;
  if (job.phase != JobState::Phase::kActive) {
    p.phase = PodPhase::kFailed;
    return;
  }
  if (job.failed_pods > plan_.jobs[pp.job].backoff_limit) {
    p.phase = PodPhase::kFailed;
    job.phase = JobState::Phase::kFailed;
    job.reason = "BackoffLimitExceeded";
  } else {
    p.phase = PodPhase::kPending;  // the Job controller creates a replacement pod
  }
}

void Lifecycle::update_jobs(Clock::time_point now) {
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    auto& job = jobs_[j];
    const auto& deadline = plan_.jobs[j].active_deadline_seconds;
    if (job.phase == JobState::Phase::kActive && job.start && deadline &&
        now >= *job.start + std::chrono::seconds(*deadline)) {
      job.phase = JobState::Phase::kFailed;
      job.reason = "DeadlineExceeded";
    }
  }
}

bool Lifecycle::replicated_job_is(std::size_t r, const std::string& status) const {
  for (const auto j : plan_.replicated_jobs[r].jobs) {
    if (status == "Complete") {
      if (jobs_[j].phase != JobState::Phase::kSucceeded) return false;
    } else {
      for (const auto p : plan_.jobs[j].pods) {
        if (pods_[p].phase != PodPhase::kRunning && pods_[p].phase != PodPhase::kSucceeded) {
          return false;
        }
      }
    }
  }
  return true;
}

void Lifecycle::apply_policies(Clock::time_point now) {
  if (restarting_) return;
  // Failure policy, on the first failed Job (in JobSet order).
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].phase != JobState::Phase::kFailed) continue;
    const auto& job = plan_.jobs[j];
    std::string suffix = " (first failed job: " + job.name;
    // Its latest failed pod and why: the cause a user needs, without opening the pod's log.
    const PodState* last = nullptr;
    for (const auto i : job.pods) {
      const auto& p = pods_[i];
      if (p.phase == PodPhase::kFailed || (p.exit_code && *p.exit_code != 0)) last = &p;
    }
    if (last != nullptr && !last->reason.empty()) {
      suffix += "; pod " + last->name + ": " + last->reason + ": " + last->message;
    }
    suffix += ")";
    if (!plan_.has_failure_policy) {
      finish("Failed", kFailedJobsReason, kFailedJobsMessage + suffix, now);
      return;
    }
    std::string action = "RestartJobSet";
    const auto& rjob = plan_.replicated_jobs[job.replicated_job].name;
    for (const auto& rule : plan_.failure_rules) {
      if (!rule.target_replicated_jobs.empty() && !contains(rule.target_replicated_jobs, rjob)) {
        continue;
      }
      if (!rule.on_job_failure_reasons.empty() &&
          !contains(rule.on_job_failure_reasons, jobs_[j].reason)) {
        continue;
      }
      action = rule.action;
      break;
    }
    if (action == "FailJobSet") {
      finish("Failed", kFailJobSetReason, kFailJobSetMessage + suffix, now);
    } else if (action == "RestartJobSet" && restarts_towards_max_ >= plan_.max_restarts) {
      finish("Failed", kMaxRestartsReason, kMaxRestartsMessage + suffix, now);
    } else {
      if (action == "RestartJobSet") ++restarts_towards_max_;
      restarting_ = true;
    }
    return;
  }
  // Success policy.
  const auto targeted = [&](const std::string& name) {
    return plan_.success_targets.empty() || contains(plan_.success_targets, name);
  };
  bool all = true;
  bool any = false;
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    if (!targeted(plan_.replicated_jobs[plan_.jobs[j].replicated_job].name)) continue;
    const bool ok = jobs_[j].phase == JobState::Phase::kSucceeded;
    all = all && ok;
    any = any || ok;
  }
  if (plan_.success_operator == "Any" ? any : all) {
    finish("Complete", kCompletedReason, kCompletedMessage, now);
  }
}

Lifecycle::Actions Lifecycle::step(Clock::time_point now) {
  Actions actions;
  if (!terminal() && plan_.train_job_deadline_seconds &&
      now >= created_ + std::chrono::seconds(*plan_.train_job_deadline_seconds)) {
    finish("Failed", "DeadlineExceeded", "TrainJob exceeded its active deadline", now);
  }
  if (!terminal()) {
    update_jobs(now);
    apply_policies(now);
  }
  if (restarting_ && !terminal() &&
      std::none_of(pods_.begin(), pods_.end(), [](const auto& p) { return p.alive; })) {
    // JobSet recreates every Job: all pods start over, in dependsOn order again.
    ++restarts_;
    restarting_ = false;
    for (auto& p : pods_) {
      p.phase = PodPhase::kPending;
      p.stop_requested = false;
    }
    for (auto& j : jobs_) j = JobState{};
  }
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    auto& p = pods_[i];
    if (!p.alive || p.stop_requested) continue;
    const auto job_phase = jobs_[plan_.pods[i].job].phase;
    if (terminal() || restarting_ || job_phase != JobState::Phase::kActive) {
      p.stop_requested = true;
      actions.stop.push_back(i);
    }
  }
  if (terminal() || restarting_) return actions;
  for (std::size_t r = 0; r < plan_.replicated_jobs.size(); ++r) {
    const auto& rj = plan_.replicated_jobs[r];
    const bool ready = std::all_of(rj.depends_on.begin(), rj.depends_on.end(), [&](const auto& d) {
      for (std::size_t o = 0; o < plan_.replicated_jobs.size(); ++o) {
        if (plan_.replicated_jobs[o].name == d.name) return replicated_job_is(o, d.status);
      }
      return false;
    });
    if (!ready) continue;
    for (const auto j : rj.jobs) {
      if (jobs_[j].phase != JobState::Phase::kActive) continue;
      for (const auto i : plan_.jobs[j].pods) {
        auto& p = pods_[i];
        if (p.alive || p.phase != PodPhase::kPending) continue;
        p.name = plan_.pods[i].hostname + "-" + std::to_string(p.attempt);
        ++p.attempt;
        p.phase = PodPhase::kStarting;
        p.alive = true;
        p.stop_requested = false;
        p.exit_code.reset();
        p.start_error.clear();
        p.reason.clear();
        p.message.clear();
        p.pid = 0;
        started_any_ = true;
        actions.start.push_back(i);
      }
    }
  }
  return actions;
}

std::optional<Clock::time_point> Lifecycle::next_deadline() const {
  if (terminal()) return std::nullopt;
  std::optional<Clock::time_point> next;
  const auto consider = [&](Clock::time_point t) {
    if (!next || t < *next) next = t;
  };
  if (plan_.train_job_deadline_seconds) {
    consider(created_ + std::chrono::seconds(*plan_.train_job_deadline_seconds));
  }
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const auto& d = plan_.jobs[j].active_deadline_seconds;
    if (jobs_[j].phase == JobState::Phase::kActive && jobs_[j].start && d) {
      consider(*jobs_[j].start + std::chrono::seconds(*d));
    }
  }
  return next;
}

json::value Lifecycle::status(Clock::time_point now) const {
  json::object out;
  out["trainJob"] = plan_.train_job;
  out["namespace"] = plan_.namespace_;
  out["jobSet"] = plan_.jobset;
  out["phase"] = to_string(phase());
  json::array conditions;
  for (const auto& c : conditions_) {
    conditions.push_back(json::object{{"type", c.type},
                                      {"status", c.status},
                                      {"reason", c.reason},
                                      {"message", c.message},
                                      {"lastTransitionTime", rfc3339(c.time)}});
  }
  out["conditions"] = std::move(conditions);
  out["restarts"] = restarts_;
  json::array jobs_status;
  for (std::size_t r = 0; r < plan_.replicated_jobs.size(); ++r) {
    std::int64_t ready = 0, succeeded = 0, failed = 0, active = 0;
    for (const auto j : plan_.replicated_jobs[r].jobs) {
      const auto& job = jobs_[j];
      if (job.phase == JobState::Phase::kSucceeded) {
        ++succeeded;
        continue;
      }
      if (job.phase == JobState::Phase::kFailed) {
        ++failed;
        continue;
      }
      bool any_alive = false, all_running = true;
      for (const auto p : plan_.jobs[j].pods) {
        any_alive = any_alive || pods_[p].alive;
        all_running = all_running && (pods_[p].phase == PodPhase::kRunning ||
                                      pods_[p].phase == PodPhase::kSucceeded);
      }
      if (any_alive) ++active;
      if (any_alive && all_running) ++ready;
    }
    jobs_status.push_back(json::object{
        {"name", plan_.replicated_jobs[r].name},
        {"ready", ready},
        {"succeeded", succeeded},
        {"failed", failed},
        {"active", active},
        {"suspended", plan_.suspend
                          ? static_cast<std::int64_t>(plan_.replicated_jobs[r].jobs.size())
                          : std::int64_t{0}}});
  }
  out["jobsStatus"] = std::move(jobs_status);
  std::int64_t pending = 0, running = 0, succeeded = 0, failed = 0, pod_restarts = 0;
  json::array pods;
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    const auto& p = pods_[i];
    const auto& pp = plan_.pods[i];
    switch (p.phase) {
      case PodPhase::kPending:
      case PodPhase::kStarting: ++pending; break;
      case PodPhase::kRunning: ++running; break;
      case PodPhase::kSucceeded: ++succeeded; break;
      case PodPhase::kFailed: ++failed; break;
    }
    if (p.attempt > 1) pod_restarts += p.attempt - 1;
    json::object o{{"name", p.name},
                   {"hostname", pp.hostname},
                   {"fqdn", pp.fqdn},
                   {"address", pp.address},
                   {"prefix", pp.prefix},
                   {"replicatedJob", plan_.replicated_jobs[pp.replicated_job].name},
                   {"jobIndex", pp.job_index},
                   {"podIndex", pp.pod_index},
                   {"phase", pod_phase_name(p.phase)},
                   {"attempts", p.attempt},
                   {"pid", p.pid},
                   {"log", p.log}};
    if (p.exit_code) o["exitCode"] = *p.exit_code;
    if (!p.reason.empty()) o["reason"] = p.reason;
    if (!p.message.empty()) o["message"] = p.message;
    pods.push_back(std::move(o));
  }
  out["podCounts"] = json::object{{"pending", pending},
                                  {"running", running},
                                  {"succeeded", succeeded},
                                  {"failed", failed},
                                  {"restarts", pod_restarts}};
  out["pods"] = std::move(pods);
  out["startTime"] = rfc3339(created_);
  const auto end = completion_.value_or(now);
  out["elapsedSeconds"] = std::chrono::duration<double>(end - created_).count();
  if (completion_) out["completionTime"] = rfc3339(*completion_);
  return out;
}

}  // namespace trainer::local::detail
