// SPDX-License-Identifier: Apache-2.0
// The small pieces of a local tuning run: the early stopping annotations, trial state names,
// metrics from `trainerStatus`.
#include "trainer/tuning_local.hpp"

#include <charconv>
#include <cstdlib>
#include <string>

namespace trainer::tuning {
namespace {

// A positive int annotation; `fallback` when absent.
Result<int> positive_annotation(const OptimizationJob& job, const char* key, int fallback) {
  const auto it = job.metadata.annotations.find(key);
  if (it == job.metadata.annotations.end()) return fallback;
  const std::string& text = it->second;
  int value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value < 1) {
    return tl::make_unexpected(
        Error::invalid({{FieldErrorType::kInvalid, std::string("metadata.annotations[") + key + "]",
                         boost::json::value(text), "must be a positive integer"}}));
  }
  return value;
}

}  // namespace

Result<std::optional<MedianStop>> early_stopping_rule(const OptimizationJob& job) {
  const auto it = job.metadata.annotations.find(kEarlyStoppingAnnotation);
  if (it == job.metadata.annotations.end()) return std::optional<MedianStop>{};
  if (it->second != "medianstop") {
    return tl::make_unexpected(
        Error::invalid({{FieldErrorType::kNotSupported,
                         std::string("metadata.annotations[") + kEarlyStoppingAnnotation + "]",
                         boost::json::value(it->second), "supported values: \"medianstop\""}}));
  }
  MedianStop rule;
  auto min_trials =
      positive_annotation(job, kMinTrialsRequiredAnnotation, rule.min_trials_required);
  if (!min_trials) return tl::make_unexpected(min_trials.error());
  auto start_step = positive_annotation(job, kStartStepAnnotation, rule.start_step);
  if (!start_step) return tl::make_unexpected(start_step.error());
  rule.min_trials_required = *min_trials;
  rule.start_step = *start_step;
  return std::optional<MedianStop>{rule};
}

const char* to_string(TrialState state) noexcept {
  switch (state) {
    case TrialState::kPending: return "Pending";
    case TrialState::kRunning: return "Running";
    case TrialState::kSucceeded: return "Succeeded";
    case TrialState::kFailed: return "Failed";
    case TrialState::kEarlyStopped: return "EarlyStopped";
  }
  return "Unknown";
}

std::vector<MetricPoint> trainer_status_metrics(const TrainJob& job, std::string_view metric,
                                                std::int64_t after) {
  std::vector<MetricPoint> points;
  if (!job.status || !job.status->trainer_status) return points;
  for (const auto& m : job.status->trainer_status->metrics) {
    if (m.name != metric) continue;
    // The status carries decimal text (upstream's controller reads it with %f).
    const char* begin = m.value.c_str();
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin || *end != '\0') continue;
    points.push_back({m.name, value, after + static_cast<std::int64_t>(points.size())});
  }
  return points;
}

}  // namespace trainer::tuning
