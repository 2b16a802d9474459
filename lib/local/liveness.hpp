// SPDX-License-Identifier: Apache-2.0
//
// Is the executor of a run folder still alive? The executor records who it is in state.json
// (`executor`: pid, start time, boot id, PID namespace); a reader of the folder compares that
// with /proc, so a SIGKILLed executor is reported as gone instead of `Running` forever, and a
// recycled PID is not mistaken for it.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <sys/types.h>

namespace trainer::local::detail {

/// This process as state.json records it: `{"pid", "startTime" (clock ticks after boot,
/// /proc/<pid>/stat field 22), "bootId", "pidNamespace"}`.
[[nodiscard]] boost::json::object executor_identity();

/// What /proc says about a recorded executor.
enum class Liveness {
  kAlive,    ///< the same process (pid and start time) runs
  kGone,     ///< no such process, or the pid belongs to a later process, or the host rebooted
  kUnknown,  ///< not decidable from here (another PID namespace, no /proc, no record)
};
[[nodiscard]] Liveness executor_liveness(const boost::json::value& identity);

/// For a state document of an unfinished run whose executor is gone: the run is `Failed` with
/// the condition reason `ExecutorLost`, every pod that was not finished is `Failed` with reason
/// `ExecutorLost`, `finished` is true and `executorLost` is set. Anything else is left as it is.
void mark_lost_executor(boost::json::value& state);

}  // namespace trainer::local::detail
