// SPDX-License-Identifier: Apache-2.0
//
// Info::runtime: which (Cluster)TrainingRuntime a TrainJob runs on, as out-of-tree plugins see
// it (they recognise their runtimes by its labels). Filled wherever an Info is made.
#pragma once

#include "trainer/admission.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

namespace trainer::detail {

template <class Runtime>
[[nodiscard]] RuntimeIdentity runtime_identity(const Runtime& runtime, const char* kind) {
  RuntimeIdentity id;
  id.kind = kind;
  id.name = runtime.metadata.name.value_or("");
  id.labels = runtime.metadata.labels;
  id.annotations = runtime.metadata.annotations;
  return id;
}

[[nodiscard]] inline RuntimeIdentity runtime_identity(const RuntimeRefMatch& match) {
  if (match.training_runtime != nullptr) {
    return runtime_identity(*match.training_runtime, kTrainingRuntimeKind);
  }
  if (match.cluster_training_runtime != nullptr) {
    return runtime_identity(*match.cluster_training_runtime, kClusterTrainingRuntimeKind);
  }
  return {};
}

}  // namespace trainer::detail
