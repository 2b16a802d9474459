// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <catch2/catch.hpp>

using trainer::test::rendered;
using trainer::test::valid_job;
using trainer::test::valid_runtime;
using Strings = std::vector<std::string>;

TEST_CASE("runtime resolution: unsupported group/kind", "[validation][reference]") {
  auto job = valid_job();
  job.spec.runtime_ref.kind = "MyRuntime";
  job.spec.runtime_ref.api_group = "example.com";
  auto r = trainer::validate_train_job_runtime(job, {});
  REQUIRE(!r);
  CHECK(r.error().code == trainer::ErrorCode::kInvalid);
  CHECK(r.error().message == "unsupported runtime: MyRuntime.example.com");
  CHECK(r.error().fields.empty());

  job.spec.runtime_ref.api_group = "";
  job.spec.runtime_ref.kind = "TrainingRuntime";
  r = trainer::validate_train_job_runtime(job, {});
  REQUIRE(!r);
  CHECK(r.error().message == "unsupported runtime: TrainingRuntime");
}

TEST_CASE("runtime resolution: ClusterTrainingRuntime", "[validation][reference]") {
  auto job = valid_job();
  const auto ctr = valid_runtime<trainer::ClusterTrainingRuntime>("torch-distributed");
  auto r = trainer::validate_train_job_runtime(job, {nullptr, &ctr});
  REQUIRE(r);
  CHECK(r->ok());
  CHECK(r->warnings.empty());

  r = trainer::validate_train_job_runtime(job, {});
  REQUIRE(r);
  CHECK(rendered(*r) ==
        Strings{"spec.RuntimeRef: Invalid value: {\"name\":\"torch-distributed\",\"apiGroup\":"
                "\"trainer.kubeflow.org\",\"kind\":\"ClusterTrainingRuntime\"}: "
                "clustertrainingruntimes.trainer.kubeflow.org \"torch-distributed\" not found: "
                "specified clusterTrainingRuntime must be created before the TrainJob is created"});

  const auto other = valid_runtime<trainer::ClusterTrainingRuntime>("other");
  r = trainer::validate_train_job_runtime(job, {nullptr, &other});
  REQUIRE(r);
  CHECK(r->errors.size() == 1);
}

TEST_CASE("runtime resolution: deprecated ClusterTrainingRuntime warns",
          "[validation][reference]") {
  auto job = valid_job();
  auto ctr = valid_runtime<trainer::ClusterTrainingRuntime>("torch-distributed");
  ctr.metadata.labels["trainer.kubeflow.org/support"] = "deprecated";
  const auto r = trainer::validate_train_job_runtime(job, {nullptr, &ctr});
  REQUIRE(r);
  CHECK(r->ok());
  CHECK(r->warnings ==
        Strings{"Referenced ClusterTrainingRuntime \"torch-distributed\" is deprecated and will be "
                "removed in a future release of Kubeflow Trainer. See runtime deprecation policy: "
                "https://trainer.kubeflow.org/en/latest/operator-guides/"
                "runtime.html#runtime-deprecation-policy"});
}

TEST_CASE("runtime resolution: TrainingRuntime must be in the job's namespace",
          "[validation][reference]") {
  auto job = valid_job();
  job.spec.runtime_ref.kind = "TrainingRuntime";
  auto tr = valid_runtime<trainer::TrainingRuntime>("torch-distributed");
  tr.metadata.namespace_ = "team";
  auto r = trainer::validate_train_job_runtime(job, {&tr, nullptr});
  REQUIRE(r);
  CHECK(r->ok());

  // Deprecation warnings exist only for ClusterTrainingRuntime references.
  tr.metadata.labels["trainer.kubeflow.org/support"] = "deprecated";
  r = trainer::validate_train_job_runtime(job, {&tr, nullptr});
  REQUIRE(r);
  CHECK(r->warnings.empty());

  const std::string missing =
      "spec.runtimeRef: Invalid value: {\"name\":\"torch-distributed\",\"apiGroup\":"
      "\"trainer.kubeflow.org\",\"kind\":\"TrainingRuntime\"}: "
      "trainingruntimes.trainer.kubeflow.org \"torch-distributed\" not found: specified "
      "trainingRuntime must be created before the TrainJob is created";
  tr.metadata.namespace_ = "elsewhere";
  r = trainer::validate_train_job_runtime(job, {&tr, nullptr});
  REQUIRE(r);
  CHECK(rendered(*r) == Strings{missing});

  // Without a namespace an object is in "default".
  job.metadata.namespace_.reset();
  tr.metadata.namespace_ = "default";
  r = trainer::validate_train_job_runtime(job, {&tr, nullptr});
  REQUIRE(r);
  CHECK(r->ok());
  job.metadata.namespace_ = "default";
  tr.metadata.namespace_.reset();
  r = trainer::validate_train_job_runtime(job, {&tr, nullptr});
  REQUIRE(r);
  CHECK(r->ok());
  job.metadata.namespace_ = "team";

  // A ClusterTrainingRuntime of the same name does not satisfy a TrainingRuntime reference.
  const auto ctr = valid_runtime<trainer::ClusterTrainingRuntime>("torch-distributed");
  r = trainer::validate_train_job_runtime(job, {nullptr, &ctr});
  REQUIRE(r);
  CHECK(rendered(*r) == Strings{missing});
}
