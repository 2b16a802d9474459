// SPDX-License-Identifier: Apache-2.0
//
// Running an OptimizationJob on this machine (`trainerctl run -f optimizationjob.yaml`): every
// trial TrainJob (`make_trial`) is rendered against the runtimes given with the job, exactly as
// `trainerctl run` renders a TrainJob (`render_documents`), and run by the local executor in a
// run folder of its own, `parallelTrials` at a time, until `numTrials` have run or the sampler
// is exhausted. Metrics are read from every pod's output lines (`parse_metrics_line`, Katib's
// StdOut collector); median stopping, when an annotation enables it, cancels a trial early. The
// run folder gets `results.json` (every trial and the OptimizationJob status), rewritten after
// every change, so `trainerctl status` reads a running tuning run too. docs/tuning.md, "Running
// locally", describes the folder and the file.
#pragma once

#include "trainer/error.hpp"
#include "trainer/local.hpp"
#include "trainer/model.hpp"
#include "trainer/render.hpp"
#include "trainer/tuning.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::tuning {

/// Early stopping of an OptimizationJob (libtrainer's extension; the API has no field for it):
/// `medianstop` enables Katib's median stopping rule, with the two settings below (Katib's
/// `min_trials_required` and `start_step`, defaults 3 and 4).
inline constexpr const char* kEarlyStoppingAnnotation =
    "tuning.trainer.kubeflow.org/early-stopping";
inline constexpr const char* kMinTrialsRequiredAnnotation =
    "tuning.trainer.kubeflow.org/min-trials-required";
inline constexpr const char* kStartStepAnnotation = "tuning.trainer.kubeflow.org/start-step";

/// The early stopping rule the annotations ask for; nullopt when `kEarlyStoppingAnnotation` is
/// absent. `kInvalid` (naming the annotation) for another algorithm than `medianstop` or a
/// setting that is not a positive integer.
[[nodiscard]] Result<std::optional<MedianStop>> early_stopping_rule(const OptimizationJob& job);

/// "Pending", "Running", "Succeeded", "Failed", "EarlyStopped" (Katib's trial conditions).
[[nodiscard]] const char* to_string(TrialState state) noexcept;

/// The metric points a TrainJob's `status.trainerStatus.metrics` holds for `metric` (values that
/// are not numbers are skipped), numbered after `after` reports already known.
[[nodiscard]] std::vector<MetricPoint> trainer_status_metrics(const TrainJob& job,
                                                              std::string_view metric,
                                                              std::int64_t after);

/// One trial of a local tuning run.
struct LocalTrial {
  Trial trial;
  std::string run_dir;  ///< the trial's run folder (absolute)
  /// Why it failed or stopped, one word; empty otherwise: `StartFailed` (its executor or one of
  /// its pods could not be started), `RenderFailed`, `Cancelled`, `Timeout`, `MedianStopped`,
  /// `Suspended`, or else the reason of its TrainJob's `Failed` condition (`FailedJobs`, ...).
  std::string reason;
  std::string message;  ///< why it failed or stopped, in words; empty otherwise
};

/// A local tuning run stops starting trials once this many trials in a row (in the order they
/// ended) could not start (`StartFailed`): the machine is out of processes or the executor is
/// misconfigured, and the next trials would fail the same way. It then ends `Failed` with reason
/// `kTrialsFailedToStartReason` once its running trials have ended.
inline constexpr std::size_t kMaxConsecutiveStartFailures = 3;
inline constexpr const char* kTrialsFailedToStartReason = "TrialsFailedToStart";

/// Options of `run_local`.
struct LocalTuningOptions {
  /// The tuning run folder (created; it must not hold a previous run). Trial `<job>-trial-<n>`
  /// runs in `<run_dir>/<job>-trial-<n>`. Required.
  std::string run_dir;
  /// The other inputs every trial is rendered with (its runtime, ConfigMaps, ...).
  std::vector<boost::json::value> inputs;
  /// Options of `render_documents` (namespace, framework, built-in runtimes, warnings).
  RenderDocumentsOptions render;
  /// The render context; each trial gets a fresh random UID in it.
  RenderContext context;
  /// The executor's settings for every trial (isolation, pod helper, host env); `run_dir`,
  /// `on_log` and `on_status` are the runner's. `on_warning` may be called from several trials'
  /// threads: the runner serialises the calls.
  local::ExecutorOptions executor;
  /// Called on the calling thread after every change of a trial (state, a new metric value).
  std::function<void(const std::vector<LocalTrial>&)> on_progress;
  /// The run stops when this becomes true (every running trial is cancelled; none starts).
  const std::atomic<bool>* stop = nullptr;
  /// A bound on the whole run: when it passes, running trials are cancelled (they end Failed,
  /// message `timeout`) and no further trial starts. None: the trials' own bounds
  /// (`activeDeadlineSeconds`) only.
  std::optional<std::chrono::milliseconds> timeout;
};

/// What a local tuning run produced.
struct LocalTuningResult {
  std::vector<LocalTrial> trials;
  OptimizationJobStatus status;
  std::string results_file;  ///< `<run_dir>/results.json`
};

/// Runs `job` (decoded; defaulted and validated here) to the end, on the calling thread. Errors:
/// `kInvalid` (the job, its early stopping annotations, a trial that does not render: the first
/// trial's render error is returned as it is), `kInvalidArgument` (no run_dir, a previous run
/// there), `kIo`, and any error of `make_sampler`/`make_trial`. A trial that fails to start
/// (the first one too: out of processes, no pod helper) or fails is a `Failed` trial with its
/// reason, not an error; `kMaxConsecutiveStartFailures` of them in a row end the run `Failed`.
[[nodiscard]] Result<LocalTuningResult> run_local(OptimizationJob job, LocalTuningOptions options);

/// `<run_dir>/results.json`.
[[nodiscard]] std::string results_path(const std::string& run_dir);

/// Reads `<run_dir>/results.json`. Errors: `kNotFound` (no tuning run there), `kParse`.
[[nodiscard]] Result<boost::json::value> read_results(const std::string& run_dir);

}  // namespace trainer::tuning
