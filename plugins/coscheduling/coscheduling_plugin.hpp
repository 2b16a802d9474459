// SPDX-License-Identifier: Apache-2.0
//
// CoScheduling plugin (upstream pkg/runtime/framework/plugins/coscheduling): gang scheduling with
// the scheduler-plugins PodGroup `scheduling.x-k8s.io/v1alpha1`, active when the runtime sets
// `podGroupPolicy.coscheduling`.
//
// - EnforcePodGroupPolicy: pod label `scheduling.x-k8s.io/pod-group: <job>` on every pod template.
// - Build: PodGroup `<ns>/<job>` with `minMember` = Σ PodSet counts (initializers included),
//   `minResources` = Σ single-pod requests × count (always present, possibly `{}`),
//   `scheduleTimeoutSeconds` from the policy (60 when unset), and a controller owner reference to
//   the TrainJob. Nothing is built when the PodGroup already exists (`PluginContext::find`) and the
//   TrainJob is not suspended.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_coscheduling_plugin();

}  // namespace trainer::plugins
