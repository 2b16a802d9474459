// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainer::detail {

/// Appends to `documents` the built-in ClusterTrainingRuntime of every TrainJob among them
/// (also inside `v1` Lists) whose `runtimeRef` names a ClusterTrainingRuntime that is not an
/// input itself but ships with libtrainer. Inputs always take precedence.
[[nodiscard]] Result<void> add_referenced_builtin_runtimes(
    std::vector<boost::json::value>& documents);

/// The sentence that tells a caller whose TrainJob references a ClusterTrainingRuntime that is
/// not among the inputs that the runtime ships with libtrainer and how to use it, starting with
/// "; " so that it can follow the not-found text; "" when `ref` (CRD defaults applied: apiGroup
/// trainer.kubeflow.org, kind ClusterTrainingRuntime) names no built-in runtime. Every face's
/// not-found error appends it, so it names each face's switch: trainerctl's
/// `--builtin-runtimes` and the `builtin_runtimes` option (AdmissionOptions, the C ABI's
/// trainer_render_options, the bindings' BuiltinRuntimes). `for_cluster`: the runtime was not
/// in the cluster either (`cluster::apply`), so the sentence says to install it there.
[[nodiscard]] std::string builtin_runtime_hint(const RuntimeRef& ref, bool for_cluster = false);

}  // namespace trainer::detail
