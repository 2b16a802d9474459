// SPDX-License-Identifier: Apache-2.0
//
// A built-in ClusterTrainingRuntime instead of a generated one, where it reproduces the job's
// pods (docs/convert.md, "Built-in runtimes"): a PyTorchJob, XGBoostJob or JAXJob whose
// replicas all run one template that TrainJob fields express (one container of the default
// name with image, command, args, env, resources and the default port; nothing else on the
// pod), restartPolicy OnFailure (what the built-ins' pods get), and a runPolicy the TrainJob
// carries alone.
#pragma once

#include "convert/v1_build.hpp"
#include "convert/v1_job.hpp"
#include "convert/v1_run_policy.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <vector>

namespace trainer::convert::detail {

/// [TrainJob] referencing torch-distributed, xgboost-distributed or jax-distributed, or nothing
/// when the generated runtime is needed.
[[nodiscard]] std::optional<std::vector<boost::json::value>> builtin_objects(
    const V1Job& job, const Plan& plan, const RunPolicyMapping& run_policy);

}  // namespace trainer::convert::detail
