// SPDX-License-Identifier: Apache-2.0
//
// The JobSet plugin (upstream pkg/runtime/framework/plugins/jobset, reference 4.1): admission
// rules J1-J14, pod network endpoints and parallelism (PreBuildSync), and the JobSet itself.
// Implements CustomValidationPlugin, PreComponentBuilderPlugin and ComponentBuilderPlugin.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer {

/// Registry name `JobSet`.
[[nodiscard]] std::unique_ptr<Plugin> make_jobset_plugin();

}  // namespace trainer
