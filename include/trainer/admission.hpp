// SPDX-License-Identifier: Apache-2.0
//
// The admission path every entry point shares (trainerctl validate/render, the C ABI): decode
// each document, apply CRD defaults, run the schema/CEL rules and the webhooks, and validate each
// TrainJob against the runtime it references when that runtime is among the inputs.
#pragma once

#include "trainer/error.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainer {

/// The objects of one admission call, defaulted, in input order.
struct ObjectSet {
  std::vector<TrainJob> train_jobs;
  std::vector<TrainingRuntime> training_runtimes;
  std::vector<ClusterTrainingRuntime> cluster_training_runtimes;
  /// Objects of other kinds (PriorityClass, Secret, ...): what already exists in the cluster.
  std::vector<boost::json::value> other_objects;
};

/// What admission found: warnings (kubectl prints them as `Warning: <text>`) and, when the
/// objects are rejected, every field error of every object.
struct Admission {
  ObjectSet objects;
  std::vector<std::string> warnings;
  std::vector<FieldError> errors;

  [[nodiscard]] bool ok() const noexcept { return errors.empty(); }
};

/// Admits decoded documents (see `parse_documents`). Fails with `kParse` when a Trainer document
/// has the wrong shape (field path in the error), with `kInvalid` and no field errors for a
/// TrainJob whose runtimeRef names an unregistered kind (`unsupported runtime: <Kind>.<group>`),
/// and with `kInvalid` for documents without `apiVersion`/`kind` or with a kind of the
/// trainer.kubeflow.org group that libtrainer does not know. Rule violations are not failures:
/// they are reported in `Admission::errors`, all of them.
/// A TrainJob whose referenced runtime is not among the inputs is checked by its own rules only.
/// A `v1` `List` document is admitted item by item (kubectl does the same).
[[nodiscard]] Result<Admission> admit(const std::vector<boost::json::value>& documents);

/// The runtime of `objects` that `job.spec.runtimeRef` (defaulted) names: a TrainingRuntime in
/// the job's namespace (namespace "default" when unset) or a ClusterTrainingRuntime.
struct RuntimeRefMatch {
  const TrainingRuntime* training_runtime = nullptr;
  const ClusterTrainingRuntime* cluster_training_runtime = nullptr;
  [[nodiscard]] bool found() const noexcept {
    return training_runtime != nullptr || cluster_training_runtime != nullptr;
  }
};
[[nodiscard]] RuntimeRefMatch find_runtime(const ObjectSet& objects, const TrainJob& job);

}  // namespace trainer
