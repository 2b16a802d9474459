// SPDX-License-Identifier: Apache-2.0
// Torch plugin, torchtune: model names, the recipe/config table, the command rewrite and the
// admission rules TT1-TT6 (reference 2.3.1, 4.2.4, 7.3). Inputs are our own.
#include "torch/torchtune.hpp"
#include "plugin_fixtures.hpp"
#include "torch/torch_plugin.hpp"

#include <catch2/catch.hpp>

using namespace fixtures;
using trainer::FieldErrorType;
using trainer::plugins::detail::ProcPerNode;
using Strings = std::vector<std::string>;

namespace {

constexpr const char* kRuntimeCommand = R"([
  "tune", "run", "--rdzv_endpoint=localhost:29500", "full_finetune_distributed",
  "--config", "llama3_2/1B_full", "output_dir=/workspace/output",
  "tokenizer.path=/workspace/model/original/tokenizer.model",
  "dataset.source=/workspace/dataset", "checkpointer.checkpoint_dir=/workspace/model",
  "tokenizer.merges_file=/workspace/model/merges.txt"])";

constexpr const char* kOverrides[] = {"output_dir=/workspace/output",
                                      "tokenizer.path=/workspace/model/original/tokenizer.model",
                                      "checkpointer.checkpoint_dir=/workspace/model",
                                      "tokenizer.merges_file=/workspace/model/merges.txt"};

trainer::TrainJob tune_job(std::string runtime, Strings args = {}) {
  auto job = train_job("tt");
  job.spec.runtime_ref.name = std::move(runtime);
  trainer_of(job).command = Strings{"tune", "run"};
  trainer_of(job).args = std::move(args);
  return job;
}

Strings expected_command(Strings head) {
  Strings out = {"tune", "run"};
  out.insert(out.end(), head.begin(), head.end());
  for (const char* o : kOverrides) out.emplace_back(o);
  return out;
}

Strings rewrite(trainer::TrainJob& job, const char* runtime_resources) {
  auto info = info_with(torch_policy(), {trainer_pod_set()},
                        trainer_jobset_spec(runtime_resources, kRuntimeCommand));
  auto plugin = trainer::plugins::make_torch_plugin();
  auto* p = dynamic_cast<trainer::EnforceMLPolicyPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  REQUIRE(p->enforce_ml_policy(info, job, trainer::RenderContext{}));
  const auto& c = info.template_spec.pod_sets[0].containers[0];
  // Torchtune gets PET_* but no master env on the main container.
  CHECK(env_value(c, "PET_MASTER_ADDR") == "<absent>");
  CHECK(env_value(c, "PET_MASTER_PORT") == "<absent>");
  CHECK(env_value(c, "PET_NODE_RANK") == "<no value>");
  CHECK(c.ports == arr(R"([{"containerPort":29500}])"));
  return *job.spec.trainer->command;
}

std::vector<trainer::FieldError> validate(const trainer::TrainJob& job,
                                          const char* runtime_resources = "{}") {
  auto info = info_with(torch_policy(), {trainer_pod_set()},
                        trainer_jobset_spec(runtime_resources, kRuntimeCommand));
  auto plugin = trainer::plugins::make_torch_plugin();
  auto* p = dynamic_cast<trainer::CustomValidationPlugin*>(plugin.get());
  REQUIRE(p != nullptr);
  return p->validate(info, nullptr, job, trainer::RenderContext{}).errors;
}

}  // namespace

TEST_CASE("torchtune model from the runtime name", "[torch][torchtune]") {
  using trainer::plugins::detail::torchtune_model;
  CHECK(torchtune_model("torchtune-llama3.2-1b") == "llama3_2/1B");
  CHECK(torchtune_model("torchtune-llama3.2-3b") == "llama3_2/3B");
  CHECK(torchtune_model("torchtune-llama3.3-70b") == "llama3_3/70B");
  CHECK(torchtune_model("torchtune-qwen2.5-1.5b") == "qwen2_5/1.5B");
  CHECK(torchtune_model("torch-distributed") == "");
  CHECK(torchtune_model("a-b-c-d") == "");
  CHECK(torchtune_model("x--y") == "/Y");
}

