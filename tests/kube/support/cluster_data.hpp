// SPDX-License-Identifier: Apache-2.0
//
// The small runtime and TrainJob the cluster tests apply: the TrainingRuntime `torch-small` of
// tests/cli/data/cluster/runtime.yaml (the file cli.cluster.* applies too) and TrainJobs on it.
#pragma once

#include <string>

namespace trainer::testing {

/// The namespaced TrainingRuntime `torch-small` (one `node` replicated job, torch policy).
[[nodiscard]] std::string small_runtime_yaml();
/// A TrainJob `name` on `torch-small` with `spec.trainer.numNodes: 2`; `extra` is appended
/// after that line (more trainer fields at 4 spaces, spec fields at 2).
[[nodiscard]] std::string small_train_job_yaml(const std::string& name,
                                               const std::string& extra = "");

}  // namespace trainer::testing
