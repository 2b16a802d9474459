// SPDX-License-Identifier: Apache-2.0
//
// MPI plugin (upstream pkg/runtime/framework/plugins/mpi/mpi.go), active when the runtime sets
// `mlPolicy.mpi`. Only Open MPI is implemented, as upstream.
//
// - CustomValidation: M1 (`trainer.numNodes` >= 2 with `runLauncherAsNode` needs PodSets
//   `launcher` and `node`) and M2 (the four reserved `OMPI_MCA_*` names in `trainer.env`).
// - EnforceMLPolicy: the `node` PodSet count (`numNodes`, minus one with `runLauncherAsNode`),
//   the slot count written back into `mlPolicy.mpi.numProcPerNode` (TrainJob value, else the GPU
//   count when the runtime says 1, else the runtime value), the `mpi-ssh-auth` and
//   `mpi-hostfile` volumes, mounts and the launcher's `OMPI_MCA_*` env (reference 4.3.2).
//   A `mpiImplementation` other than `OpenMPI` is refused (kUnsupported) before anything changes.
// - Build: Secret `<job>-mpi-ssh-auth` (only when `PluginContext::find` has none; key from
//   `RenderContext::generate_ssh_key`, or a fresh one from trainer/ssh.hpp when unset) and
//   ConfigMap `<job>-mpi-hostfile` (`<endpoint> slots=<n>` per host in template order).
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_mpi_plugin();

}  // namespace trainer::plugins
