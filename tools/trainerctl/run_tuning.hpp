// SPDX-License-Identifier: Apache-2.0
// `trainerctl run` of an OptimizationJob: its trials on this machine (trainer::tuning::run_local)
// with a live table of trials, and `trainerctl status` of a tuning run folder.
#pragma once

#include "flags.hpp"

#include "trainer/local.hpp"
#include "trainer/render.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainerctl {

/// Whether an OptimizationJob is among the documents (`run` then tunes instead of running one
/// TrainJob).
[[nodiscard]] bool has_optimization_job(const std::vector<boost::json::value>& docs);

/// Runs the one OptimizationJob among `docs` (the other documents are the trials' runtimes) with
/// the flags of `run` (`-o wide`: the trial table with every value whole), rendering each trial
/// with `context` (a fresh UID each) and running it with `executor`'s settings (isolation, pod
/// helper, progress server). Exit status: 0 Complete, 1 Failed, stopped, or the inputs were
/// rejected.
[[nodiscard]] int run_tuning(const Parsed& args, std::vector<boost::json::value> docs,
                             const trainer::Framework* framework, trainer::RenderContext context,
                             trainer::local::ExecutorOptions executor);

/// Whether `run_dir` is a tuning run folder (it has results.json).
[[nodiscard]] bool is_tuning_run(const std::string& run_dir);

/// `trainerctl status` of a tuning run folder: the OptimizationJob's conditions and result, then
/// one row per trial, fitted to the terminal's width unless `wide`; `as_json` prints results.json
/// as it is.
[[nodiscard]] int print_tuning_status(const std::string& run_dir, bool as_json, bool wide);

}  // namespace trainerctl
