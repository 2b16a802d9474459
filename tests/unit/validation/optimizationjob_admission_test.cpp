// SPDX-License-Identifier: Apache-2.0
//
// OptimizationJob through the one admission path (`trainer::admit`): its own CRD rules, then
// its trainJobTemplate admitted like a TrainJob against its runtime (webhook and plugins).
#include "test_support.hpp"
#include "trainer/admission.hpp"
#include "trainer/codec.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace {

std::string runtime_yaml(const std::string& ns) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: )" +
         ns + R"(}
spec:
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers: [{name: node, image: pytorch}]
)";
}

std::string opt_job_yaml(const std::string& spec_extra = {},
                         const std::string& template_extra = {}) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata: {name: tune, namespace: team}
spec:
  objectives: [{metric: loss}]
  parameters:
  - name: lr
    searchSpace: {logUniform: {min: "0.001", max: "0.1"}}
)" + spec_extra +
         R"(  trainJobTemplate:
    spec:
      runtimeRef: {name: rt, kind: TrainingRuntime}
)" + template_extra;
}

std::vector<std::string> rendered(const std::vector<trainer::FieldError>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.to_string());
  return out;
}

}  // namespace

TEST_CASE("admit types, defaults and admits an OptimizationJob with its runtime",
          "[admission][optimizationjob]") {
  REQUIRE(trainer::trainer_kind("trainer.kubeflow.org/v1alpha1", "OptimizationJob") ==
          trainer::TrainerKind::kOptimizationJob);
  auto adm =
      trainer::admit(trainer::test::documents(runtime_yaml("team") + "---\n" + opt_job_yaml()));
  REQUIRE(adm);
  CHECK(adm->ok());
  CHECK(adm->warnings.empty());
  REQUIRE(adm->objects.optimization_jobs.size() == 1);
  const auto& job = adm->objects.optimization_jobs[0];
  CHECK(job.spec.num_trials == 1);
  CHECK(job.spec.search_algorithm->random);
  CHECK(job.spec.train_job_template.spec.managed_by == trainer::kManagedByTrainer);
}

TEST_CASE("admit reports an OptimizationJob's CRD rule errors", "[admission][optimizationjob]") {
  auto adm = trainer::admit(trainer::test::documents(
      runtime_yaml("team") + "---\n" +
      opt_job_yaml("  numTrials: 2\n  parallelTrials: 3\n", "      activeDeadlineSeconds: 0\n")));
  REQUIRE(adm);
  CHECK(rendered(adm->errors) ==
        std::vector<std::string>{
            "spec.trainJobTemplate.spec.activeDeadlineSeconds: Invalid value: 0: "
            "spec.trainJobTemplate.spec.activeDeadlineSeconds in body should be greater than or "
            "equal to 1",
            "spec: Invalid value: parallelTrials cannot exceed numTrials"});
}

TEST_CASE("admit checks the trainJobTemplate against its runtime like a TrainJob",
          "[admission][optimizationjob]") {
  SECTION("a runtime that is not among the inputs is a warning") {
    auto adm = trainer::admit(trainer::test::documents(opt_job_yaml()));
    REQUIRE(adm);
    CHECK(adm->ok());
    REQUIRE(adm->warnings.size() == 1);
    CHECK(adm->warnings[0] ==
          "OptimizationJob team/tune (trainJobTemplate) references TrainingRuntime \"rt\" in "
          "namespace \"team\", which is not among the inputs: the TrainJob template was not "
          "checked against it");
  }
  SECTION("a runtime in another namespace: the webhook's not-found error, under the template") {
    auto adm =
        trainer::admit(trainer::test::documents(runtime_yaml("other") + "---\n" + opt_job_yaml()));
    REQUIRE(adm);
    REQUIRE(adm->errors.size() == 1);
    CHECK(adm->errors[0].path == "spec.trainJobTemplate.spec.runtimeRef");
  }
  SECTION("the plugins' validation runs on the template") {
    auto adm = trainer::admit(trainer::test::documents(
        runtime_yaml("team") + "---\n" +
        opt_job_yaml({}, "      initializer: {model: {storageUri: 'hf://m'}}\n")));
    REQUIRE(adm);
    REQUIRE(adm->errors.size() == 1);
    CHECK(adm->errors[0].path.rfind("spec.trainJobTemplate.spec.", 0) == 0);
    CHECK(adm->errors[0].to_string().find("must have model-initializer job") != std::string::npos);
  }
  SECTION("render's kFail mode names the template's missing runtime") {
    trainer::AdmissionOptions options;
    options.missing_runtime = trainer::MissingRuntime::kFail;
    auto adm = trainer::admit(trainer::test::documents(opt_job_yaml()), {}, options);
    REQUIRE_FALSE(adm);
    CHECK(adm.error().code == trainer::ErrorCode::kNotFound);
    CHECK(adm.error().message.find("OptimizationJob team/tune (trainJobTemplate)") !=
          std::string::npos);
    REQUIRE_FALSE(adm.error().fields.empty());
    CHECK(adm.error().fields[0].path == "spec.trainJobTemplate.spec.runtimeRef");
  }
}

