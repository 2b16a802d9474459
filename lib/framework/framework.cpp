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

// A plugin that implements interface `I` goes into that phase's list.
template <class I>
void partition(Plugin* plugin, std::vector<I*>& list) {
  if (auto* x = dynamic_cast<I*>(plugin)) list.push_back(x);
}

}  // namespace

Framework::Framework(std::vector<std::unique_ptr<Plugin>> plugins) : plugins_(std::move(plugins)) {
  for (const auto& p : plugins_) {
    Plugin* plugin = p.get();
    if (plugin == nullptr) continue;
    partition(plugin, custom_validation_);
    partition(plugin, enforce_ml_policy_);
    partition(plugin, enforce_pod_group_policy_);
    partition(plugin, enforce_pod_spec_);
    partition(plugin, pre_component_builder_);
    partition(plugin, component_builder_);
    partition(plugin, train_job_status_);
  }
}

Result<Framework> Framework::with_plugins(const FeatureGates& gates,
                                          std::vector<std::unique_ptr<Plugin>> extra) {
  const Registry registry = default_registry(gates);
  std::vector<std::unique_ptr<Plugin>> plugins;
  plugins.reserve(registry.size() + extra.size());
  std::set<std::string, std::less<>> builtin;
  for (const auto& entry : registry) {
    if (!entry.factory) continue;
    plugins.push_back(entry.factory());
    builtin.emplace(plugins.back()->name());
  }
  std::set<std::string, std::less<>> added;
  std::size_t status_plugins = 0;
  for (const auto& p : plugins) {
    if (dynamic_cast<TrainJobStatusPlugin*>(p.get()) != nullptr) ++status_plugins;
  }
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
    if (dynamic_cast<TrainJobStatusPlugin*>(p.get()) != nullptr && ++status_plugins > 1) {
      return fail(ErrorCode::kInvalid, "too many TrainJobStatus plugins are registered");
    }
    plugins.push_back(std::move(p));
  }
  return Framework(std::move(plugins));
}

Framework Framework::from_registry(const Registry& registry) {
  std::vector<std::unique_ptr<Plugin>> plugins;
  plugins.reserve(registry.size());
  for (const auto& entry : registry) {
    if (entry.factory) plugins.push_back(entry.factory());
  }
  return Framework(std::move(plugins));
}

ValidationResult Framework::run_custom_validation(const Info& info, const TrainJob* old_job,
                                                  const TrainJob& new_job,
                                                  const RenderContext& ctx) const {
  ValidationResult all;
  for (auto* p : custom_validation_) all.merge(p->validate(info, old_job, new_job, ctx));
  return all;
}

Result<void> Framework::run_enforce_ml_policy(Info& info, TrainJob& job) const {
  if (enforce_ml_policy_.empty()) return {};
  const detail::TrainJobIdentity identity(job);
  for (auto* p : enforce_ml_policy_) {
    auto r = p->enforce_ml_policy(info, job);
    if (!r) return r;
    if (auto changed = identity.changed_in(job); !changed.empty()) {
      return tl::unexpected(detail::train_job_change_refused(p->name(), changed));
    }
  }
  return {};
}

Result<void> Framework::run_enforce_pod_group_policy(Info& info, const TrainJob& job) const {
  for (auto* p : enforce_pod_group_policy_) {
    auto r = p->enforce_pod_group_policy(info, job);
    if (!r) return r;
  }
  return {};
}

Result<void> Framework::run_enforce_pod_spec(Info& info, const TrainJob& job,
                                             const RenderContext& ctx) const {
  for (auto* p : enforce_pod_spec_) {
    auto r = p->enforce_pod_spec(info, job, ctx);
    if (!r) return r;
  }
  return {};
}

Result<void> Framework::run_pre_build_sync(Info& info, const TrainJob& job) const {
  for (auto* p : pre_component_builder_) {
    auto r = p->pre_build_sync(info, job);
    if (!r) return r;
  }
  return {};
}

Result<std::vector<boost::json::value>> Framework::run_component_builders(
    const Info& info, const TrainJob& job, const RenderContext& ctx) const {
  std::vector<boost::json::value> objects;
  for (auto* p : component_builder_) {
    auto built = p->build(info, job, ctx);
    if (!built) return tl::unexpected(built.error());
    if (auto r = detail::confine_built_objects(p->name(), *built, job, ctx); !r) {
      return tl::unexpected(r.error());
    }
    for (auto& obj : *built) objects.push_back(std::move(obj));
  }
  return objects;
}

Result<void> Framework::run_status(const TrainJob& job, boost::json::object& status) const {
  for (auto* p : train_job_status_) {
    auto r = p->status(job, status);
    if (!r) return r;
  }
  return {};
}

}  // namespace trainer
