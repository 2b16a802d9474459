// SPDX-License-Identifier: Apache-2.0
//
// The Paddle plugin of examples/plugins/paddle, written as an in-process C++ plugin: it
// implements the C++ extension points (trainer/framework.hpp) with the helpers of
// trainer/plugin_support.hpp, is added to a Framework with Framework::with_plugins, and renders a
// TrainJob through the static C++ core. Its output is the same as trainerctl render with the C
// plugin loaded (the package test compares the two).
//
// Usage: paddle_render FILE... [--uid UID]    (FILE: runtime and TrainJob YAML; - is stdin)
#include <trainer/codec.hpp>
#include <trainer/framework.hpp>
#include <trainer/plugin_support.hpp>
#include <trainer/render.hpp>

#include <boost/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace json = boost::json;

constexpr const char* kFrameworkLabel = "trainer.kubeflow.org/framework";
constexpr const char* kPortName = "master";
constexpr std::int64_t kDefaultPort = 36543;  // v1's PaddleJobDefaultPort
// The variables the plugin owns, sorted (the order the error lists them in).
constexpr const char* kReserved[] = {"PADDLE_JOB_ID", "PADDLE_MASTER", "PADDLE_NNODES"};

// The runtime's framework label says whether a TrainJob is ours.
bool is_paddle(const trainer::Info& info) {
  const auto it = info.runtime.labels.find(kFrameworkLabel);
  return it != info.runtime.labels.end() && it->second == "paddle";
}

// The containerPort of the port named `master`, else v1's default.
std::int64_t master_port(const trainer::Container& node) {
  for (const auto& port : node.ports) {
    const auto* p = port.if_object();
    if (p == nullptr) continue;
    const auto* name = p->if_contains("name");
    const auto* number = p->if_contains("containerPort");
    if (name != nullptr && *name == kPortName && number != nullptr && number->is_int64()) {
      return number->get_int64();
    }
  }
  return kDefaultPort;
}

class PaddlePlugin final : public trainer::CustomValidationPlugin,
                           public trainer::EnforceMLPolicyPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "Paddle"; }
  [[nodiscard]] trainer::Phases phases() const override {
    return {trainer::Phase::kCustomValidation, trainer::Phase::kEnforceMLPolicy};
  }

  [[nodiscard]] trainer::ValidationResult validate(const trainer::Info& info,
                                                   const trainer::TrainJob* /*old_job*/,
                                                   const trainer::TrainJob& job,
                                                   const trainer::PluginContext& /*ctx*/) override {
    trainer::ValidationResult result;
    if (!is_paddle(info)) return result;
    if (job.spec.trainer) {
      std::string names;
      for (const char* reserved : kReserved) {
        for (const auto& var : job.spec.trainer->env) {
          const auto* name = var.if_contains("name");
          if (name == nullptr || *name != reserved) continue;
          names += (names.empty() ? "" : " ") + std::string(reserved);
          break;
        }
      }
      if (!names.empty()) {
        json::array env(job.spec.trainer->env.begin(), job.spec.trainer->env.end());
        result.errors.push_back(
            {trainer::FieldErrorType::kInvalid, "spec.trainer.env", json::value(std::move(env)),
             "must not have reserved envs, invalid envs configured: [" + names + "]"});
      }
    }
    if (trainer::find_container_by_ancestor(info, trainer::kAncestorTrainer, trainer::kNodeName) ==
        nullptr) {
      const auto& ref = job.spec.runtime_ref;
      json::object value{{"name", ref.name}};
      if (ref.api_group) value["apiGroup"] = *ref.api_group;
      if (ref.kind) value["kind"] = *ref.kind;
      result.errors.push_back(
          {trainer::FieldErrorType::kInvalid, "spec.runtimeRef", json::value(std::move(value)),
           "a paddle runtime needs a container named \"node\" in its trainer job (label "
           "trainer.kubeflow.org/trainjob-ancestor-step: trainer): PADDLE_* envs are injected "
           "into it"});
    }
    return result;
  }

  [[nodiscard]] trainer::Result<void> enforce_ml_policy(
      trainer::Info& info, trainer::TrainJob& job, const trainer::PluginContext& /*ctx*/) override {
    if (!is_paddle(info)) return {};
    trainer::PodSet* pod_set = info.find_pod_set_by_ancestor(trainer::kAncestorTrainer);
    trainer::Container* node =
        pod_set == nullptr ? nullptr : pod_set->find_container(trainer::kNodeName);
    if (node == nullptr) {
      return trainer::fail(trainer::ErrorCode::kInvalid,
                           "the runtime's trainer job has no container \"node\"");
    }
    // The built-in plugins ran first: the count is numNodes already (PlainML).
    const std::int64_t nodes = pod_set->count.value_or(1);
    const std::int64_t port = master_port(*node);
    trainer::upsert_env(node->env, trainer::env_value("PYTHONUNBUFFERED", "1"));
    trainer::upsert_env(node->env, trainer::env_value("PADDLE_JOB_ID", trainer::job_name(job)));
    trainer::upsert_env(node->env, trainer::env_value("PADDLE_NNODES", std::to_string(nodes)));
    trainer::upsert_env(
        node->env,
        trainer::env_value("PADDLE_MASTER", trainer::rank0_host(job) + ":" + std::to_string(port)));
    trainer::upsert_port(node->ports, json::object{{"name", kPortName}, {"containerPort", port}});
    return {};
  }
};

bool read_file(const std::string& path, std::string& text) {
  if (path == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    text += s.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text += s.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string uid = "7d3c1b2a-5e6f-4a8b-9c0d-1e2f3a4b5c6d";
  std::vector<json::value> docs;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--uid" && i + 1 < argc) {
      uid = argv[++i];
      continue;
    }
    std::string text;
    if (!read_file(arg, text)) {
      std::fprintf(stderr, "error: %s: cannot open\n", arg.c_str());
      return 2;
    }
    auto parsed = trainer::parse_documents(text);
    if (!parsed) {
      std::fprintf(stderr, "error: %s: %s\n", arg.c_str(), parsed.error().message.c_str());
      return 1;
    }
    for (auto& d : *parsed) docs.push_back(std::move(d));
  }
  if (docs.empty()) {
    std::fprintf(stderr, "usage: paddle_render FILE... [--uid UID]\n");
    return 2;
  }

  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::make_unique<PaddlePlugin>());
  auto framework =
      trainer::Framework::with_plugins(trainer::FrameworkOptions{}, std::move(plugins));
  if (!framework) {
    std::fprintf(stderr, "error: %s\n", framework.error().message.c_str());
    return 1;
  }

  trainer::RenderContext ctx;
  ctx.train_job_uid = uid;
  trainer::RenderDocumentsOptions options;
  options.framework = &*framework;
  options.on_warning = [](std::string_view w) {
    std::fprintf(stderr, "Warning: %.*s\n", static_cast<int>(w.size()), w.data());
  };
  auto rendered = trainer::render_documents(std::move(docs), ctx, options);
  if (!rendered) {
    std::fprintf(stderr, "error: %s\n", rendered.error().message.c_str());
    return 1;
  }
  std::fputs(trainer::encode_yaml_stream(rendered->objects).c_str(), stdout);
  return 0;
}