TEST_CASE("torchtune LoRA / QLoRA / DoRA detection", "[torch][torchtune]") {
  using trainer::plugins::detail::is_lora_enabled;
  using trainer::plugins::detail::is_qlora_enabled;
  CHECK(is_lora_enabled({"model.lora_attn_modules=[q_proj,v_proj]"}));
  CHECK_FALSE(is_lora_enabled({"epochs=1"}));
  CHECK(is_qlora_enabled({"model.quantize_base=True"}));
  CHECK(is_qlora_enabled({"model.quantize_base= TRUE "}));
  CHECK_FALSE(is_qlora_enabled({"model.quantize_base=False"}));
  CHECK_FALSE(is_qlora_enabled({"model.quantize_base"}));
  CHECK_FALSE(is_qlora_enabled({"model.quantize_base=true", "model.use_dora=true"}));
  CHECK(is_qlora_enabled({"model.quantize_base=true", "model.use_dora=false"}));
}

TEST_CASE("torchtune recipe and config table", "[torch][torchtune]") {
  using trainer::plugins::detail::torchtune_recipe_and_config;
  using Pair = std::pair<std::string, std::string>;
  const auto plain = tune_job("torchtune-llama3.2-1b");
  const auto lora = tune_job("torchtune-llama3.2-1b", {"model.lora_attn_modules=[q_proj]"});
  const auto qlora = tune_job("torchtune-llama3.2-1b",
                              {"model.lora_attn_modules=[q_proj]", "model.quantize_base=True"});
  const auto one = ProcPerNode::of(1);
  const auto four = ProcPerNode::of(4);
  const auto automatic = ProcPerNode::automatic();

  // Single device: numNodes 1 and (one process or one GPU).
  CHECK(torchtune_recipe_and_config(1, one, 0, qlora) ==
        Pair{"lora_finetune_single_device", "llama3_2/1B_qlora_single_device"});
  CHECK(torchtune_recipe_and_config(1, automatic, 1, lora) ==
        Pair{"lora_finetune_single_device", "llama3_2/1B_lora_single_device"});
  CHECK(torchtune_recipe_and_config(1, four, 1, plain) ==
        Pair{"full_finetune_single_device", "llama3_2/1B_full_single_device"});
  // Distributed on one node.
  CHECK(torchtune_recipe_and_config(1, automatic, 2, qlora) ==
        Pair{"lora_finetune_distributed", "llama3_2/1B_qlora"});
  CHECK(torchtune_recipe_and_config(1, four, 0, lora) ==
        Pair{"lora_finetune_distributed", "llama3_2/1B_lora"});
  CHECK(torchtune_recipe_and_config(1, automatic, 8, plain) ==
        Pair{"full_finetune_distributed", "llama3_2/1B_full"});
  // Multi-node: always full, LoRA args ignored.
  CHECK(torchtune_recipe_and_config(2, one, 1, lora) ==
        Pair{"full_finetune_distributed", "llama3_2/1B_full_multinode"});
  // numNodes 0 falls through to the default row.
  CHECK(torchtune_recipe_and_config(0, one, 1, plain) ==
        Pair{"full_finetune_distributed", "llama3_2/1B_full"});
}

