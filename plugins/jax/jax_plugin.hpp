// SPDX-License-Identifier: Apache-2.0
//
// The `JAX` plugin (kubeflow/trainer pkg/runtime/framework/plugins/jax): active when the
// runtime's `mlPolicy.jax` is set. Sets the trainer node count, JAX_NUM_PROCESSES,
// JAX_PROCESS_ID, JAX_COORDINATOR_ADDRESS and port 29500. Its validation accepts everything.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_jax_plugin();

}  // namespace trainer::plugins
