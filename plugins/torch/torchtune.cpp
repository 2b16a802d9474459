// SPDX-License-Identifier: Apache-2.0
#include "torch/torchtune.hpp"
#include "trainer/json_path.hpp"

#include "common/trainer_env.hpp"
#include "trainer/plugin_support.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace trainer::plugins::detail {
namespace {

namespace json = boost::json;
using trainer::find_object;

constexpr const char* kLlama32_1B = "llama3_2/1B";
constexpr const char* kLlama32_3B = "llama3_2/3B";
constexpr const char* kLlama33_70B = "llama3_3/70B";
constexpr const char* kQwen25_1_5B = "qwen2_5/1.5B";

constexpr const char* kQLoRADistributedSuffix = "_qlora";
constexpr const char* kQLoRASingleDeviceSuffix = "_qlora_single_device";

std::string key_of(const std::string& arg) {
  return arg.substr(0, arg.find('='));
}

std::string_view trim(std::string_view s) {
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool equals_fold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Upstream `isBoolArgEnabled`: some `name=value` arg with `item` in the name and a true value.
bool is_bool_arg_enabled(const std::vector<std::string>& args, std::string_view item) {
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos) continue;
    const std::string_view name(arg.data(), eq);
    const std::string_view value = std::string_view(arg).substr(eq + 1);
    if (name.find(item) != std::string_view::npos && equals_fold(trim(value), "true")) return true;
  }
  return false;
}

const std::vector<std::string>& args_of(const TrainJob& job) {
  static const std::vector<std::string> kNone;
  if (job.spec.trainer && job.spec.trainer->args) return *job.spec.trainer->args;
  return kNone;
}

}  // namespace

std::string ProcPerNode::to_string() const {
  return is_auto ? "auto" : std::to_string(value);
}

json::value ProcPerNode::to_json() const {
  if (is_auto) return json::value("auto");
  return json::value(value);
}

std::string torchtune_model(const std::string& runtime_ref_name) {
  std::vector<std::string> fields;
  std::string::size_type start = 0;
  while (true) {
    const auto dash = runtime_ref_name.find('-', start);
    fields.push_back(runtime_ref_name.substr(start, dash - start));
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  if (fields.size() != 3) return "";
  std::string family = fields[1];
  std::replace(family.begin(), family.end(), '.', '_');
  std::string size = fields[2];
  std::transform(size.begin(), size.end(), size.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return family + "/" + size;
}

bool is_supported_torchtune_model(const std::string& model) {
  return model == kLlama32_1B || model == kLlama32_3B || model == kLlama33_70B ||
         model == kQwen25_1_5B;
}

bool is_lora_enabled(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& arg) {
    return arg.find("model.lora_attn_modules") != std::string::npos;
  });
}

bool is_qlora_enabled(const std::vector<std::string>& args) {
  if (is_bool_arg_enabled(args, "model.use_dora")) return false;
  return is_bool_arg_enabled(args, "model.quantize_base");
}

bool is_torchtune_immutable_config(const std::string& arg) {
  static constexpr std::array<std::string_view, 4> kImmutable = {
      "output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file"};
  const std::string key = key_of(arg);
  return std::find(kImmutable.begin(), kImmutable.end(), key) != kImmutable.end();
}

std::pair<std::string, std::string> torchtune_recipe_and_config(std::int64_t num_nodes,
                                                                const ProcPerNode& proc_per_node,
                                                                std::int64_t gpus,
                                                                const TrainJob& job) {
  const auto& args = args_of(job);
  std::string recipe = "full_finetune_distributed";
  std::string suffix = "_full";
  const bool single_device = (!proc_per_node.is_auto && proc_per_node.value == 1) || gpus == 1;
  if (num_nodes == 1 && single_device) {
    if (is_qlora_enabled(args)) {
      recipe = "lora_finetune_single_device";
      suffix = kQLoRASingleDeviceSuffix;
    } else if (is_lora_enabled(args)) {
      recipe = "lora_finetune_single_device";
      suffix = "_lora_single_device";
    } else {
      recipe = "full_finetune_single_device";
      suffix = "_full_single_device";
    }
  } else if (num_nodes == 1 && is_qlora_enabled(args)) {
    recipe = "lora_finetune_distributed";
    suffix = kQLoRADistributedSuffix;
  } else if (num_nodes == 1 && is_lora_enabled(args)) {
    recipe = "lora_finetune_distributed";
    suffix = "_lora";
  } else if (num_nodes > 1) {
    suffix = "_full_multinode";
  }
  return {recipe, torchtune_model(job.spec.runtime_ref.name) + suffix};
}

