// SPDX-License-Identifier: Apache-2.0
//
// Starting pod inits through one `trainer-pod launch` process per executor process
// (launch_protocol.hpp): it forks each init instead of the executor starting the helper anew
// for every pod, which saves the helper's exec and libc start per pod (docs/local.md,
// "Performance"). The inits are the executor process's children all the same.
#pragma once

#include "local/pod_spawn.hpp"
#include "trainer/error.hpp"

#include <string>
#include <vector>

namespace trainer::local::detail {

/// Starts the process's launcher from `helper` in the background unless one runs or is being
/// started (or could not start from that helper before); returns at once. A run calls it as soon
/// as it knows its helper, so the launcher's exec overlaps the run's own preparation.
void prepare_pod_launcher(const std::string& helper);

/// Starts each request (a `trainer-pod init` of the same helper, `requests[i].path`) as
/// `spawn_helper` does, forked by the process's launcher: the same namespaces, descriptors,
/// process group and blocked signals, and the executor process is its parent. Its
/// PR_SET_PDEATHSIG is armed toward the launcher's owner, a thread that lives as long as the
/// process (pods still die with the process, however it ends). The launcher is started from
/// the requests' helper unless `prepare_pod_launcher` did; a request it does not take (another
/// helper, a launcher that could not start from this one or went away) goes to `spawn_helper`.
/// Returns one result per request, in order: `spawn_helper`'s errors, and kIo
/// ("fork: the pod launcher gave no answer ...") when the launcher took a request and did not
/// answer. Thread-safe: batches are served one at a time.
[[nodiscard]] std::vector<Result<Spawned>> launch_pod_inits(
    const std::vector<SpawnRequest>& requests);

}  // namespace trainer::local::detail
