// SPDX-License-Identifier: Apache-2.0
//
// What the verbs of lib/cluster share: the names of the Trainer kinds. (The server-side Table
// is requested with the client's own paths and pager, kube/client/paths.hpp and
// list_pager.hpp.)
#pragma once

#include "trainer/cluster.hpp"

#include <string>
#include <string_view>

namespace trainer::cluster::detail {

inline constexpr std::string_view kTrainerApiVersion = "trainer.kubeflow.org/v1alpha1";

/// `TrainJob`, `TrainingRuntime`, `ClusterTrainingRuntime`.
[[nodiscard]] std::string_view kind_name(Kind kind) noexcept;
/// The plural resource: `trainjobs`, ...
[[nodiscard]] std::string_view plural(Kind kind) noexcept;

/// ASCII case-insensitive equality (condition types and statuses, as kubectl compares them).
[[nodiscard]] bool iequals(std::string_view a, std::string_view b) noexcept;

}  // namespace trainer::cluster::detail
