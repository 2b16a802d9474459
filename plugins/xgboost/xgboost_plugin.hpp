// SPDX-License-Identifier: Apache-2.0
//
// The `XGBoost` plugin (kubeflow/trainer pkg/runtime/framework/plugins/xgboost): active when
// the runtime's `mlPolicy.xgboost` is set. Sets the trainer node count, the DMLC_* tracker env
// (workers = nodes x max(GPUs, 1)) and port 29500; rejects reserved DMLC_* names in trainer env.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_xgboost_plugin();

}  // namespace trainer::plugins
