// SPDX-License-Identifier: Apache-2.0
//
// `Framework`: the plugins of one pipeline, partitioned once per extension point.
#include "trainer/render.hpp"

#include "framework/plugin_confinement.hpp"

#include <cstddef>
#include <iterator>
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

// One builder's objects, confined (detail::confine_built_objects), into `objects` at `at`.
Result<void> keep_built(const ComponentBuilderPlugin& plugin,
                        Result<std::vector<boost::json::value>> built, const TrainJob& job,
                        const PluginContext& pc, std::vector<boost::json::value>& objects,
                        std::size_t at) {
  if (!built) return tl::unexpected(built.error());
  if (auto r = detail::confine_built_objects(plugin.name(), *built, job, pc); !r) return r;
  objects.insert(objects.begin() + static_cast<std::ptrdiff_t>(at),
                 std::make_move_iterator(built->begin()), std::make_move_iterator(built->end()));
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
  info_taker_ = component_builder_.size();
  for (std::size_t i = 0; i < component_builder_.size(); ++i) {
    if (component_builder_[i]->takes_info()) {
      info_taker_ = i;
      break;
    }
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
    if (auto r = keep_built(*p, p->build(info, job, pc), job, pc, objects, objects.size()); !r) {
      return tl::unexpected(r.error());
    }
  }
  return objects;
}

Result<std::vector<boost::json::value>> Framework::run_component_builders(
    Info&& info, const TrainJob& job, const RenderContext& ctx) const {
  const std::size_t taker = info_taker_;
  if (taker == component_builder_.size())
    return run_component_builders(std::as_const(info), job, ctx);
  std::vector<boost::json::value> objects;
  const PluginContext pc = context(ctx);
  std::size_t taker_at = 0;  // where the taker's objects go
  for (std::size_t i = 0; i < component_builder_.size(); ++i) {
    if (i == taker) {
      taker_at = objects.size();
      continue;
    }
    auto* p = component_builder_[i];
    if (auto r = keep_built(*p, p->build(info, job, pc), job, pc, objects, objects.size()); !r) {
      if (i > taker) {
        // In plugin order the taker ran before this builder: its error comes first.
        auto* t = component_builder_[taker];
        std::vector<boost::json::value> discarded;
        if (auto first = keep_built(*t, t->build(info, job, pc), job, pc, discarded, 0); !first) {
          return tl::unexpected(first.error());
        }
      }
      return tl::unexpected(r.error());
    }
  }
  auto* t = component_builder_[taker];
  if (auto r = keep_built(*t, t->build_taking_info(info, job, pc), job, pc, objects, taker_at);
      !r) {
    return tl::unexpected(r.error());
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
