// SPDX-License-Identifier: Apache-2.0
//
// Katib's `medianstop` (reference 4.6): the rule value is the arithmetic mean (Katib's name
// says median) of each succeeded trial's average over its first `start_step` objective reports;
// a running trial is stopped when the best of its first `start_step` reports is worse. Katib
// checks once, at the start_step-th report; judging only those reports gives the same answer
// whenever the caller asks after that.
#include "trainer/tuning.hpp"

#include <algorithm>

namespace trainer::tuning {
namespace {

std::vector<double> objective_values(const Trial& t, const std::string& metric, std::size_t n) {
  std::vector<double> v;
  for (const auto& m : t.metrics) {
    if (v.size() == n) break;
    if (m.name == metric) v.push_back(m.value);
  }
  return v;
}

}  // namespace

bool should_stop_early(const MedianStop& rule, const OptimizationJob& job, const Trial& trial,
                       const std::vector<Trial>& history) {
  if (job.spec.objectives.empty() || rule.start_step < 1 || rule.min_trials_required < 1) {
    return false;
  }
  if (trial.state != TrialState::kRunning) return false;
  const auto& objective = job.spec.objectives.front();
  const auto steps = static_cast<std::size_t>(rule.start_step);
  const auto own = objective_values(trial, objective.metric, steps);
  if (own.size() < steps) return false;

  double sum = 0;
  int averaged = 0;
  for (const auto& t : history) {
    if (t.state != TrialState::kSucceeded || t.name == trial.name) continue;
    const auto v = objective_values(t, objective.metric, steps);
    if (v.empty()) continue;
    double s = 0;
    for (const double x : v) s += x;
    sum += s / static_cast<double>(v.size());
    ++averaged;
  }
  if (averaged < rule.min_trials_required) return false;
  const double rule_value = sum / averaged;
  const bool maximize =
      objective.direction.value_or(ObjectiveDirection::kMinimize) == ObjectiveDirection::kMaximize;
  if (maximize) return *std::max_element(own.begin(), own.end()) < rule_value;
  return *std::min_element(own.begin(), own.end()) > rule_value;
}

}  // namespace trainer::tuning
