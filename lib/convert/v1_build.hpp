// SPDX-License-Identifier: Apache-2.0
//
// The generated TrainingRuntime `<job>-v1` and the TrainJob that references it, assembled from
// a per-kind plan: one replicatedJob per group (each an Indexed Job of `count` pods running the
// role's v1 pod template with the v1 env contract), the runPolicy mapping, and the JobSet
// success policy.
#pragma once

#include "convert/diagnostics.hpp"
#include "convert/v1_job.hpp"
#include "convert/v1_run_policy.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainer::convert::detail {

struct Plan {
  std::vector<Group> groups;
  /// The replicatedJobs whose success completes the job (JobSet successPolicy operator All).
  std::vector<std::string> success_targets;
  /// Added to the runtime's mlPolicy beside numNodes (MPI: `mpi`).
  boost::json::object ml_policy;
};

/// The name of the generated runtime: `<job>-v1`.
[[nodiscard]] std::string runtime_name(const V1Job& job);

/// [TrainingRuntime, TrainJob].
[[nodiscard]] std::vector<boost::json::value> build_objects(const V1Job& job, const Plan& plan,
                                                            RunPolicyMapping rp, Diagnostics& diag);

/// Warns about every key of `spec` that is neither the replica map, `runPolicy`, nor in
/// `handled` (fields the kind converter mapped itself).
void warn_unknown_spec_fields(const V1Job& job, const std::vector<std::string_view>& handled,
                              Diagnostics& diag);

}  // namespace trainer::convert::detail
