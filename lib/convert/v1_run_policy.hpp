// SPDX-License-Identifier: Apache-2.0
//
// `spec.runPolicy` (and MPIJob's deprecated `spec.cleanPodPolicy`) mapped onto the TrainJob and
// the generated runtime (reference 3.5), and the replica `restartPolicy` onto Job failure
// handling. What v2 cannot express is a warning naming the v1 path.
#pragma once

#include "convert/diagnostics.hpp"
#include "convert/v1_job.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>

namespace trainer::convert::detail {

struct RunPolicyMapping {
  /// Fields of the TrainJob's spec: suspend, activeDeadlineSeconds, managedBy.
  boost::json::object train_job_spec;
  /// Fields of the runtime's JobSet spec: ttlSecondsAfterFinished.
  boost::json::object jobset_spec;
  /// The runtime's `podGroupPolicy` (empty: none).
  boost::json::object pod_group_policy;
  /// Annotations of the runtime template (the Volcano queue).
  boost::json::object template_annotations;
  std::optional<std::int64_t> backoff_limit;
};

[[nodiscard]] RunPolicyMapping map_run_policy(const V1Job& job, Diagnostics& diag);

/// Sets the pod template's `restartPolicy` and the Job's `backoffLimit`/`podFailurePolicy` for
/// `role`'s restartPolicy (reference 2.8): Always/OnFailure restart in place, Never fails the
/// Job at the first failure, ExitCode fails it on exit codes 1-127 of the default container
/// and recreates the pod for the others.
/// `container`: the default container's name in the converted pod (MPI renames it `node`).
void map_restart_policy(const Role& role, std::string_view container,
                        const std::optional<std::int64_t>& backoff_limit,
                        boost::json::object& job_spec, boost::json::object& pod_spec,
                        Diagnostics& diag);

}  // namespace trainer::convert::detail
