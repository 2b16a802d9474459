// SPDX-License-Identifier: Apache-2.0
//
// kMaxPodsPerTrainJob and the MPI slot bound through the one admission path (`trainer::admit`),
// the render pipeline that may be called without it (`trainer::render`), and an
// OptimizationJob's parallel trials (docs/yaml.md, "Size of a TrainJob").
#include "test_support.hpp"
#include "trainer/admission.hpp"
#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/render.hpp"
#include "trainer/validation.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace {

// An initializer Job (one pod) and the trainer nodes, with `ml_policy` (YAML under `spec`).
std::string pod_limit_runtime_yaml(const std::string& ml_policy = {}) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
)" + ml_policy +
         R"(
  template:
    spec:
      replicatedJobs:
        - name: dataset-initializer
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}
            spec:
              template:
                spec:
                  containers: [{name: dataset-initializer, image: init}]
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

// An MPI runtime: a launcher Job (one pod) and the `node` Job.
std::string mpi_runtime_yaml(bool launcher_as_node) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
  mlPolicy:
    numNodes: 1
    mpi: {numProcPerNode: 1, runLauncherAsNode: )" +
         std::string(launcher_as_node ? "true" : "false") + R"(}
  template:
    spec:
      replicatedJobs:
        - name: launcher
          template:
            spec:
              template:
                spec:
                  containers: [{name: node, image: mpi}]
        - name: node
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers: [{name: node, image: mpi}]
)";
}

std::string job_yaml(const std::string& trainer) {
  return R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: big, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
)" + (trainer.empty() ? std::string() : "  trainer: " + trainer + "\n");
}

std::vector<std::string> admission_errors(const std::string& text) {
  auto admitted = trainer::admit(trainer::test::documents(text));
  REQUIRE(admitted);
  std::vector<std::string> out;
  for (const auto& e : admitted->errors) out.push_back(e.to_string());
  return out;
}

bool contains(const std::vector<std::string>& errors, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(),
                     [&](const std::string& e) { return e.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("numNodes beyond kMaxPodsPerTrainJob is refused without a runtime") {
  STATIC_REQUIRE(trainer::kMaxPodsPerTrainJob == 100000);
  auto job = trainer::decode_train_job(
      trainer::test::documents(job_yaml("{numNodes: 2147483647}")).front());
  REQUIRE(job);
  trainer::apply_defaults(job->object);
  const auto result = trainer::validate_train_job(job->object);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0].to_string() ==
        "spec.trainer.numNodes: Invalid value: 2147483647: must be no more than 100000, the most "
        "pods a TrainJob may have");
  // At the limit the TrainJob rule holds (the runtime decides the rest).
  auto at_limit =
      trainer::decode_train_job(trainer::test::documents(job_yaml("{numNodes: 100000}")).front());
  REQUIRE(at_limit);
  CHECK(trainer::validate_train_job(at_limit->object).ok());
}

TEST_CASE("admission counts the pods of every replicated job") {
  // 1 initializer pod + 99999 nodes = the limit.
  CHECK(
      admission_errors(pod_limit_runtime_yaml() + "---\n" + job_yaml("{numNodes: 99999}")).empty());
  // One more node is one pod too many.
  CHECK(admission_errors(pod_limit_runtime_yaml() + "---\n" + job_yaml("{numNodes: 100000}")) ==
        std::vector<std::string>{
            "spec.trainer.numNodes: Invalid value: 100000: the TrainJob would have 100001 pods "
            "across its replicated jobs, more than 100000, the most pods a TrainJob may have"});
  // The runtime's replicas count too; the TrainJob without numNodes is named by its field.
  std::string launchers = mpi_runtime_yaml(false);
  launchers.replace(launchers.find("- name: launcher\n"), 17,
                    "- name: launcher\n          replicas: 2147483647\n");
  CHECK(admission_errors(launchers + "---\n" + job_yaml({})) ==
        std::vector<std::string>{
            "spec.trainer.numNodes: Invalid value: null: the TrainJob would have 2147483648 pods "
            "across its replicated jobs, more than 100000, the most pods a TrainJob may have"});
  // The runtime's own numNodes, when the TrainJob sets none.
  CHECK(contains(admission_errors(pod_limit_runtime_yaml("  mlPolicy: {numNodes: 2147483647}") +
                                  "---\n" + job_yaml({})),
                 "would have 2147483648 pods"));
}

