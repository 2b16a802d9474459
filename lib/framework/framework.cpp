// SPDX-License-Identifier: Apache-2.0
//
// `Framework`: the plugins of one pipeline, partitioned once per extension point.
#include "trainer/render.hpp"

#include "framework/plugin_confinement.hpp"

#include <set>
#include <string>
#include <utility>

namespace trainer {

namespace {

// A plugin that lists `phase` goes into that phase's list; the cast only converts, the
// membership is what the plugin says.
template <class Interface>
Result<void> partition(Plugin& plugin, Phase phase, std::string_view interface_name,
                       std::vector<Interface*>& list) {
  if (!plugin.phases().has(phase)) return {};
  auto* x = dynamic_cast<Interface*>(&plugin);
  if (x == nullptr) {
    return fail(ErrorCode::kInvalid, "plugin \"" + std::string(plugin.name()) + "\" lists phase " +
                                         std::string(phase_name(phase)) +
                                         " but does not implement " + std::string(interface_name));
  }
  list.push_back(x);
  return {};
}

// One instance of every plugin of `registry`, in order, with room for `more`.
std::vector<std::shared_ptr<Plugin>> instantiate(const Registry& registry, std::size_t more) {
  std::vector<std::shared_ptr<Plugin>> plugins;
  plugins.reserve(registry.size() + more);
  for (const auto& entry : registry) {
    if (entry.factory) plugins.push_back(entry.factory());
  }
  return plugins;
}

}  // namespace

std::string_view phase_name(Phase phase) noexcept {
  switch (phase) {
    case Phase::kCustomValidation: return "CustomValidation";
    case Phase::kEnforceMLPolicy: return "EnforceMLPolicy";
    case Phase::kEnforcePodGroupPolicy: return "EnforcePodGroupPolicy";
    case Phase::kEnforcePodSpec: return "EnforcePodSpec";
    case Phase::kPreComponentBuilder: return "PreComponentBuilder";
    case Phase::kComponentBuilder: return "ComponentBuilder";
    case Phase::kTrainJobStatus: return "TrainJobStatus";
  }
  return "";
}

Result<Framework> Framework::with_plugins(const FrameworkOptions& options,
                                          std::vector<std::shared_ptr<Plugin>> extra) {
  Framework fw;
  fw.options_ = options;
  fw.plugins_ = instantiate(default_registry(options.feature_gates), extra.size());
  std::set<std::string, std::less<>> builtin;
  for (const auto& p : fw.plugins_) builtin.emplace(p->name());
  std::set<std::string, std::less<>> added;
  for (auto& p : extra) {
    if (p == nullptr) return fail(ErrorCode::kInvalid, "plugin is null");
    const std::string name(p->name());
    if (name.empty()) return fail(ErrorCode::kInvalid, "plugin name is empty");
    if (builtin.count(name) != 0) {
      return fail(ErrorCode::kInvalid,
                  "plugin name \"" + name + "\" is taken by a built-in plugin");
    }
    if (!added.insert(name).second) {
      return fail(ErrorCode::kInvalid, "plugin name \"" + name + "\" is already registered");
    }
    fw.plugins_.push_back(std::move(p));
  }
  if (auto r = fw.partition_plugins(); !r) return tl::unexpected(r.error());
  return fw;
}

Result<Framework> Framework::from_registry(const Registry& registry,
                                           const FrameworkOptions& options) {
  Framework fw;
  fw.options_ = options;
  fw.plugins_ = instantiate(registry, 0);
  if (auto r = fw.partition_plugins(); !r) return tl::unexpected(r.error());
  return fw;
}

Result<void> Framework::partition_plugins() {
  for (const auto& p : plugins_) {
    if (p == nullptr) return fail(ErrorCode::kInvalid, "plugin is null");
    Plugin& plugin = *p;
    Result<void> r =
        partition(plugin, Phase::kCustomValidation, "CustomValidationPlugin", custom_validation_);
    if (r)
      r = partition(plugin, Phase::kEnforceMLPolicy, "EnforceMLPolicyPlugin", enforce_ml_policy_);
    if (r) {
      r = partition(plugin, Phase::kEnforcePodGroupPolicy, "EnforcePodGroupPolicyPlugin",
                    enforce_pod_group_policy_);
    }
    if (r) r = partition(plugin, Phase::kEnforcePodSpec, "EnforcePodSpecPlugin", enforce_pod_spec_);
    if (r) {
      r = partition(plugin, Phase::kPreComponentBuilder, "PreComponentBuilderPlugin",
                    pre_component_builder_);
    }
    if (r) {
      r = partition(plugin, Phase::kComponentBuilder, "ComponentBuilderPlugin", component_builder_);
    }
    if (r) r = partition(plugin, Phase::kTrainJobStatus, "TrainJobStatusPlugin", train_job_status_);
    if (!r) return r;
  }
  if (train_job_status_.size() > 1) {
    return fail(ErrorCode::kInvalid, "too many TrainJobStatus plugins are registered");
  }
  return {};
}

Framework Framework::with_config(OperatorConfig config) const {
  Framework fw = *this;
  fw.options_.config = std::move(config);
  return fw;
}

ValidationResult Framework::run_custom_validation(const Info& info, const TrainJob* old_job,
                                                  const TrainJob& new_job,
                                                  const RenderContext& ctx) const {
  ValidationResult all;
  const PluginContext pc = context(ctx);
  for (auto* p : custom_validation_) all.merge(p->validate(info, old_job, new_job, pc));
  return all;
}

Result<void> Framework::run_enforce_ml_policy(Info& info, TrainJob& job,
                                              const RenderContext& ctx) const {
  if (enforce_ml_policy_.empty()) return {};
  const detail::TrainJobIdentity identity(job);
  const PluginContext pc = context(ctx);
  for (auto* p : enforce_ml_policy_) {
    auto r = p->enforce_ml_policy(info, job, pc);
    if (!r) return r;
    if (auto changed = identity.changed_in(job); !changed.empty()) {
      return tl::unexpected(detail::train_job_change_refused(p->name(), changed));
    }
  }
  return {};
}

Result<void> Framework::run_enforce_pod_group_policy(Info& info, const TrainJob& job,
                                                     const RenderContext& ctx) const {
  const PluginContext pc = context(ctx);
  for (auto* p : enforce_pod_group_policy_) {
    auto r = p->enforce_pod_group_policy(info, job, pc);
    if (!r) return r;
  }
  return {};
}

Result<void> Framework::run_enforce_pod_spec(Info& info, const TrainJob& job,
                                             const RenderContext& ctx) const {
  const PluginContext pc = context(ctx);
  for (auto* p : enforce_pod_spec_) {
    auto r = p->enforce_pod_spec(info, job, pc);
    if (!r) return r;
  }
  return {};
}

Result<void> Framework::run_pre_build_sync(Info& info, const TrainJob& job,
                                           const RenderContext& ctx) const {
  const PluginContext pc = context(ctx);
  for (auto* p : pre_component_builder_) {
    auto r = p->pre_build_sync(info, job, pc);
    if (!r) return r;
  }
  return {};
}

Result<std::vector<boost::json::value>> Framework::run_component_builders(
    const Info& info, const TrainJob& job, const RenderContext& ctx) const {
  std::vector<boost::json::value> objects;
  const PluginContext pc = context(ctx);
  for (auto* p : component_builder_) {
    auto built = p->build(info, job, pc);
    if (!built) return tl::unexpected(built.error());
    if (auto r = detail::confine_built_objects(p->name(), *built, job, pc); !r) {
      return tl::unexpected(r.error());
    }
    for (auto& obj : *built) objects.push_back(std::move(obj));
  }
  return objects;
}

Result<void> Framework::run_status(const TrainJob& job, boost::json::object& status,
                                   const RenderContext& ctx) const {
  const PluginContext pc = context(ctx);
  for (auto* p : train_job_status_) {
    auto r = p->status(job, status, pc);
    if (!r) return r;
  }
  return {};
}

}  // namespace trainer