TEST_CASE("admit gives an OptimizationJob without namespace the call's namespace",
          "[admission][optimizationjob]") {
  std::string text = opt_job_yaml();
  text.replace(text.find(", namespace: team"), std::string(", namespace: team").size(), "");
  trainer::AdmissionOptions options;
  options.namespace_ = "team";
  auto adm =
      trainer::admit(trainer::test::documents(runtime_yaml("team") + "---\n" + text), {}, options);
  REQUIRE(adm);
  CHECK(adm->ok());
  CHECK(adm->objects.optimization_jobs.at(0).metadata.namespace_ == "team");
}

TEST_CASE("builtin_runtimes adds the built-in runtime an OptimizationJob's template references",
          "[admission][optimizationjob]") {
  std::string text = opt_job_yaml();
  text.replace(text.find("{name: rt, kind: TrainingRuntime}"),
               std::string("{name: rt, kind: TrainingRuntime}").size(),
               "{name: torch-distributed}");
  trainer::AdmissionOptions options;
  options.builtin_runtimes = true;
  auto adm = trainer::admit(trainer::test::documents(text), {}, options);
  REQUIRE(adm);
  CHECK(adm->ok());
  CHECK(adm->warnings.empty());
  CHECK(adm->objects.cluster_training_runtimes.size() == 1);
}

TEST_CASE("admission: strict field validation refuses unknown fields with the API server's text") {
  const std::string job = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: typo}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNode: 2, numProcPerNod: 1}
)";
  trainer::AdmissionOptions options;
  std::vector<std::string> warnings;
  options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
  options.builtin_runtimes = true;
  auto warned = trainer::admit(trainer::test::documents(job), {}, options);
  REQUIRE(warned);
  CHECK(warned->ok());
  CHECK(warnings.at(0) == R"(unknown field "spec.trainer.numNode")");
  options.strict_fields = true;
  auto strict = trainer::admit(trainer::test::documents(job), {}, options);
  REQUIRE_FALSE(strict);
  CHECK(strict.error().code == trainer::ErrorCode::kParse);
  CHECK(
      strict.error().message ==
      R"(TrainJob in version "v1alpha1" cannot be handled as a TrainJob: strict decoding )"
      R"(error: unknown field "spec.trainer.numNode", unknown field "spec.trainer.numProcPerNod")");
}

TEST_CASE("admission: a runtime missing from a known set is refused with the closest name") {
  const std::string job = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: typo, namespace: team}
spec:
  runtimeRef: {name: torch-distributd}
)";
  trainer::AdmissionOptions options;
  std::vector<std::string> warnings;
  options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
  // No runtime source: admitted, the runtime not checked.
  auto unchecked = trainer::admit(trainer::test::documents(job), {}, options);
  REQUIRE(unchecked);
  CHECK(unchecked->ok());
  CHECK(warnings.at(0).find("the TrainJob was not checked against it") != std::string::npos);
  warnings.clear();
  // The built-in runtimes are the source: misspelt.
  options.builtin_runtimes = true;
  auto builtin = trainer::admit(trainer::test::documents(job), {}, options);
  REQUIRE(builtin);
  REQUIRE(builtin->errors.size() == 1);
  CHECK(builtin->errors[0].path == "spec.RuntimeRef");
  CHECK(warnings.at(0) ==
        R"(TrainJob team/typo references ClusterTrainingRuntime "torch-distributd", which is )"
        R"(neither among the inputs nor a built-in runtime; did you mean "torch-distributed"?)");
  // A TrainingRuntime of the TrainJob's namespace given: the same for that kind.
  warnings.clear();
  options.builtin_runtimes = false;
  const std::string tr_job = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: typo, namespace: team}
spec:
  runtimeRef: {name: rtt, kind: TrainingRuntime}
)";
  auto given = trainer::admit(trainer::test::documents(runtime_yaml("team") + "---\n" + tr_job), {},
                              options);
  REQUIRE(given);
  REQUIRE(given->errors.size() == 1);
  CHECK(given->errors[0].path == "spec.runtimeRef");
  CHECK(warnings.back().find(R"(; did you mean "rt"?)") != std::string::npos);
}
