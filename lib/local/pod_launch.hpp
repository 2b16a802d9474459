// SPDX-License-Identifier: Apache-2.0
//
// Preparing a run folder and starting pods: each pod attempt's volumes materialized, env
// resolved and spec written for `trainer-pod init` first (`prepare_pod`), then the helpers
// started with their pipes (`start_pods`, through pod_launcher.hpp), so a batch of pods starts
// in one go once every file is in place.
#pragma once

#include "local/env.hpp"
#include "local/plan.hpp"
#include "local/run_folder.hpp"

#include "trainer/local.hpp"
#include "trainer/local_progress.hpp"

#include <memory>
#include <string>
#include <vector>

namespace trainer::local::detail {

/// What every pod launch of a run needs; made once by `prepare_run`.
struct LaunchConfig {
  std::string run_dir;  ///< absolute
  /// The run folder and its logs/ and pods/, open for the run: state.json, run.log and every
  /// pod's files are made below them without walking their paths again.
  Fd run_folder, logs_folder, pods_folder;
  std::string helper;  ///< absolute path of trainer-pod
  bool namespaces = false;
  EnvList host_env;
  std::string node_name;
  std::vector<std::string> warnings;
  /// The TrainJobStatus progress server of the run (ExecutorOptions::progress_server), or null.
  std::shared_ptr<ProgressServer> progress;
  /// Names every pod resolves to 127.0.0.1: the progress server's service names.
  std::vector<std::string> loopback_names;
  /// This process's pid as a pod's helper sees its parent (`executorPid` of the pod spec; 0:
  /// not known): getpid() without namespaces, else the pid /proc shows, which the helper reads
  /// before it mounts the pod's own /proc.
  long parent_pid = 0;
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

/// A pod attempt whose files are written: its folder, volumes, spec and log file.
struct PreparedPod {
  std::string spec_path;
  std::string log_path;
  Fd log;
};

/// Writes what pod `index` needs to start as `name` (its attempt's pod name).
[[nodiscard]] Result<PreparedPod> prepare_pod(const Plan& plan, std::size_t index,
                                              const std::string& name, const LaunchConfig& config);

/// Starts the helpers of prepared pod attempts with their pipes, in order, through the process's
/// pod launcher (pod_launcher.hpp); one result per attempt (a failed preparation is passed on).
[[nodiscard]] std::vector<Result<Launched>> start_pods(std::vector<Result<PreparedPod>> prepared,
                                                       const LaunchConfig& config);

}  // namespace trainer::local::detail
