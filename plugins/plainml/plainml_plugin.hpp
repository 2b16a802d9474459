// SPDX-License-Identifier: Apache-2.0
//
// The `PlainML` plugin (kubeflow/trainer pkg/runtime/framework/plugins/plainml): the fallback
// that acts when the runtime has no torch, mpi or jax policy (so also for xgboost, flux and no
// mlPolicy): the trainer node count from `spec.trainer.numNodes` and `spec.trainer.env`.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_plainml_plugin();

}  // namespace trainer::plugins
