// SPDX-License-Identifier: Apache-2.0
//
// The `Torch` plugin (kubeflow/trainer pkg/runtime/framework/plugins/torch): active when the
// runtime's `mlPolicy.torch` is set. EnforceMLPolicy sets the trainer node count, torchrun's
// PET_* env contract, port 29500, the envInjection targets and the torchtune command rewrite;
// CustomValidation checks envInjection targets, reserved env names and the torchtune rules.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_torch_plugin();

}  // namespace trainer::plugins
