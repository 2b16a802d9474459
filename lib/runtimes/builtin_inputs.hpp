// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer/error.hpp"

#include <boost/json/value.hpp>

#include <vector>

namespace trainer::detail {

/// Appends to `documents` the built-in ClusterTrainingRuntime of every TrainJob among them
/// (also inside `v1` Lists) whose `runtimeRef` names a ClusterTrainingRuntime that is not an
/// input itself but ships with libtrainer. Inputs always take precedence.
[[nodiscard]] Result<void> add_referenced_builtin_runtimes(
    std::vector<boost::json::value>& documents);

}  // namespace trainer::detail
