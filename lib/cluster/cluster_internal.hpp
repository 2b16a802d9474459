// SPDX-License-Identifier: Apache-2.0
//
// What the verbs of lib/cluster share: the names of the Trainer kinds and the API paths of the
// requests the typed client does not make (the server-side Table).
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

/// client-go's `IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`.
[[nodiscard]] bool valid_path_segment(std::string_view name) noexcept;

/// The API path of `resource`'s collection (`name` empty) or object: `/apis/<g>/<v>` or
/// `/api/v1`, then `/namespaces/<ns>` for a namespaced resource unless `all_namespaces`.
[[nodiscard]] std::string api_path(const kube::Resource& resource, std::string_view ns,
                                   std::string_view name, bool all_namespaces = false);

/// `value` percent-encoded for a query string.
[[nodiscard]] std::string query_escape(std::string_view value);

/// ASCII case-insensitive equality (condition types and statuses, as kubectl compares them).
[[nodiscard]] bool iequals(std::string_view a, std::string_view b) noexcept;

}  // namespace trainer::cluster::detail
