// SPDX-License-Identifier: Apache-2.0
//
// The built-in plugin registry (upstream pkg/runtime/framework/plugins/registry.go), explicit:
// no self-registering statics. The listing order is the order of the plugins within every
// phase (docs/framework.md):
//   validation   JobSet, Torch, MPI, JAX, XGBoost, Flux, Volcano
//   ML policy    Torch, MPI, JAX, XGBoost, Flux, PlainML
//   pod groups   CoScheduling, Volcano
//   pod spec     TrainJobStatus
//   pre-build    JobSet
//   build        JobSet, MPI, Flux, CoScheduling, Volcano, TrainJobStatus
#include "trainer/render.hpp"

#include "coscheduling/coscheduling_plugin.hpp"
#include "flux/flux_plugin.hpp"
#include "jax/jax_plugin.hpp"
#include "jobset/jobset_plugin.hpp"
#include "mpi/mpi_plugin.hpp"
#include "plainml/plainml_plugin.hpp"
#include "torch/torch_plugin.hpp"
#include "trainjobstatus/trainjobstatus_plugin.hpp"
#include "volcano/volcano_plugin.hpp"
#include "xgboost/xgboost_plugin.hpp"

namespace trainer {

Registry default_registry(const FeatureGates& gates) {
  Registry registry;
  registry.push_back({"JobSet", &make_jobset_plugin});
  registry.push_back({"Torch", &plugins::make_torch_plugin});
  registry.push_back({"MPI", &plugins::make_mpi_plugin});
  registry.push_back({"JAX", &plugins::make_jax_plugin});
  registry.push_back({"XGBoost", &plugins::make_xgboost_plugin});
  registry.push_back({"Flux", &plugins::make_flux_plugin});
  registry.push_back({"PlainML", &plugins::make_plainml_plugin});
  registry.push_back({"CoScheduling", &plugins::make_coscheduling_plugin});
  registry.push_back({"Volcano", &plugins::make_volcano_plugin});
  if (gates.trainjob_status) {
    registry.push_back({"TrainJobStatus", &plugins::make_trainjobstatus_plugin});
  }
  return registry;
}

namespace {

// The built-in plugins list only phases they implement, so this cannot fail.
Framework builtin_framework(const FeatureGates& gates) {
  return *Framework::from_registry(default_registry(gates), FrameworkOptions{gates, {}});
}

}  // namespace

const Framework& default_framework(const FeatureGates& gates) {
  // The built-in plugins keep no state between calls, so one Framework per gate setting serves
  // every render, from any thread; building it per render cost a dozen allocations each time.
  static const Framework without_status = builtin_framework({});
  static const Framework with_status = builtin_framework(FeatureGates{/*trainjob_status=*/true});
  return gates.trainjob_status ? with_status : without_status;
}

}  // namespace trainer