TEST_CASE("torchtune command rewrite", "[torch][torchtune]") {
  SECTION("runtime GPUs 2, auto: distributed with rendezvous (reference 7.3)") {
    auto job = tune_job("torchtune-llama3.2-1b", {"epochs=1"});
    CHECK(rewrite(job, R"({"limits":{"nvidia.com/gpu":2}})") ==
          expected_command({"--rdzv_endpoint=tt-node-0-0.tt:29500", "full_finetune_distributed",
                            "--config", "llama3_2/1B_full"}));
    CHECK(job.spec.trainer->args == Strings{"epochs=1"});
  }
  SECTION("one GPU from the TrainJob: single device, no rendezvous") {
    auto job = tune_job("torchtune-llama3.2-1b");
    trainer_of(job).resources_per_node = obj(R"({"limits":{"nvidia.com/gpu":1}})");
    CHECK(rewrite(job, R"({"limits":{"nvidia.com/gpu":2}})") ==
          expected_command(
              {"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device"}));
  }
  SECTION("LoRA and QLoRA on one GPU") {
    auto job = tune_job("torchtune-llama3.2-1b", {"model.lora_attn_modules=[q_proj,v_proj]"});
    CHECK(rewrite(job, R"({"limits":{"nvidia.com/gpu":1}})") ==
          expected_command(
              {"lora_finetune_single_device", "--config", "llama3_2/1B_lora_single_device"}));
    auto q = tune_job("torchtune-llama3.2-1b",
                      {"model.lora_attn_modules=[q_proj,v_proj]", "model.quantize_base=True"});
    CHECK(rewrite(q, R"({"limits":{"nvidia.com/gpu":1}})") ==
          expected_command(
              {"lora_finetune_single_device", "--config", "llama3_2/1B_qlora_single_device"}));
  }
  SECTION("explicit numProcPerNode > 1 adds the rendezvous") {
    auto job = tune_job("torchtune-llama3.2-3b");
    trainer_of(job).num_proc_per_node = 2;
    CHECK(rewrite(job, "{}") ==
          expected_command({"--rdzv_endpoint=tt-node-0-0.tt:29500", "full_finetune_distributed",
                            "--config", "llama3_2/3B_full"}));
  }
  SECTION("CPU only: auto resolves from the CPU count before the recipe is chosen") {
    auto job = tune_job("torchtune-llama3.2-1b");
    CHECK(rewrite(job, R"({"requests":{"cpu":"1"}})") ==
          expected_command(
              {"full_finetune_single_device", "--config", "llama3_2/1B_full_single_device"}));
    auto four = tune_job("torchtune-llama3.2-1b");
    CHECK(rewrite(four, R"({"requests":{"cpu":"4"}})") ==
          expected_command({"--rdzv_endpoint=tt-node-0-0.tt:29500", "full_finetune_distributed",
                            "--config", "llama3_2/1B_full"}));
  }
  SECTION("multi-node 70B") {
    auto job = tune_job("torchtune-llama3.3-70b");
    trainer_of(job).num_nodes = 30;
    trainer_of(job).num_proc_per_node = 3;
    CHECK(rewrite(job, R"({"limits":{"nvidia.com/gpu":8}})") ==
          expected_command({"--rdzv_endpoint=tt-node-0-0.tt:29500", "full_finetune_distributed",
                            "--config", "llama3_3/70B_full_multinode"}));
  }
}

