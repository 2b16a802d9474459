// SPDX-License-Identifier: Apache-2.0
//
// Training Operator v1 jobs (kubeflow.org/v1 PyTorchJob, TFJob, MPIJob, XGBoostJob, JAXJob,
// PaddleJob) converted to Trainer v2: a TrainJob plus, where no built-in runtime reproduces the
// job's pods, a TrainingRuntime generated next to it, with the env contract the v1 operator
// injected (MASTER_ADDR/RANK/WORLD_SIZE, TF_CONFIG, hostfile, ...) rebuilt on JobSet pod
// addresses. Also Katib `Experiment` (kubeflow.org/v1beta1) to OptimizationJob. Every v1 field
// without a v2 equivalent produces a warning naming its path; `strict` makes warnings errors.
// The mapping is docs/convert.md; the facts are
// ../shared/reference/training-operator-v1-and-tuning.md.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::convert {

/// Whether `apiVersion`/`kind` name a kind `convert_job` converts: the six Training Operator v1
/// jobs of `kubeflow.org/v1`, and Katib's `Experiment` of `kubeflow.org/v1beta1`.
[[nodiscard]] bool is_convertible(std::string_view api_version, std::string_view kind);

struct Options {
  /// Warnings are errors: the conversion fails with `kInvalid` and one field error per warning.
  bool strict = false;
  /// Namespace of a job that names none (kubectl's `--namespace`); empty: `default`.
  std::string namespace_;
};

struct Conversion {
  /// What replaces the job, in apply order: a generated TrainingRuntime (when no built-in
  /// runtime reproduces the job), then the TrainJob; for an Experiment, the OptimizationJob.
  std::vector<boost::json::value> objects;
  /// One per field that v2 cannot express, naming its path:
  /// `PyTorchJob default/mnist: spec.runPolicy.cleanPodPolicy: "All" has no Trainer v2
  /// equivalent; pods are kept until the TrainJob is deleted`.
  std::vector<std::string> warnings;
};

/// Converts one job (a decoded JSON document of a kind `is_convertible` accepts). Errors:
/// `kInvalid` with field errors (paths in the v1 object) for what Training Operator v1's own
/// webhook refuses, for what cannot be converted at all, and for warnings under `strict`;
/// `kUnsupported` for another kind.
[[nodiscard]] Result<Conversion> convert_job(const boost::json::value& job,
                                             const Options& options = {});

/// Every convertible document of `documents` replaced, in place, by its conversion's objects;
/// other documents are kept as they are. This is what `trainerctl run|render|validate|apply` do
/// on the way in. Warnings go to `on_warning` (may be empty). The first failing document fails
/// the call.
[[nodiscard]] Result<std::vector<boost::json::value>> convert_documents(
    std::vector<boost::json::value> documents, const Options& options,
    const std::function<void(std::string_view)>& on_warning);

}  // namespace trainer::convert
