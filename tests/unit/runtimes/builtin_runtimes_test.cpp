// SPDX-License-Identifier: Apache-2.0
#include "trainer/admission.hpp"
#include "trainer/codec.hpp"
#include "trainer/render.hpp"
#include "trainer/runtimes.hpp"
#include "trainer/ssh.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace json = boost::json;

namespace {

std::vector<json::value> docs(const std::string& text) {
  auto parsed = trainer::parse_documents(text);
  REQUIRE(parsed);
  return *parsed;
}

std::string job_yaml(const std::string& runtime, const std::string& trainer = {}) {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
         "metadata: {name: j, namespace: default}\n"
         "spec:\n  runtimeRef: {name: " +
         runtime + "}\n" + trainer;
}

trainer::RenderContext context() {
  trainer::RenderContext ctx;
  ctx.train_job_uid = "uid-1";
  ctx.generate_ssh_key = [] { return trainer::generate_ssh_key_pair(); };
  return ctx;
}

trainer::RenderDocumentsOptions with_builtins() {
  trainer::RenderDocumentsOptions options;
  options.builtin_runtimes = true;
  return options;
}

const json::value* find_kind(const std::vector<json::value>& objects, std::string_view kind) {
  for (const auto& o : objects) {
    if (o.at("kind").as_string() == kind) return &o;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("the built-in runtimes are upstream's default ClusterTrainingRuntimes, sorted") {
  std::vector<std::string> names;
  for (const auto& r : trainer::builtin_runtimes()) names.emplace_back(r.name);
  CHECK(names == std::vector<std::string>{"deepspeed-distributed", "jax-distributed",
                                          "mlx-distributed", "torch-distributed",
                                          "torchtune-llama3.2-1b", "torchtune-llama3.2-3b",
                                          "torchtune-qwen2.5-1.5b", "xgboost-distributed"});
  CHECK_FALSE(trainer::find_builtin_runtime("no-such-runtime"));
}

TEST_CASE("every built-in runtime is admitted and carries its own name and framework label") {
  for (const auto& r : trainer::builtin_runtimes()) {
    CAPTURE(r.name);
    const auto parsed = docs(std::string(r.yaml));
    REQUIRE(parsed.size() == 1);
    auto admitted = trainer::admit(parsed);
    REQUIRE(admitted);
    CHECK(admitted->ok());
    CHECK(admitted->warnings.empty());
    REQUIRE(admitted->objects.cluster_training_runtimes.size() == 1);
    const auto& runtime = admitted->objects.cluster_training_runtimes.front();
    CHECK(runtime.metadata.name == r.name);
    const auto framework = runtime.metadata.labels.at("trainer.kubeflow.org/framework");
    CHECK(std::string(r.name).rfind(framework + "-", 0) == 0);
  }
}

TEST_CASE("a TrainJob renders against a built-in runtime only when asked to") {
  const auto input = docs(job_yaml("torch-distributed", "  trainer: {numNodes: 2}\n"));
  SECTION("without the option the runtime is not found, and the error says how to use it") {
    auto out = trainer::render_documents(input, context());
    REQUIRE_FALSE(out);
    CHECK(out.error().code == trainer::ErrorCode::kNotFound);
    // Upstream's NotFound text first, then what was looked for, then the hint.
    CHECK_THAT(out.error().message,
               Catch::StartsWith("clustertrainingruntimes.trainer.kubeflow.org "
                                 "\"torch-distributed\" not found: TrainJob default/j "
                                 "references ClusterTrainingRuntime \"torch-distributed\""));
    CHECK_THAT(out.error().message,
               Catch::EndsWith("; \"torch-distributed\" is a built-in ClusterTrainingRuntime of "
                               "libtrainer: add --builtin-runtimes (trainerctl) or set the "
                               "builtin_runtimes option to use it"));
    // The field error stays upstream's webhook error, its not-found text first.
    REQUIRE(out.error().fields.size() == 1);
    CHECK_THAT(out.error().fields[0].detail,
               Catch::StartsWith(
                   "clustertrainingruntimes.trainer.kubeflow.org \"torch-distributed\" not found"));
  }
  SECTION("validation without the option warns that the job was not checked, with the hint") {
    auto out = trainer::admit(input, context());
    REQUIRE(out);
    CHECK(out->ok());
    REQUIRE(out->warnings.size() == 1);
    CHECK_THAT(out->warnings[0],
               Catch::Contains("is a built-in ClusterTrainingRuntime of libtrainer"));
  }
  SECTION("with it, the torch runtime's JobSet is rendered") {
    auto out = trainer::render_documents(input, context(), with_builtins());
    REQUIRE(out);
    const auto* jobset = find_kind(out->objects, "JobSet");
    REQUIRE(jobset != nullptr);
    const auto& rjob = jobset->at("spec").at("replicatedJobs").at(0);
    CHECK(rjob.at("name") == "node");
    CHECK(rjob.at("template").at("spec").at("parallelism") == 2);
    const auto& container =
        rjob.at("template").at("spec").at("template").at("spec").at("containers").at(0);
    CHECK(container.at("image") == "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime");
  }
}

TEST_CASE("a runtime among the inputs takes precedence over the built-in one") {
  const std::string own = R"(---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-distributed}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
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
                  containers: [{name: node, image: "own/image:1"}]
)";
  auto out = trainer::render_documents(docs(job_yaml("torch-distributed") + own), context(),
                                       with_builtins());
  REQUIRE(out);
  const auto* jobset = find_kind(out->objects, "JobSet");
  REQUIRE(jobset != nullptr);
  CHECK(jobset->at("spec")
            .at("replicatedJobs")
            .at(0)
            .at("template")
            .at("spec")
            .at("template")
            .at("spec")
            .at("containers")
            .at(0)
            .at("image") == "own/image:1");
}

TEST_CASE("deepspeed-distributed renders an MPI job with its Secret and hostfile") {
  auto out = trainer::render_documents(
      docs(job_yaml("deepspeed-distributed", "  trainer: {numNodes: 2, numProcPerNode: 2}\n")),
      context(), with_builtins());
  REQUIRE(out);
  const auto* hostfile = find_kind(out->objects, "ConfigMap");
  REQUIRE(hostfile != nullptr);
  bool found_hostfile = false;
  for (const auto& o : out->objects) {
    if (o.at("metadata").at("name") != "j-mpi-hostfile") continue;
    found_hostfile = true;
    // Template order: the node job before the launcher (reference 4.3).
    CHECK(o.at("data").at("hostfile") == "j-node-0-0.j slots=2\nj-launcher-0-0.j slots=2\n");
  }
  CHECK(found_hostfile);
  const auto* secret = find_kind(out->objects, "Secret");
  REQUIRE(secret != nullptr);
  CHECK(secret->at("metadata").at("name") == "j-mpi-ssh-auth");
}

// The Kubeflow SDK's BuiltinTrainer (TorchTuneConfig) sends `tune run` to these runtimes.
TEST_CASE("a torchtune runtime rewrites `tune run` as upstream and keeps its initializers") {
  auto out = trainer::render_documents(
      docs(job_yaml("torchtune-qwen2.5-1.5b",
                    "  trainer: {command: [tune, run], args: [epochs=1]}\n")),
      context(), with_builtins());
  REQUIRE(out);
  const auto* jobset = find_kind(out->objects, "JobSet");
  REQUIRE(jobset != nullptr);
  const auto& jobs = jobset->at("spec").at("replicatedJobs").as_array();
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].at("name") == "dataset-initializer");
  CHECK(jobs[1].at("name") == "model-initializer");
  const auto& node = jobs[2];
  CHECK(node.at("name") == "node");
  const auto& container =
      node.at("template").at("spec").at("template").at("spec").at("containers").at(0);
  // The runtime's rendezvous endpoint, dataset tokens and recipe are replaced; its output,
  // tokenizer and checkpoint paths stay (reference 4.2.4).
  CHECK(container.at("command") ==
        json::parse(R"(["tune","run","--rdzv_endpoint=j-node-0-0.j:29500",
                        "full_finetune_distributed","--config","qwen2_5/1.5B_full",
                        "output_dir=/workspace/output",
                        "tokenizer.path=/workspace/model/vocab.json",
                        "tokenizer.merges_file=/workspace/model/merges.txt",
                        "checkpointer.checkpoint_dir=/workspace/model"])"));
  CHECK(container.at("args") == json::parse(R"(["epochs=1"])"));
  CHECK(container.at("resources").at("limits").at("nvidia.com/gpu") == 2);
}

