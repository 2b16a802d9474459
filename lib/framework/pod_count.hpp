// SPDX-License-Identifier: Apache-2.0
//
// How many pods a TrainJob asks for, and the one check of that number against
// kMaxPodsPerTrainJob that admission and the render pipeline share (docs/yaml.md, "Size of a
// TrainJob"). `numNodes` alone beyond the limit is a TrainJob rule (lib/validation), which
// needs no runtime.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <cstdint>
#include <optional>

namespace trainer::detail {

/// The pods `job` would ask for on the runtime info `info` (as `new_runtime_info` built it, before
/// the ML policy ran): for each replicated job, replicas x pods per Job, where the trainer nodes'
/// Job takes the TrainJob's `numNodes` as the built-in plugins set it (MPI's `node` Job one less
/// with `runLauncherAsNode`, whose launcher is a node). Saturates at INT64_MAX.
[[nodiscard]] std::int64_t count_pods(const Info& info, const TrainJob& job);

/// `spec.trainer.numNodes: Invalid value: ...` when `count_pods` exceeds kMaxPodsPerTrainJob.
[[nodiscard]] std::optional<FieldError> check_pod_count(const Info& info, const TrainJob& job);

}  // namespace trainer::detail