TEST_CASE("torchtune validation", "[torch][torchtune][validation]") {
  SECTION("a supported single-node job is valid") {
    CHECK(validate(tune_job("torchtune-llama3.2-1b", {"epochs=1"})).empty());
    auto lora = tune_job("torchtune-qwen2.5-1.5b", {"model.lora_attn_modules=[q_proj]"});
    CHECK(validate(lora).empty());
  }
  SECTION("the rules only apply to the exact command tune run") {
    auto job = tune_job("torchtune-llama3.1-70b");
    trainer_of(job).command = Strings{"tune", "run", "x"};
    CHECK(validate(job).empty());
  }
  SECTION("TT1 unsupported model") {
    const auto errs = validate(tune_job("torchtune-llama3.1-70b"));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].type == FieldErrorType::kInvalid);
    CHECK(errs[0].path == "spec.runtimeRef.name");
    CHECK(errs[0].value == json::value("torchtune-llama3.1-70b"));
    CHECK(errs[0].detail ==
          "must have a supported pretrained model, invalid model configured: llama3_1/70B");
  }
  SECTION("TT2 multi-node only for llama3_3/70B") {
    auto job = tune_job("torchtune-llama3.2-3b");
    trainer_of(job).num_nodes = 2;
    const auto errs = validate(job);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].path == "spec.trainer.numNodes");
    CHECK(errs[0].value == json::value(2));
    CHECK(errs[0].detail == "must be 1 for llama3_2/3B model");
    auto big = tune_job("torchtune-llama3.3-70b");
    trainer_of(big).num_nodes = 4;
    CHECK(validate(big).empty());
  }
  SECTION("TT3 QLoRA not supported for qwen") {
    const auto errs = validate(tune_job(
        "torchtune-qwen2.5-1.5b",
        {"model.lora_attn_modules=[q_proj, v_proj, output_proj]", "model.quantize_base=True"}));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].path == "spec.runtimeRef.name");
    CHECK(errs[0].value == json::value("torchtune-qwen2.5-1.5b"));
    CHECK(errs[0].detail == "QLoRA is not supported for qwen2_5/1.5B model");
  }
  SECTION("TT4 multi-device QLoRA for llama3_2") {
    auto job = tune_job("torchtune-llama3.2-1b",
                        {"model.lora_attn_modules=[q_proj]", "model.quantize_base=True"});
    trainer_of(job).resources_per_node = obj(R"({"requests":{"example.com/gpu":"2"}})");
    const auto errs = validate(job);
    REQUIRE(errs.size() == 2);
    CHECK(errs[0].path == "spec.trainer.numProcPerNode");
    CHECK(errs[0].value == json::value("auto"));
    CHECK(errs[0].detail == "must be auto or 1 for llama3_2/1B model when using QLoRA");
    CHECK(errs[1].path == "spec.trainer.resourcesPerNode");
    CHECK(errs[1].value == json::value(obj(R"({"requests":{"example.com/gpu":"2"}})")));
    CHECK(errs[1].detail ==
          "must have gpu resource with value 1 for llama3_2/1B model when using QLoRA");
  }
  SECTION("TT4 uses the runtime GPUs when the TrainJob has no resources; value null") {
    auto job = tune_job("torchtune-llama3.2-3b", {"model.quantize_base=true"});
    trainer_of(job).num_proc_per_node = 4;
    const auto errs = validate(job, R"({"limits":{"nvidia.com/gpu":4}})");
    REQUIRE(errs.size() == 2);
    CHECK(errs[0].value == json::value(4));
    CHECK(errs[1].value == json::value(nullptr));
    // One GPU: single-device QLoRA is fine.
    CHECK(validate(tune_job("torchtune-llama3.2-3b", {"model.quantize_base=true"}),
                   R"({"limits":{"nvidia.com/gpu":1}})")
              .empty());
  }
  SECTION("TT5 LoRA with several nodes") {
    auto job = tune_job("torchtune-llama3.3-70b", {"model.lora_attn_modules=[q_proj]"});
    trainer_of(job).num_nodes = 2;
    const auto errs = validate(job);
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].path == "spec.trainer.numNodes");
    CHECK(errs[0].value == json::value(2));
    CHECK(errs[0].detail ==
          "LoRA fine-tuning is not supported for multi-node training in TorchTune");
  }
  SECTION("TT6 immutable configs in args, one error per arg") {
    const auto errs = validate(tune_job(
        "torchtune-llama3.2-1b",
        {"epochs=1", "output_dir=/tmp/out", "tokenizer.path=/x", "checkpointer.checkpoint_dir=/c",
         "tokenizer.merges_file=/m", "output_directory=/ok"}));
    REQUIRE(errs.size() == 4);
    CHECK(errs[0].path == "spec.trainer.args[1]");
    CHECK(errs[0].value == json::value("output_dir=/tmp/out"));
    CHECK(errs[0].detail ==
          "must not set immutable config \"output_dir\" in trainer args; it is managed by the "
          "runtime");
    CHECK(errs[1].path == "spec.trainer.args[2]");
    CHECK(errs[2].path == "spec.trainer.args[3]");
    CHECK(errs[3].path == "spec.trainer.args[4]");
    CHECK(errs[3].detail ==
          "must not set immutable config \"tokenizer.merges_file\" in trainer args; it is managed "
          "by the runtime");
  }
  SECTION("errors accumulate in upstream's order") {
    auto job = tune_job("torchtune-gemma-2b", {"model.lora_attn_modules=[q]", "output_dir=/o"});
    trainer_of(job).num_nodes = 2;
    const auto errs = validate(job);
    REQUIRE(errs.size() == 4);
    CHECK(errs[0].path == "spec.runtimeRef.name");
    CHECK(errs[1].detail == "must be 1 for gemma/2B model");
    CHECK(errs[2].detail ==
          "LoRA fine-tuning is not supported for multi-node training in TorchTune");
    CHECK(errs[3].path == "spec.trainer.args[1]");
  }
}