TEST_CASE("an MPI launcher that runs as a node is one of the numNodes pods") {
  CHECK(
      admission_errors(mpi_runtime_yaml(true) + "---\n" + job_yaml("{numNodes: 100000}")).empty());
  CHECK(
      contains(admission_errors(mpi_runtime_yaml(false) + "---\n" + job_yaml("{numNodes: 100000}")),
               "would have 100001 pods"));
}

TEST_CASE("MPI slots beyond a C int are refused") {
  const auto text =
      mpi_runtime_yaml(false) + "---\n" + job_yaml("{numNodes: 2, numProcPerNode: 1073741824}");
  CHECK(admission_errors(text) ==
        std::vector<std::string>{
            "spec.trainer.numProcPerNode: Invalid value: 1073741824: must be no more than "
            "1073741823: 2 nodes x 1073741824 slots is 2147483648 MPI processes, more than "
            "2147483647 (an MPI rank is a C int)"});
  CHECK(admission_errors(mpi_runtime_yaml(false) + "---\n" +
                         job_yaml("{numNodes: 2, numProcPerNode: 1073741823}"))
            .empty());
  // The runtime's slots: the TrainJob's numNodes is named.
  std::string runtime = mpi_runtime_yaml(false);
  runtime.replace(runtime.find("numProcPerNode: 1"), 17, "numProcPerNode: 2147483647");
  CHECK(contains(admission_errors(runtime + "---\n" + job_yaml("{numNodes: 2}")),
                 "spec.trainer.numNodes: Invalid value: 2: must be no more than 1: 2 nodes x "
                 "2147483647 slots is 4294967294 MPI processes"));
}

TEST_CASE("render refuses a TrainJob of too many pods fast, also without admission") {
  auto runtime =
      trainer::decode_training_runtime(trainer::test::documents(pod_limit_runtime_yaml()).front());
  REQUIRE(runtime);
  trainer::apply_defaults(runtime->object);
  auto job = trainer::decode_train_job(
      trainer::test::documents(job_yaml("{numNodes: 2147483647}")).front());
  REQUIRE(job);
  trainer::apply_defaults(job->object);
  trainer::RenderContext ctx;
  ctx.train_job_uid = "uid";
  const auto start = std::chrono::steady_clock::now();
  auto out = trainer::render(job->object, trainer::RuntimeLookup{&runtime->object, nullptr}, ctx);
  REQUIRE_FALSE(out);
  CHECK(out.error().code == trainer::ErrorCode::kInvalid);
  REQUIRE(out.error().fields.size() == 1);
  CHECK(out.error().fields[0].to_string() ==
        "spec.trainer.numNodes: Invalid value: 2147483647: the TrainJob would have 2147483648 pods "
        "across its replicated jobs, more than 100000, the most pods a TrainJob may have");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));

  auto documents =
      trainer::render_documents(trainer::test::documents(pod_limit_runtime_yaml() + "---\n" +
                                                         job_yaml("{numNodes: 2147483647}")),
                                ctx);
  REQUIRE_FALSE(documents);
  CHECK(documents.error().message.find("spec.trainer.numNodes: Invalid value: 2147483647: must be "
                                       "no more than 100000") != std::string::npos);
}

TEST_CASE("an OptimizationJob's parallel trials are one TrainJob's pods at most") {
  const auto opt = [](int parallel, int nodes) {
    return pod_limit_runtime_yaml() + R"(---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata: {name: tune, namespace: default}
spec:
  objectives: [{metric: loss}]
  parameters:
  - name: lr
    searchSpace: {logUniform: {min: "0.001", max: "0.1"}}
  numTrials: 10
  parallelTrials: )" +
           std::to_string(parallel) +
           R"(
  trainJobTemplate:
    spec:
      runtimeRef: {name: rt, kind: TrainingRuntime}
      trainer: {numNodes: )" +
           std::to_string(nodes) + "}\n";
  };
  // 2 x (1 + 49999) pods at once: the limit.
  CHECK(admission_errors(opt(2, 49999)).empty());
  CHECK(admission_errors(opt(3, 49999)) ==
        std::vector<std::string>{
            "spec.parallelTrials: Invalid value: 3: must be no more than 2: each trial has 50000 "
            "pods, and the trials that run at once may have at most 100000 pods, the most pods a "
            "TrainJob may have"});
  // A template beyond the limit is refused once, at its own field.
  CHECK(admission_errors(opt(1, 2147483647)) ==
        std::vector<std::string>{"spec.trainJobTemplate.spec.trainer.numNodes: Invalid value: "
                                 "2147483647: must be no more than 100000, the most pods a "
                                 "TrainJob may have"});
}
