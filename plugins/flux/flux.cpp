// SPDX-License-Identifier: Apache-2.0
#include "flux/flux_plugin.hpp"

#include "common/trainer_env.hpp"
#include "flux/flux_detail.hpp"
#include "trainer/base64.hpp"
#include "trainer/plugin_support.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cctype>
#include <string>
#include <utility>

namespace trainer::plugins {
namespace detail {

namespace json = boost::json;

FluxSettings flux_broker_settings(const Info& info, const TrainJob& job) {
  FluxSettings settings = {
      {"FLUX_VIEW_IMAGE", "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy"},
      {"FLUX_NETWORK_DEVICE", "eth0"},
      {"FLUX_QUEUE_POLICY", "fcfs"},
  };
  if (const Container* c = find_container_by_ancestor(info, kAncestorTrainer, kNodeName)) {
    for (const auto& var_value : c->env) {
      const auto* var = var_value.if_object();
      if (var == nullptr) continue;
      const auto* value = var->if_contains("value");
      auto it = settings.find(std::string(env_name(*var)));
      if (it != settings.end() && value != nullptr && value->is_string()) {
        it->second = std::string(value->get_string());
      }
    }
  }
  if (job.spec.trainer) {
    for (const auto& var : job.spec.trainer->env) {
      auto it = settings.find(std::string(env_name(var)));
      if (it == settings.end()) continue;
      const auto* value = var.if_contains("value");
      it->second = value != nullptr && value->is_string() ? std::string(value->get_string()) : "";
    }
  }
  return settings;
}

std::string flux_original_command(const Info& info, const TrainJob& job) {
  std::vector<std::string> parts;
  if (const Container* c = find_container_by_ancestor(info, kAncestorTrainer, kNodeName)) {
    parts = c->command;
  }
  if (job.spec.trainer) {
    if (job.spec.trainer->command) parts = *job.spec.trainer->command;
    if (job.spec.trainer->args) {
      parts.insert(parts.end(), job.spec.trainer->args->begin(), job.spec.trainer->args->end());
    }
  }
  std::string joined;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) joined += ' ';
    joined += parts[i];
  }
  // Go's strings.TrimSpace (ASCII white space; the command is ASCII in practice).
  auto is_space = [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; };
  std::size_t begin = 0;
  std::size_t end = joined.size();
  while (begin < end && is_space(joined[begin])) ++begin;
  while (end > begin && is_space(joined[end - 1])) --end;
  return joined.substr(begin, end - begin);
}

std::string flux_range(std::int64_t size, std::int64_t start) {
  if (size == 1) return std::to_string(start);
  return std::to_string(start) + "-" + std::to_string(start + size - 1);
}

std::string flux_hostlist(std::string_view prefix, std::int64_t size) {
  return std::string(prefix) + "-" + kNodeName + "-0-[" + flux_range(size, 0) + "]";
}

std::string flux_broker_config(std::string_view job_name, std::string_view ns,
                               std::string_view hosts, const FluxSettings& settings) {
  const std::string fqdn = std::string(job_name) + "." + std::string(ns) + ".svc.cluster.local";
  return format_template(
      flux_broker_template(),
      {"tcp://" + settings.at("FLUX_NETWORK_DEVICE") + ":%p", "tcp://%h." + fqdn + ":%p",
       std::string(hosts), settings.at("FLUX_QUEUE_POLICY")});
}

std::string flux_init_script(std::string_view job_name, std::string_view ns, std::int64_t num_nodes,
                             const FluxSettings& settings) {
  const std::string hosts = flux_hostlist(job_name, num_nodes);
  return format_template(flux_init_template(), {"/opt/view", std::string(job_name) + "-0", hosts,
                                                flux_broker_config(job_name, ns, hosts, settings)});
}