std::vector<std::string> torchtune_overrides_from_runtime(const Info& info) {
  std::vector<std::string> overrides;
  const auto* jobs_value = info.template_spec.jobset_spec.if_contains("replicatedJobs");
  const auto* jobs = jobs_value != nullptr ? jobs_value->if_array() : nullptr;
  if (jobs == nullptr) return overrides;
  for (const auto& job_value : *jobs) {
    const auto* job = job_value.if_object();
    const auto* tmpl = job != nullptr ? find_object(*job, "template") : nullptr;
    const auto* meta = tmpl != nullptr ? find_object(*tmpl, "metadata") : nullptr;
    const auto* labels = meta != nullptr ? find_object(*meta, "labels") : nullptr;
    const auto* ancestor = labels != nullptr ? labels->if_contains(kAncestorLabel) : nullptr;
    if (ancestor == nullptr || !ancestor->is_string() ||
        ancestor->get_string() != kAncestorTrainer) {
      continue;
    }
    const auto* job_spec = find_object(*tmpl, "spec");
    const auto* pod_tmpl = job_spec != nullptr ? find_object(*job_spec, "template") : nullptr;
    const auto* pod_spec = pod_tmpl != nullptr ? find_object(*pod_tmpl, "spec") : nullptr;
    const auto* containers_value =
        pod_spec != nullptr ? pod_spec->if_contains("containers") : nullptr;
    const auto* containers = containers_value != nullptr ? containers_value->if_array() : nullptr;
    if (containers == nullptr) continue;
    for (const auto& c : *containers) {
      const auto* container = c.if_object();
      if (container == nullptr) continue;
      const auto* name = container->if_contains("name");
      if (name == nullptr || !name->is_string() || name->get_string() != kNodeName) continue;
      const auto* command_value = container->if_contains("command");
      const auto* command = command_value != nullptr ? command_value->if_array() : nullptr;
      if (command == nullptr) continue;
      for (const auto& token : *command) {
        if (!token.is_string()) continue;
        std::string text(token.get_string());
        if (is_torchtune_immutable_config(text)) overrides.push_back(std::move(text));
      }
    }
  }
  return overrides;
}

std::vector<std::string> torchtune_command_suffix(const Info& info, const TrainJob& job,
                                                  std::int64_t num_nodes,
                                                  const ProcPerNode& proc_per_node,
                                                  std::int64_t gpus) {
  std::vector<std::string> suffix;
  const bool rendezvous = num_nodes > 1 || (!proc_per_node.is_auto && proc_per_node.value > 1) ||
                          (proc_per_node.is_auto && gpus > 1);
  if (rendezvous) {
    suffix.push_back("--rdzv_endpoint=" + rank0_host(job) + ":" +
                     std::to_string(kContainerTrainerPort));
  }
  auto [recipe, config] = torchtune_recipe_and_config(num_nodes, proc_per_node, gpus, job);
  suffix.push_back(std::move(recipe));
  suffix.emplace_back("--config");
  suffix.push_back(std::move(config));
  for (auto& token : torchtune_overrides_from_runtime(info)) suffix.push_back(std::move(token));
  return suffix;
}

std::vector<FieldError> validate_torchtune(const Info& info, const TrainJob& job) {
  std::vector<FieldError> errs;
  const Trainer& trainer = *job.spec.trainer;
  const std::string& ref_name = job.spec.runtime_ref.name;
  const std::string model = torchtune_model(ref_name);

  if (!is_supported_torchtune_model(model)) {
    errs.push_back(field_invalid(
        "spec.runtimeRef.name", json::value(ref_name),
        "must have a supported pretrained model, invalid model configured: " + model));
  }

  const std::int64_t num_nodes = trainer.num_nodes.value_or(1);
  if (num_nodes > 1 && model != kLlama33_70B) {
    errs.push_back(field_invalid("spec.trainer.numNodes", json::value(num_nodes),
                                 "must be 1 for " + model + " model"));
  }

  const ProcPerNode proc_per_node = trainer.num_proc_per_node
                                        ? ProcPerNode::of(*trainer.num_proc_per_node)
                                        : ProcPerNode::automatic();
  // Admission does not resolve `auto` from the CPU count (reference 9, Q15), as upstream. An
  // unparsable GPU quantity counts as no GPU here; the build reports it.
  const std::int64_t gpus = gpu_count_per_node(resources_per_node(info, job)).value_or(0);
  const auto config = torchtune_recipe_and_config(num_nodes, proc_per_node, gpus, job).second;
  if (config.find(kQLoRADistributedSuffix) != std::string::npos) {
    if (model == kQwen25_1_5B) {
      errs.push_back(field_invalid("spec.runtimeRef.name", json::value(ref_name),
                                   "QLoRA is not supported for " + model + " model"));
    }
    if (config.find(kQLoRASingleDeviceSuffix) == std::string::npos &&
        (model == kLlama32_1B || model == kLlama32_3B)) {
      errs.push_back(field_invalid("spec.trainer.numProcPerNode", proc_per_node.to_json(),
                                   "must be auto or 1 for " + model + " model when using QLoRA"));
      json::value resources = nullptr;
      if (trainer.resources_per_node) resources = *trainer.resources_per_node;
      errs.push_back(field_invalid(
          "spec.trainer.resourcesPerNode", std::move(resources),
          "must have gpu resource with value 1 for " + model + " model when using QLoRA"));
    }
  }

  const auto& args = args_of(job);
  if (num_nodes > 1 && (is_lora_enabled(args) || is_qlora_enabled(args))) {
    errs.push_back(field_invalid("spec.trainer.numNodes", json::value(num_nodes),
                                 "LoRA fine-tuning is not supported for multi-node training in "
                                 "TorchTune"));
  }

  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!is_torchtune_immutable_config(args[i])) continue;
    errs.push_back(field_invalid("spec.trainer.args[" + std::to_string(i) + "]",
                                 json::value(args[i]),
                                 "must not set immutable config \"" + key_of(args[i]) +
                                     "\" in trainer args; it is managed by the runtime"));
  }
  return errs;
}

}  // namespace trainer::plugins::detail
