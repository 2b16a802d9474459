// SPDX-License-Identifier: Apache-2.0
//
// MPIJob v1 (reference 1.2, 2.4, 3.1): Launcher and Worker become the `launcher` and `node`
// replicatedJobs of a runtime with mlPolicy.mpi (Open MPI over SSH, the hostfile of
// `<job>-node-0-<i>.<job> slots=<slotsPerWorker>` lines from the MPI plugin). v1 ran mpirun
// through `kubectl exec` into sleeping workers; v2 reaches them over SSH, so the workers run an
// SSH server: a Worker without a command gets `/usr/sbin/sshd -De` (a warning says so).
#include "convert/v1_kinds.hpp"
#include "trainer/json_path.hpp"

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_array;
using trainer::find_object;
using trainer::find_string;

namespace {

// The container v1 treated as the main one: `spec.mainContainer` by name, else index 0.
std::size_t main_container(const V1Job& job, const Role& role) {
  const auto main = find_string(job.spec, "mainContainer");
  const auto* spec = find_object(role.pod_template, "spec");
  const auto* containers = spec != nullptr ? find_array(*spec, "containers") : nullptr;
  if (main && containers != nullptr) {
    for (std::size_t i = 0; i < containers->size(); ++i) {
      if ((*containers)[i].is_object() &&
          find_string((*containers)[i].get_object(), "name") == *main) {
        return i;
      }
    }
  }
  return 0;
}

Plan mpi_plan(const V1Job& job, Diagnostics& diag) {
  Plan p;
  const Role* launcher = job.role("Launcher");
  const Role* worker = job.role("Worker");
  if (launcher == nullptr) {
    diag.refuse(field_required("spec.mpiReplicaSpecs[Launcher]", "must be present"));
    return p;
  }
  if (launcher->replicas != 1) {
    diag.refuse(
        field_invalid(launcher->path + ".replicas", json::value(launcher->replicas), "must be 1"));
    return p;
  }
  std::int64_t slots = 1;
  if (const auto* s = job.spec.if_contains("slotsPerWorker"); s != nullptr && !s->is_null()) {
    const auto n = read_count(*s, "spec.slotsPerWorker", 1, diag);
    if (!n) return p;
    slots = *n;
  }
  p.ml_policy["mpi"] = json::object{
      {"numProcPerNode", slots}, {"mpiImplementation", "OpenMPI"}, {"runLauncherAsNode", false}};
  Group l = make_group("launcher", launcher, 1, false);
  l.rename_to_node = main_container(job, *launcher);
  p.groups.push_back(std::move(l));
  if (worker != nullptr && worker->replicas > 0) {
    Group w = make_group("node", worker, worker->replicas, true);
    const std::size_t i = main_container(job, *worker);
    w.rename_to_node = i;
    w.default_command = json::array{"/usr/sbin/sshd", "-De"};
    const auto* containers = find_array(*find_object(worker->pod_template, "spec"), "containers");
    if (!containers->at(i).get_object().contains("command")) {
      diag.warn(worker->path + ".template.spec.containers[" + std::to_string(i) + "].command",
                json::value(nullptr),
                "is empty (v1 ran `sleep 365d` and used kubectl exec); Trainer v2 starts MPI "
                "processes over SSH, so the Worker runs `/usr/sbin/sshd -De`");
    }
    p.groups.push_back(std::move(w));
  } else {
    p.groups.front().trainer_ancestor = true;
  }
  if (const auto* m = job.spec.if_contains("mainContainer")) {
    diag.warn("spec.mainContainer", *m,
              "is renamed `node` in the Launcher and Worker pods (the MPI plugin configures "
              "the container named node)");
  }
  p.success_targets = {"launcher"};
  return p;
}

}  // namespace

const KindConverter& mpi_converter() {
  KindInfo info{"MPIJob",
                "mpiReplicaSpecs",
                "mpi",
                "mpi-port",
                9999,
                "Never",
                {"Launcher", "Worker"},
                "mpijob-controller"};
  info.needs_default_container = false;
  info.add_port = false;
  info.default_replicas_worker = 0;
  static const KindConverter c{
      info, mpi_plan, {"slotsPerWorker", "mainContainer", "cleanPodPolicy"}};
  return c;
}

}  // namespace trainer::convert::detail
