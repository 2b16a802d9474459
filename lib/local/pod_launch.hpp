// SPDX-License-Identifier: Apache-2.0
//
// Preparing a run folder and starting one pod: volumes materialized, env resolved, the pod spec
// written for `trainer-pod init`, and the helper forked with its pipes.
#pragma once

#include "local/env.hpp"
#include "local/plan.hpp"

#include "trainer/local.hpp"
#include "trainer/local_progress.hpp"

#include <memory>
#include <string>
#include <vector>

namespace trainer::local::detail {

/// What every pod launch of a run needs; made once by `prepare_run`.
struct LaunchConfig {
  std::string run_dir;  ///< absolute
  std::string helper;   ///< absolute path of trainer-pod
  bool namespaces = false;
  EnvList host_env;
  std::string node_name;
  std::vector<std::string> warnings;
  /// The TrainJobStatus progress server of the run (ExecutorOptions::progress_server), or null.
  std::shared_ptr<ProgressServer> progress;
  /// Names every pod resolves to 127.0.0.1: the progress server's service names.
  std::vector<std::string> loopback_names;
};

/// Chooses the isolation, finds the helper, creates the run folder (refusing a used one),
/// writes the hosts file and checks that every pod's env resolves.
[[nodiscard]] Result<LaunchConfig> prepare_run(const Plan& plan, const ExecutorOptions& options);

struct Launched {
  int pid = -1;
  int pidfd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int ready_fd = -1;
  int log_fd = -1;
  std::string log_path;
};

/// Starts pod `index` as `name` (its attempt's pod name).
[[nodiscard]] Result<Launched> launch_pod(const Plan& plan, std::size_t index,
                                          const std::string& name, const LaunchConfig& config);

}  // namespace trainer::local::detail
