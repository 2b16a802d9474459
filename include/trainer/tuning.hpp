// SPDX-License-Identifier: Apache-2.0
//
// Hyperparameter tuning of an OptimizationJob (trainer.kubeflow.org/v1alpha1, model in
// trainer/model.hpp): samplers (`random` seeded and reproducible, `grid`, and libtrainer's
// Tree-structured Parzen Estimator), trial TrainJobs made from `trainJobTemplate` the way
// upstream's OptimizationJob controller makes them, metrics in Katib's `name=value` stdout
// format and from `trainerStatus.metrics`, Katib's median stopping rule, and the status
// (`result`, conditions). The pieces are pure functions and small classes, so the local runner
// (trainerctl run) and the cluster reconciler share them. docs/tuning.md describes the mechanism.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::tuning {

/// One trial's values, one per parameter in spec order, as the text the trial receives
/// (`0.01`, `3`, `adam`).
using Assignment = std::vector<ParameterAssignment>;

enum class TrialState { kPending, kRunning, kSucceeded, kFailed, kEarlyStopped };

/// A metric value of one trial at one step (reports in order; `step` counts them from 0 when
/// the training code gives none).
struct MetricPoint {
  std::string name;
  double value = 0;
  std::int64_t step = 0;
};

/// What the samplers and the stopping rule know of a trial.
struct Trial {
  std::string name;  ///< the trial TrainJob's name
  Assignment parameters;
  TrialState state = TrialState::kPending;
  std::vector<MetricPoint> metrics;  ///< every report, in order
  /// The objective metric's value that counts (the latest report, as Katib's `latest`).
  [[nodiscard]] std::optional<double> objective(std::string_view metric) const;
};

/// A search algorithm. Suggestions are a pure function of the spec, the seed and the history,
/// so a run with the same seed suggests the same trials. Not thread-safe.
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// Up to `count` new assignments given every trial so far (creation order); fewer when the
  /// space is exhausted (grid), none when nothing is left. `kInvalid` for a spec the sampler
  /// cannot search (a grid over a range parameter).
  [[nodiscard]] virtual Result<std::vector<Assignment>> suggest(const std::vector<Trial>& history,
                                                                std::size_t count) = 0;
};

/// The sampler an OptimizationJob asks for: `spec.searchAlgorithm.random` (its seed, else a
/// random one), `.grid` (every combination of the categorical choices, first parameter slowest),
/// or TPE when the annotation `kAlgorithmAnnotation` says `tpe` (libtrainer's extension, as
/// Katib's `tpe`; the API's enum has no TPE). `kInvalid` for an unknown annotation value.
[[nodiscard]] Result<std::unique_ptr<Sampler>> make_sampler(const OptimizationJob& job);
inline constexpr const char* kAlgorithmAnnotation = "tuning.trainer.kubeflow.org/algorithm";

/// The trial TrainJob number `index` (0-based) with `assignment`, as upstream's controller
/// makes it (docs/tuning.md): name `<job>-trial-<index>`, label
/// `trainer.kubeflow.org/optimizationjob-name=<job>`, the template's annotations plus
/// `trainer.kubeflow.org/opt-param-<name>=<value>`, `KUBEFLOW_TRAINER_OPT_<NAME>=<value>`
/// appended to `spec.trainer.env`, a controller owner reference to the OptimizationJob.
[[nodiscard]] Result<TrainJob> make_trial(const OptimizationJob& job, std::size_t index,
                                          const Assignment& assignment);

/// The env var a trial receives parameter `name` in: `KUBEFLOW_TRAINER_OPT_` + the name with `-`
/// and `.` as `_` and letters upper-cased (`learning-rate` ->
/// `KUBEFLOW_TRAINER_OPT_LEARNING_RATE`); nullopt when the name has another character than letters,
/// digits, `-`, `_` and `.`.
[[nodiscard]] std::optional<std::string> trial_env_name(std::string_view name);

/// Katib's StdOut metrics collector on one line of output: every `name=value` pair whose name
/// is one of `names` and whose value is a number (`loss=0.25 accuracy=0.9`, separators as
/// Katib's default filter `([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)`).
[[nodiscard]] std::vector<std::pair<std::string, double>> parse_metrics_line(
    std::string_view line, const std::vector<std::string>& names);

/// Katib's `medianstop`: once at least `min_trials_required` trials have succeeded, the rule
/// value is the arithmetic mean (Katib calls it the median) of each succeeded trial's average
/// over its first `start_step` objective reports; a running trial is stopped when, at its
/// `start_step`-th report, its best objective so far is worse than that value (checked once, at
/// that report, as Katib's collector does).
struct MedianStop {
  int min_trials_required = 3;
  int start_step = 4;
};
[[nodiscard]] bool should_stop_early(const MedianStop& rule, const OptimizationJob& job,
                                     const Trial& trial, const std::vector<Trial>& history);

/// The best succeeded trial by the objective's direction; nullopt when none has a value.
[[nodiscard]] std::optional<OptimizationResult> best_result(const OptimizationJob& job,
                                                            const std::vector<Trial>& trials);

/// `status` after the trials so far, with upstream's conditions and reasons (`Created`,
/// `Running` reason `TrialsRunning`, `Complete` reason `OptimizationJobCompleted`, `Failed`
/// reason `AllTrialsFailed`) and `result`; `now` is the RFC 3339 time of changed conditions.
[[nodiscard]] OptimizationJobStatus derive_status(const OptimizationJob& job,
                                                  const std::vector<Trial>& trials,
                                                  const OptimizationJobStatus& previous,
                                                  std::string_view now);

/// `status` of a job that ends before its trials are done for a cause of its own (libtrainer's
/// local runner: trials that cannot start): `Failed=True` and `Running=False` with `reason` and
/// `message`, no `Complete` condition; `result` (the best trial so far, if any) stays.
[[nodiscard]] OptimizationJobStatus failed_status(const OptimizationJob& job,
                                                  OptimizationJobStatus status,
                                                  std::string_view reason, std::string_view message,
                                                  std::string_view now);

}  // namespace trainer::tuning
