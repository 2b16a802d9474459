// SPDX-License-Identifier: Apache-2.0
//
// The `Flux` plugin (kubeflow/trainer pkg/runtime/framework/plugins/flux): active when the
// runtime's `mlPolicy.flux` is set. Wraps the trainer command in the Flux entrypoint, adds the
// flux-installer init container, volumes and mounts to the `node` PodSet, and builds the
// `<job>-flux-entrypoint` ConfigMap and the `<job>-flux-curve` CURVE certificate Secret.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_flux_plugin();

}  // namespace trainer::plugins
