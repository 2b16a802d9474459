// SPDX-License-Identifier: Apache-2.0
//
// ClusterTrainingRuntimes that ship with libtrainer: the runtimes upstream Kubeflow Trainer
// installs by default (manifests/base/runtimes), so a TrainJob whose `runtimeRef` names one of
// them renders and runs without a runtime file. A runtime given as input always takes
// precedence over the built-in one of the same name.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace trainer {

/// One built-in ClusterTrainingRuntime: its name and its YAML manifest (static storage).
struct BuiltinRuntime {
  std::string_view name;
  std::string_view yaml;
};

/// Every built-in runtime, sorted by name: deepspeed-distributed, jax-distributed,
/// mlx-distributed, torch-distributed, xgboost-distributed. Thread-safe; never fails.
[[nodiscard]] const std::vector<BuiltinRuntime>& builtin_runtimes() noexcept;

/// The manifest of the built-in runtime `name`, or nullopt when there is none.
[[nodiscard]] std::optional<std::string_view> find_builtin_runtime(std::string_view name) noexcept;

}  // namespace trainer
