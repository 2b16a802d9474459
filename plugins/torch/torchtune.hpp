// SPDX-License-Identifier: Apache-2.0
//
// Torchtune support of the Torch plugin (kubeflow/trainer
// pkg/runtime/framework/plugins/torch/torchtune.go): model and recipe selection, the command
// rewrite and the admission rules TT1-TT6 (reference 2.3.1, 4.2.4). Internal to trainer_core.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainer::plugins::detail {

/// Upstream's `intstr.IntOrString` for torchrun's `--nproc_per_node`: an int or `auto`.
struct ProcPerNode {
  bool is_auto = true;
  std::int64_t value = 0;

  [[nodiscard]] static ProcPerNode automatic() { return {}; }
  [[nodiscard]] static ProcPerNode of(std::int64_t n) { return {false, n}; }
  /// `auto` or the decimal number (the `PET_NPROC_PER_NODE` value).
  [[nodiscard]] std::string to_string() const;
  /// As a field error value: the string `auto` or the integer.
  [[nodiscard]] boost::json::value to_json() const;
};

/// `torchtune-llama3.2-1b` -> `llama3_2/1B`; "" unless the name has exactly three `-` parts.
[[nodiscard]] std::string torchtune_model(const std::string& runtime_ref_name);
/// Whether the model is one upstream supports (`llama3_2/1B`, `llama3_2/3B`, `llama3_3/70B`,
/// `qwen2_5/1.5B`).
[[nodiscard]] bool is_supported_torchtune_model(const std::string& model);
/// LoRA: some arg contains `model.lora_attn_modules`.
[[nodiscard]] bool is_lora_enabled(const std::vector<std::string>& args);
/// QLoRA: `model.quantize_base=<true>` (trimmed, case-insensitive) and no `model.use_dora=<true>`.
[[nodiscard]] bool is_qlora_enabled(const std::vector<std::string>& args);
/// Whether `key` (the text before the first `=`) is one of the runtime-managed configs
/// `output_dir`, `tokenizer.path`, `checkpointer.checkpoint_dir`, `tokenizer.merges_file`.
[[nodiscard]] bool is_torchtune_immutable_config(const std::string& arg);

/// (recipe, config) per the table of reference 4.2.4, e.g.
/// (`full_finetune_distributed`, `llama3_2/1B_full`).
[[nodiscard]] std::pair<std::string, std::string> torchtune_recipe_and_config(
    std::int64_t num_nodes, const ProcPerNode& proc_per_node, std::int64_t gpus,
    const TrainJob& job);

/// The runtime trainer `node` container's command tokens whose key is runtime-managed, in order.
[[nodiscard]] std::vector<std::string> torchtune_overrides_from_runtime(const Info& info);

/// The tokens appended to `["tune", "run"]`: optional `--rdzv_endpoint=...`, recipe, `--config`,
/// config, runtime overrides.
[[nodiscard]] std::vector<std::string> torchtune_command_suffix(const Info& info,
                                                                const TrainJob& job,
                                                                std::int64_t num_nodes,
                                                                const ProcPerNode& proc_per_node,
                                                                std::int64_t gpus);

/// TT1-TT6 for a TrainJob whose trainer command is `["tune", "run"]` (spec.trainer set).
[[nodiscard]] std::vector<FieldError> validate_torchtune(const Info& info, const TrainJob& job);

}  // namespace trainer::plugins::detail