std::string flux_entrypoint_script(std::string_view job_name, std::int64_t tasks,
                                   std::int64_t num_nodes, std::int64_t gpus) {
  std::string flags =
      "-N " + std::to_string(num_nodes) + " -n " + std::to_string(tasks * num_nodes);
  std::string r_spec = "--cores=" + flux_range(tasks, 0);
  if (gpus > 0) {
    flags += " -g " + std::to_string(gpus);
    r_spec += " --gpu=" + flux_range(gpus, 0);
  }
  return format_template(flux_entrypoint_template(),
                         {r_spec, std::string(job_name) + "-" + kNodeName + "-0-0", flags});
}

}  // namespace detail

namespace {

namespace json = boost::json;
using namespace trainer::plugins::detail;

constexpr const char* kInstallerName = "flux-installer";
constexpr const char* kInstallVolume = "flux-install";
constexpr const char* kInstallPath = "/mnt/flux";
constexpr const char* kConfigPath = "/etc/flux-config";
constexpr const char* kCurveVolume = "flux-curve";
constexpr const char* kCurvePath = "/curve";
constexpr const char* kMemoryVolume = "shared-memory";
constexpr const char* kMemoryPath = "/dev/shm";
constexpr const char* kSpackVolume = "spack-install";
constexpr const char* kSpackPath = "/opt/software";
constexpr std::int64_t kConfigMapMode = 0755;
constexpr std::int64_t kCurveMode = 0400;

const FluxMLPolicySource* flux_policy(const Info& info) {
  const auto& ml = info.runtime_policy.ml_policy;
  return ml && ml->flux ? &*ml->flux : nullptr;
}

std::string config_map_name(const TrainJob& job) {
  return job_name(job) + "-flux-entrypoint";
}
std::string curve_secret_name(const TrainJob& job) {
  return job_name(job) + "-flux-curve";
}

// Upstream dereferences spec.trainer and spec.trainer.numNodes (a nil pointer panic in the
// controller); we reject such a TrainJob at admission and refuse to build it.
FieldError num_nodes_required() {
  return field_required("spec.trainer.numNodes", "must be set when the runtime has a Flux policy");
}

bool has_num_nodes(const TrainJob& job) {
  return job.spec.trainer && job.spec.trainer->num_nodes;
}

json::object mount(std::string_view name, std::string_view path, bool read_only = false) {
  json::object m{{"name", name}, {"mountPath", path}};
  if (read_only) m["readOnly"] = true;
  return m;
}

json::object empty_dir_volume(std::string_view name) {
  return json::object{{"name", name}, {"emptyDir", json::object{}}};
}

class FluxPlugin final : public CustomValidationPlugin,
                         public EnforceMLPolicyPlugin,
                         public ComponentBuilderPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "Flux"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kCustomValidation, Phase::kEnforceMLPolicy, Phase::kComponentBuilder};
  }

  [[nodiscard]] ValidationResult validate(const Info& info, const TrainJob* /*old_job*/,
                                          const TrainJob& new_job,
                                          const PluginContext& /*ctx*/) override {
    ValidationResult result;
    if (flux_policy(info) == nullptr) return result;
    for (const auto& ps : info.template_spec.pod_sets) {
      if (ps.name != kNodeName) continue;
      for (const auto& ic : ps.init_containers) {
        if (ic.name != kInstallerName) continue;
        result.errors.push_back(field_invalid("spec.trainer.initContainers", json::value(ic.name),
                                              "InitContainer 'flux-installer' is reserved"));
      }
    }
    if (!has_num_nodes(new_job)) result.errors.push_back(num_nodes_required());
    return result;
  }

  [[nodiscard]] Result<void> enforce_ml_policy(Info& info, TrainJob& job,
                                               const PluginContext& /*ctx*/) override {
    if (flux_policy(info) == nullptr) return {};
    if (!has_num_nodes(job)) return tl::unexpected<Error>(Error::invalid({num_nodes_required()}));

    const FluxSettings settings = flux_broker_settings(info, job);
    const std::string cm_name = config_map_name(job);
    const std::string original = flux_original_command(info, job);
    // The entrypoint wraps the original command; the builder keeps the runtime container's args
    // because args are only overridden when set (reference 9, Q10), as upstream.
    job.spec.trainer->command =
        std::vector<std::string>{"/bin/bash", "/etc/flux-config/entrypoint.sh", original};
    job.spec.trainer->args.reset();

    Container installer;
    installer.name = kInstallerName;
    installer.image = settings.at("FLUX_VIEW_IMAGE");
    installer.command = {"/bin/bash", "/etc/flux-config/init.sh"};
    installer.volume_mounts =
        json::array{mount(kInstallVolume, kInstallPath), mount(cm_name, kConfigPath, true)};

    const json::array volumes = {
        empty_dir_volume(kSpackVolume),
        empty_dir_volume(kInstallVolume),
        json::object{
            {"name", cm_name},
            {"configMap", json::object{{"name", cm_name}, {"defaultMode", kConfigMapMode}}}},
        json::object{{"name", kMemoryVolume}, {"emptyDir", json::object{{"medium", "Memory"}}}},
        json::object{{"name", kCurveVolume},
                     {"secret", json::object{{"secretName", curve_secret_name(job)},
                                             {"defaultMode", kCurveMode}}}},
    };
    const json::array mounts = {
        mount(kInstallVolume, kInstallPath),     mount(kSpackVolume, kSpackPath),
        mount(cm_name, kConfigPath, true),       mount(kCurveVolume, kCurvePath, true),
        mount(kMemoryVolume, kMemoryPath, true),
    };

    for (auto& ps : info.template_spec.pod_sets) {
      if (ps.name != kNodeName) continue;
      for (const auto& v : volumes) upsert_volume(ps.volumes, v.as_object());
      ps.init_containers.push_back(installer);
      for (auto& c : ps.containers) {
        if (c.name != kNodeName) continue;
        for (const auto& m : mounts) upsert_volume_mount(c.volume_mounts, m.as_object());
      }
    }
    return {};
  }

  [[nodiscard]] Result<std::vector<json::value>> build(const Info& info, const TrainJob& job,
                                                       const PluginContext& ctx) override {
    const FluxMLPolicySource* flux = flux_policy(info);
    if (flux == nullptr) return std::vector<json::value>{};
    if (!has_num_nodes(job)) return tl::unexpected<Error>(Error::invalid({num_nodes_required()}));
    const Trainer& trainer = *job.spec.trainer;
    const std::string name = job_name(job);
    const std::string uid = effective_uid(job, ctx);

    const FluxSettings settings = flux_broker_settings(info, job);
    const std::int64_t nodes = *trainer.num_nodes;
    // `flux.numProcPerNode` defaults to 1 in the CRD schema.
    const std::int64_t tasks = trainer.num_proc_per_node ? *trainer.num_proc_per_node
                                                         : flux->num_proc_per_node.value_or(1);
    auto gpus = gpu_count_per_node(resources_per_node(info, job));
    if (!gpus) return tl::unexpected<Error>(gpus.error());

    json::object config_map{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", owned_object_metadata(config_map_name(job), job, uid)},
        {"data",
         json::object{{"entrypoint.sh", flux_entrypoint_script(name, tasks, nodes, *gpus)},
                      {"init.sh", flux_init_script(name, job.metadata.namespace_.value_or(""),
                                                   nodes, settings)}}},
    };

    auto keys = flux_curve_key_pair(uid);
    if (!keys) return tl::unexpected<Error>(keys.error());
    json::object secret{
        {"apiVersion", "v1"},
        {"kind", "Secret"},
        {"metadata", owned_object_metadata(curve_secret_name(job), job, uid)},
        {"data",
         json::object{{"curve.cert", trainer::base64_encode(flux_curve_cert(name, *keys))}}},
    };

    std::vector<json::value> objects;
    objects.emplace_back(std::move(config_map));
    objects.emplace_back(std::move(secret));
    return objects;
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_flux_plugin() {
  return std::make_unique<FluxPlugin>();
}

}  // namespace trainer::plugins
