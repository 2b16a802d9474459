// SPDX-License-Identifier: Apache-2.0
//
// CRD schema defaulting, as the API server applies it before admission (reference 1.13). A
// separate, explicit step: decoding never defaults.
#pragma once

#include "trainer/model.hpp"

namespace trainer {

/// `spec.suspend=false`, `spec.managedBy`, `spec.runtimeRef.apiGroup/kind`, initializer
/// `secretRef.name=""`.
void apply_defaults(TrainJob& job);
/// MPI/Flux/coscheduling/Volcano policy defaults, JobSet `replicatedJobs[].replicas=1` and
/// `groupName=default`, `failurePolicy.restartStrategy=Recreate` when a failurePolicy is given,
/// and container port `protocol=TCP` inside the pod templates.
void apply_defaults(TrainingRuntime& runtime);
void apply_defaults(ClusterTrainingRuntime& runtime);
/// `objectives[].direction=Minimize`, `searchAlgorithm={random: {}}`, `uniform`/`logUniform`
/// `type=Float`, `numTrials=1`, `parallelTrials=1`, and the TrainJob spec defaults above inside
/// `trainJobTemplate.spec`.
void apply_defaults(OptimizationJob& job);

}  // namespace trainer
