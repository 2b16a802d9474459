// SPDX-License-Identifier: Apache-2.0
//
// Volcano plugin (upstream pkg/runtime/framework/plugins/volcano): gang scheduling with Volcano's
// PodGroup `scheduling.volcano.sh/v1beta1`, active when the runtime sets `podGroupPolicy.volcano`.
//
// - Validation: `scheduling.volcano.sh/queue-name` present but empty in the JobSet annotations
//   (`spec.annotations[scheduling.volcano.sh/queue-name]`: `Volcano queue name must not be
//   empty`); every replicated job's pod `priorityClassName` must name an existing cluster-scoped
//   `scheduling.k8s.io/v1` PriorityClass (`spec.templateSpec.priorityClassName`: `PriorityClass
//   "<name>" doesn't exist: priorityclasses.scheduling.k8s.io "<name>" not found`).
//   `system-cluster-critical` and `system-node-critical` are built in and not looked up. Upstream
//   stops checking at the first of them (reference §9 Q11); libtrainer skips only that job and
//   goes on checking the later ones (docs/upstream-differences.md).
// - EnforcePodGroupPolicy: pod annotation `scheduling.k8s.io/group-name: <job>` on every pod
//   template.
// - Build: PodGroup `<ns>/<job>` with `minMember`/`minResources` as CoScheduling, `queue` from the
//   JobSet annotation `scheduling.volcano.sh/queue-name` when present, `priorityClassName` of the
//   last replicated job (template order) whose pod spec sets one, `networkTopology` {mode,
//   highestTierAllowed} from the policy, and a controller owner reference to the TrainJob. Same
//   skip rule as CoScheduling for an existing PodGroup.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_volcano_plugin();

}  // namespace trainer::plugins