TEST_CASE("a torchtune runtime refuses more nodes than its model supports, as upstream") {
  auto out = trainer::render_documents(
      docs(job_yaml("torchtune-llama3.2-1b", "  trainer: {numNodes: 2, command: [tune, run]}\n")),
      context(), with_builtins());
  REQUIRE_FALSE(out);
  CHECK_THAT(
      out.error().message,
      Catch::Contains("spec.trainer.numNodes: Invalid value: 2: must be 1 for llama3_2/1B model"));
}

TEST_CASE("a TrainingRuntime reference never falls back to a built-in runtime") {
  auto input = docs(
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
      "metadata: {name: j, namespace: default}\n"
      "spec:\n  runtimeRef: {name: torch-distributed, kind: TrainingRuntime}\n");
  auto out = trainer::render_documents(input, context(), with_builtins());
  REQUIRE_FALSE(out);
  CHECK(out.error().code == trainer::ErrorCode::kNotFound);
  CHECK_THAT(out.error().message, !Catch::Contains("built-in"));
}

TEST_CASE("a runtime that is not built in gets no hint in its not-found error") {
  auto out = trainer::render_documents(docs(job_yaml("my-runtime")), context());
  REQUIRE_FALSE(out);
  CHECK(out.error().code == trainer::ErrorCode::kNotFound);
  CHECK_THAT(out.error().message, !Catch::Contains("built-in"));
}
