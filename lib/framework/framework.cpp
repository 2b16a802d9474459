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

// The interface of each phase, for the partition below.
template <Phase P>
struct PhaseInterface;
template <>
struct PhaseInterface<Phase::kCustomValidation> {
  using type = CustomValidationPlugin;
  static constexpr std::string_view name = "CustomValidationPlugin";
};
template <>
struct PhaseInterface<Phase::kEnforceMLPolicy> {
  using type = EnforceMLPolicyPlugin;
  static constexpr std::string_view name = "EnforceMLPolicyPlugin";
};
template <>
struct PhaseInterface<Phase::kEnforcePodGroupPolicy> {
  using type = EnforcePodGroupPolicyPlugin;
  static constexpr std::string_view name = "EnforcePodGroupPolicyPlugin";
};
template <>
struct PhaseInterface<Phase::kEnforcePodSpec> {
  using type = EnforcePodSpecPlugin;
  static constexpr std::string_view name = "EnforcePodSpecPlugin";
};
template <>
struct PhaseInterface<Phase::kPreComponentBuilder> {
  using type = PreComponentBuilderPlugin;
  static constexpr std::string_view name = "PreComponentBuilderPlugin";
};
template <>
struct PhaseInterface<Phase::kComponentBuilder> {
  using type = ComponentBuilderPlugin;
  static constexpr std::string_view name = "ComponentBuilderPlugin";
};
template <>
struct PhaseInterface<Phase::kTrainJobStatus> {
  using type = TrainJobStatusPlugin;
  static constexpr std::string_view name = "TrainJobStatusPlugin";
};

// A plugin that lists phase `P` goes into that phase's list; the cast only converts, the
// membership is what the plugin says.
template <Phase P>
Result<void> partition(Plugin& plugin, std::vector<typename PhaseInterface<P>::type*>& list) {
  if (!plugin.phases().has(P)) return {};
  auto* x = dynamic_cast<typename PhaseInterface<P>::type*>(&plugin);
  if (x == nullptr) {
    return fail(ErrorCode::kInvalid, "plugin \"" + std::string(plugin.name()) + "\" lists phase " +
                                         std::string(phase_name(P)) + " but does not implement " +
                                         std::string(PhaseInterface<P>::name));
  }
  list.push_back(x);
  return {};
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
  const Registry registry = default_registry(options.feature_gates);
  fw.plugins_.reserve(registry.size() + extra.size());
  std::set<std::string, std::less<>> builtin;
  for (const auto& entry : registry) {
    if (!entry.factory) continue;
    fw.plugins_.push_back(entry.factory());
    builtin.emplace(fw.plugins_.back()->name());
  }
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
  fw.plugins_.reserve(registry.size());
  for (const auto& entry : registry) {
    if (entry.factory) fw.plugins_.push_back(entry.factory());
  }
  if (auto r = fw.partition_plugins(); !r) return tl::unexpected(r.error());
  return fw;
}

Result<void> Framework::partition_plugins() {
  for (const auto& p : plugins_) {
    if (p == nullptr) return fail(ErrorCode::kInvalid, "plugin is null");
    Plugin& plugin = *p;
    Result<void> r = partition<Phase::kCustomValidation>(plugin, custom_validation_);
    if (r) r = partition<Phase::kEnforceMLPolicy>(plugin, enforce_ml_policy_);
    if (r) r = partition<Phase::kEnforcePodGroupPolicy>(plugin, enforce_pod_group_policy_);
    if (r) r = partition<Phase::kEnforcePodSpec>(plugin, enforce_pod_spec_);
    if (r) r = partition<Phase::kPreComponentBuilder>(plugin, pre_component_builder_);
    if (r) r = partition<Phase::kComponentBuilder>(plugin, component_builder_);
    if (r) r = partition<Phase::kTrainJobStatus>(plugin, train_job_status_);
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
