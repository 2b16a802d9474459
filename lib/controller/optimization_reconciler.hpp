// SPDX-License-Identifier: Apache-2.0
// One reconcile of an OptimizationJob on a cluster (docs/tuning.md, "On a cluster"): the trial
// TrainJobs it owns are read back as trials (parameters from their `opt-param-` annotations,
// state from their conditions, metrics from `status.trainerStatus.metrics`), missing trials are
// created with `tuning::make_trial` (server-side apply) up to `parallelTrials` active and
// `numTrials` in all, and the status from `tuning::derive_status` is written when it changed.
// The sampler is in process: its suggestions are a function of the spec, the seed and the
// trials, so every reconcile rebuilds it from what the cluster holds.
#pragma once

#include "trainer/error.hpp"
#include "trainer/kube.hpp"
#include "trainer/model.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::controller {

struct OptimizationReconcileResult {
  std::size_t created = 0;                 ///< trial TrainJobs created by this pass
  std::vector<std::string> created_names;  ///< their names
  std::size_t trials = 0;                  ///< trials that exist after it
  std::size_t active = 0;                  ///< of them, not finished
  bool status_written = false;
  OptimizationJobStatus status;
};

/// One pass over the OptimizationJob `ns`/`name`; `now` is the RFC 3339 time of changed
/// conditions; `cancel` ends its requests (the controller's shutdown timeout, a lost lease).
/// Errors: those of the client (`kNotFound` for a missing job, `kCancelled`), of decoding the job
/// or a trial, of the sampler and `make_trial`.
[[nodiscard]] Result<OptimizationReconcileResult> reconcile_optimization_job(
    kube::Client& client, std::string_view ns, std::string_view name, const std::string& now,
    const kube::CancelToken& cancel = {});

}  // namespace trainer::controller
