// SPDX-License-Identifier: Apache-2.0
#include "convert/v1_builtin.hpp"

#include "trainer/json_path.hpp"

#include <algorithm>
#include <charconv>

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_array;
using trainer::find_object;
using trainer::find_string;

namespace {

struct Builtin {
  std::string_view kind;
  std::string_view runtime;
  /// Env the runtime's plugin sets itself (reserved there, or equal by construction).
  std::vector<std::string_view> plugin_env;
};

const Builtin* builtin_for(std::string_view kind) {
  static const std::vector<Builtin> table = {
      {"PyTorchJob",
       "torch-distributed",
       {"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"}},
      {"XGBoostJob", "xgboost-distributed", {}},
      {"JAXJob", "jax-distributed", {}},
  };
  for (const auto& b : table) {
    if (b.kind == kind) return &b;
  }
  return nullptr;
}

bool reserved(std::string_view name) {
  return name.rfind("PET_", 0) == 0 || name.rfind("JAX_", 0) == 0 || name.rfind("DMLC_", 0) == 0;
}

// The one container, when the template is nothing more than TrainJob fields express.
const json::object* simple_container(const V1Job& job, const Role& role) {
  for (const auto& [key, value] : role.pod_template) {
    if (key != "spec" && !(key == "metadata" && value.is_object() && value.get_object().empty())) {
      return nullptr;
    }
  }
  const auto* spec = find_object(role.pod_template, "spec");
  if (spec == nullptr || spec->size() != 1) return nullptr;
  const auto* containers = find_array(*spec, "containers");
  if (containers == nullptr || containers->size() != 1 || !containers->front().is_object()) {
    return nullptr;
  }
  const auto& c = containers->front().get_object();
  if (find_string(c, "name") != std::string(job.info->container)) return nullptr;
  for (const auto& [key, value] : c) {
    static const std::vector<std::string_view> allowed = {"name", "image",     "command", "args",
                                                          "env",  "resources", "ports"};
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) return nullptr;
  }
  // Ports: only the default one v1's defaulting adds (it only documents the port).
  if (const auto* ports = find_array(c, "ports"); ports != nullptr && ports->size() != 1) {
    return nullptr;
  }
  if (const auto* env = find_array(c, "env")) {
    for (const auto& e : *env) {
      if (!e.is_object() || reserved(find_string(e.get_object(), "name").value_or(""))) {
        return nullptr;
      }
    }
  }
  return &c;
}

std::optional<std::int64_t> integer(std::string_view text) {
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1) return std::nullopt;
  return n;
}

}  // namespace

std::optional<std::vector<json::value>> builtin_objects(const V1Job& job, const Plan& plan,
                                                        const RunPolicyMapping& rp) {
  const Builtin* builtin = builtin_for(job.info->kind);
  if (builtin == nullptr || plan.groups.size() != 1) return std::nullopt;
  const Group& g = plan.groups.front();
  // The built-ins' one replicatedJob is `node`: the addresses in the env must name it.
  if (g.name != "node" || g.pod_per_job || g.role->restart_policy != "OnFailure") {
    return std::nullopt;
  }
  if (!rp.jobset_spec.empty() || !rp.pod_group_policy.empty() || !rp.template_annotations.empty() ||
      rp.backoff_limit) {
    return std::nullopt;
  }
  const json::object* c = simple_container(job, *g.role);
  if (c == nullptr) return std::nullopt;

  json::object trainer;
  if (const auto* image = c->if_contains("image")) trainer["image"] = *image;
  if (const auto* command = c->if_contains("command")) trainer["command"] = *command;
  if (const auto* args = c->if_contains("args")) trainer["args"] = *args;
  trainer["numNodes"] = g.count;
  if (job.info->kind == "PyTorchJob") {
    if (find_object(job.spec, "elasticPolicy") != nullptr) return std::nullopt;
    const auto nproc = find_string(job.spec, "nprocPerNode").value_or("auto");
    if (nproc != "auto") {
      auto n = integer(nproc);
      if (!n) return std::nullopt;
      trainer["numProcPerNode"] = *n;
    }
  }
  // The v1 contract minus what the plugin sets itself, after the index and the user's env,
  // exactly as the generated runtime's containers have it.
  json::array env;
  env.push_back(env_field(kIndexVar, kCompletionIndexField));
  std::vector<std::string> names{std::string(kIndexVar)};
  if (const auto* own = find_array(*c, "env")) {
    for (const auto& e : *own) {
      names.push_back(find_string(e.get_object(), "name").value_or(""));
      env.push_back(e);
    }
  }
  for (const auto& e : g.env) {
    const auto name = find_string(e.get_object(), "name").value_or("");
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    if (std::find(builtin->plugin_env.begin(), builtin->plugin_env.end(), name) !=
        builtin->plugin_env.end()) {
      continue;
    }
    env.push_back(e);
  }
  trainer["env"] = std::move(env);
  if (const auto* resources = c->if_contains("resources")) trainer["resourcesPerNode"] = *resources;

  json::object meta{{"name", job.name}, {"namespace", job.ns}};
  for (const char* key : {"labels", "annotations"}) {
    if (const auto* v = find_object(job.metadata, key)) meta[key] = *v;
  }
  json::object spec{{"runtimeRef", json::object{{"apiGroup", "trainer.kubeflow.org"},
                                                {"kind", "ClusterTrainingRuntime"},
                                                {"name", builtin->runtime}}},
                    {"trainer", std::move(trainer)}};
  for (const auto& [k, v] : rp.train_job_spec) spec[k] = v;
  return std::vector<json::value>{json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                               {"kind", "TrainJob"},
                                               {"metadata", std::move(meta)},
                                               {"spec", std::move(spec)}}};
}

}  // namespace trainer::convert::detail
