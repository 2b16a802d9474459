// SPDX-License-Identifier: Apache-2.0
//
// The pure status steps of upstream's reconcile (reference 5.1 steps 6-8, 5.3, 4.1.6):
// apimachinery's `meta.SetStatusCondition`, the Suspended/Resumed condition, the JobSet status
// copy and `activeDeadlineSeconds`. No I/O: the reconciler feeds the JobSet it read.
#include "api/time_text.hpp"
#include "controller/controller_internal.hpp"
#include "trainer/controller.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <utility>

namespace trainer::controller {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

Condition* find_condition(std::vector<Condition>& conditions, std::string_view type) {
  for (auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

// `status.conditions[type]` of the JobSet when its status is True, as a TrainJob condition of
// type `as` (upstream copies the whole condition and renames the type).
std::optional<Condition> jobset_condition(const json::object& jobset, std::string_view type,
                                          std::string as) {
  const auto* status = find_object(jobset, "status");
  const auto* conditions = status != nullptr ? find_array(*status, "conditions") : nullptr;
  if (conditions == nullptr) return std::nullopt;
  for (const auto& v : *conditions) {
    const auto* c = v.if_object();
    if (c == nullptr || find_string(*c, "type").value_or("") != type) continue;
    // meta.FindStatusCondition: the first of the type decides.
    if (find_string(*c, "status").value_or("") != "True") return std::nullopt;
    Condition out;
    out.type = std::move(as);
    out.status = "True";
    out.observed_generation = find_int(*c, "observedGeneration");
    out.last_transition_time = find_string(*c, "lastTransitionTime").value_or("");
    out.reason = find_string(*c, "reason").value_or("");
    out.message = find_string(*c, "message").value_or("");
    return out;
  }
  return std::nullopt;
}

std::optional<std::int32_t> int32_field(const json::object& o, std::string_view key) {
  const auto v = find_int(o, key);
  if (!v) return std::nullopt;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(
      *v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

// JobSet plugin `Status` (reference 4.1.6 steps 3-5) on a copy of the TrainJob's status.
void copy_jobset_status(TrainJobStatus& status, const json::object& jobset,
                        const std::string& now) {
  if (auto c = jobset_condition(jobset, "Completed", std::string(kConditionComplete))) {
    set_status_condition(status.conditions, std::move(*c), now);
  }
  if (auto c = jobset_condition(jobset, "Failed", std::string(kConditionFailed))) {
    set_status_condition(status.conditions, std::move(*c), now);
  }
  status.jobs_status.clear();
  const auto* jobset_status = find_object(jobset, "status");
  if (const auto* jobs =
          jobset_status != nullptr ? find_array(*jobset_status, "replicatedJobsStatus") : nullptr) {
    for (const auto& v : *jobs) {
      const auto* j = v.if_object();
      if (j == nullptr) continue;
      JobStatus s;
      s.name = find_string(*j, "name").value_or("");
      // The TrainJob CRD requires every counter; the JobSet's are required too (0 when none).
      s.ready = int32_field(*j, "ready").value_or(0);
      s.succeeded = int32_field(*j, "succeeded").value_or(0);
      s.failed = int32_field(*j, "failed").value_or(0);
      s.active = int32_field(*j, "active").value_or(0);
      s.suspended = int32_field(*j, "suspended").value_or(0);
      status.jobs_status.push_back(std::move(s));
    }
  }
}

}  // namespace

bool set_status_condition(std::vector<Condition>& conditions, Condition c, const std::string& now) {
  Condition* existing = find_condition(conditions, c.type);
  if (existing == nullptr) {
    if (c.last_transition_time.empty()) c.last_transition_time = now;
    conditions.push_back(std::move(c));
    return true;
  }
  bool changed = false;
  if (existing->status != c.status) {
    existing->status = c.status;
    existing->last_transition_time = c.last_transition_time.empty() ? now : c.last_transition_time;
    changed = true;
  }
  if (existing->reason != c.reason) {
    existing->reason = std::move(c.reason);
    changed = true;
  }
  if (existing->message != c.message) {
    existing->message = std::move(c.message);
    changed = true;
  }
  if (existing->observed_generation != c.observed_generation) {
    existing->observed_generation = c.observed_generation;
    changed = true;
  }
  return changed;
}

bool detail::is_finished(const TrainJobStatus& status) {
  return finishing_condition(status.conditions) != nullptr;
}

bool detail::is_finished(const TrainJob& job) {
  return job.status && is_finished(*job.status);
}

std::string detail::format_time(Clock::time_point t) {
  return trainer::detail::format_rfc3339(t);
}

std::string detail::micro_time(Clock::time_point t) {
  return trainer::detail::format_rfc3339_micro(t);
}

std::optional<Clock::time_point> detail::parse_time(std::string_view text) {
  return trainer::detail::parse_rfc3339(text);
}

DerivedStatus derive_status(const TrainJob& job, const json::object* jobset,
                            Clock::time_point now) {
  DerivedStatus out;
  out.status = job.status.value_or(TrainJobStatus{});
  auto& status = out.status;
  const std::string now_text = detail::format_time(now);

  // Step 6: setSuspendedCondition.
  const bool suspend = job.spec.suspend.value_or(false);
  if (suspend) {
    set_status_condition(status.conditions,
                         {std::string(kConditionSuspended), "True", std::nullopt, "",
                          std::string(kReasonSuspended), std::string(kMessageSuspended)},
                         now_text);
  } else if (const Condition* c = find_condition(status.conditions, kConditionSuspended);
             c != nullptr && c->status == "True") {
    set_status_condition(status.conditions,
                         {std::string(kConditionSuspended), "False", std::nullopt, "",
                          std::string(kReasonResumed), std::string(kMessageResumed)},
                         now_text);
  }

  // Step 7: setTrainJobStatus. Without a JobSet the status is kept: a finished TrainJob's
  // JobSet may have been deleted (TTL); for an unfinished one the reconciler reports it.
  if (jobset != nullptr) {
    std::optional<Condition> deadline;
    if (const Condition* failed = find_condition(status.conditions, kConditionFailed);
        failed != nullptr && failed->reason == kReasonDeadlineExceeded) {
      deadline = *failed;
    }
    copy_jobset_status(status, *jobset, now_text);
    if (deadline) set_status_condition(status.conditions, std::move(*deadline), now_text);
  }

  // Step 8: reconcileDeadline (reference 5.3).
  const std::int64_t seconds = job.spec.active_deadline_seconds.value_or(0);
  if (seconds <= 0 || suspend || detail::is_finished(status)) return out;
  std::optional<Clock::time_point> start =
      detail::parse_time(job.metadata.creation_timestamp.value_or(""));
  if (const Condition* c = find_condition(status.conditions, kConditionSuspended);
      c != nullptr && c->status == "False") {
    // The last resume restarts the clock.
    if (auto resumed = detail::parse_time(c->last_transition_time)) start = resumed;
  }
  if (!start) return out;  // the API server always sets creationTimestamp
  const Clock::time_point deadline = *start + std::chrono::seconds(seconds);
  if (now > deadline) {
    set_status_condition(
        status.conditions,
        {std::string(kConditionFailed), "True", std::nullopt, "",
         std::string(kReasonDeadlineExceeded), std::string(kMessageDeadlineExceeded)},
        now_text);
    out.deadline_exceeded = true;
    return out;
  }
  // Whole seconds, rounded up so the next reconcile comes after the deadline; at least 1 s.
  const auto remaining = std::chrono::ceil<std::chrono::seconds>(deadline - now);
  out.requeue_after = std::max(remaining, std::chrono::seconds(1));
  return out;
}

}  // namespace trainer::controller
