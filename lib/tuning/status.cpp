// SPDX-License-Identifier: Apache-2.0
//
// The OptimizationJob status as upstream's controller (PR #3828 at d9989e8f) derives it from its
// trials: finished when numTrials trials exist and none is active; Failed when all failed, else
// Complete with the best trial as `result`; condition reasons and messages as upstream's.
// Unlike upstream, Running turns False when the job finishes, and the best trial is chosen among
// succeeded trials only (upstream also reads failed trials' metrics).
#include "trainer/tuning.hpp"

#include "api/number_text.hpp"

#include <algorithm>

namespace trainer::tuning {
namespace {

// meta.SetStatusCondition: the transition time changes only when the status does.
void set_condition(std::vector<Condition>& conditions, Condition c, std::string_view now) {
  for (auto& existing : conditions) {
    if (existing.type != c.type) continue;
    if (existing.status != c.status) existing.last_transition_time = std::string(now);
    existing.status = c.status;
    existing.reason = c.reason;
    existing.message = c.message;
    existing.observed_generation = c.observed_generation;
    return;
  }
  c.last_transition_time = std::string(now);
  conditions.push_back(std::move(c));
}

}  // namespace

std::optional<double> Trial::objective(std::string_view metric) const {
  for (auto it = metrics.rbegin(); it != metrics.rend(); ++it) {
    if (it->name == metric) return it->value;
  }
  return std::nullopt;
}

std::optional<OptimizationResult> best_result(const OptimizationJob& job,
                                              const std::vector<Trial>& trials) {
  if (job.spec.objectives.empty()) return std::nullopt;
  const auto& objective = job.spec.objectives.front();
  const bool maximize =
      objective.direction.value_or(ObjectiveDirection::kMinimize) == ObjectiveDirection::kMaximize;
  const Trial* best = nullptr;
  double best_value = 0;
  for (const auto& t : trials) {
    if (t.state != TrialState::kSucceeded) continue;
    const auto v = t.objective(objective.metric);
    if (!v) continue;
    // Strictly better only: the earliest trial wins a tie.
    if (best == nullptr || (maximize ? *v > best_value : *v < best_value)) {
      best = &t;
      best_value = *v;
    }
  }
  if (best == nullptr) return std::nullopt;
  return OptimizationResult{
      best->name, {{objective.metric, trainer::detail::double_text(best_value)}}, best->parameters};
}

OptimizationJobStatus derive_status(const OptimizationJob& job, const std::vector<Trial>& trials,
                                    const OptimizationJobStatus& previous, std::string_view now) {
  OptimizationJobStatus status = previous;
  const auto generation = job.metadata.generation;
  std::size_t failed = 0, active = 0;
  for (const auto& t : trials) {
    if (t.state == TrialState::kFailed) ++failed;
    if (t.state == TrialState::kPending || t.state == TrialState::kRunning) ++active;
  }
  const auto num_trials = static_cast<std::size_t>(std::max(job.spec.num_trials.value_or(1), 1));
  // In process the sampler is libtrainer's; upstream's reason names its suggestion service.
  set_condition(status.conditions,
                {"Created", "True", generation, "", "AlgorithmServiceCreated",
                 "the search algorithm is ready"},
                now);
  const bool finished = trials.size() >= num_trials && active == 0;
  if (!finished) {
    if (active > 0) {
      set_condition(status.conditions,
                    {"Running", "True", generation, "", "TrialsRunning",
                     std::to_string(active) + " trial(s) actively running"},
                    now);
    }
    return status;
  }
  if (failed == trials.size()) {
    set_condition(
        status.conditions,
        {"Failed", "True", generation, "", "AllTrialsFailed",
         std::to_string(failed) + " out of " + std::to_string(trials.size()) + " trials failed"},
        now);
    set_condition(status.conditions,
                  {"Running", "False", generation, "", "AllTrialsFailed", "no trial is running"},
                  now);
    return status;
  }
  status.result = best_result(job, trials);
  set_condition(status.conditions,
                {"Complete", "True", generation, "", "OptimizationJobCompleted",
                 "All trials have completed successfully"},
                now);
  set_condition(
      status.conditions,
      {"Running", "False", generation, "", "OptimizationJobCompleted", "no trial is running"}, now);
  return status;
}

OptimizationJobStatus failed_status(const OptimizationJob& job, OptimizationJobStatus status,
                                    std::string_view reason, std::string_view message,
                                    std::string_view now) {
  const auto generation = job.metadata.generation;
  auto& conditions = status.conditions;
  conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                  [](const Condition& c) { return c.type == "Complete"; }),
                   conditions.end());
  set_condition(conditions,
                {"Failed", "True", generation, "", std::string(reason), std::string(message)}, now);
  set_condition(conditions,
                {"Running", "False", generation, "", std::string(reason), "no trial is running"},
                now);
  return status;
}

}  // namespace trainer::tuning
