// SPDX-License-Identifier: Apache-2.0
//
// `Framework`: the plugins of one pipeline, partitioned once per extension point.
#include "trainer/render.hpp"

#include <utility>

namespace trainer {

Framework::Framework(std::vector<std::unique_ptr<Plugin>> plugins) : plugins_(std::move(plugins)) {
  for (const auto& p : plugins_) {
    Plugin* plugin = p.get();
    if (plugin == nullptr) continue;
    if (auto* x = dynamic_cast<CustomValidationPlugin*>(plugin)) custom_validation_.push_back(x);
    if (auto* x = dynamic_cast<EnforceMLPolicyPlugin*>(plugin)) enforce_ml_policy_.push_back(x);
    if (auto* x = dynamic_cast<EnforcePodGroupPolicyPlugin*>(plugin)) {
      enforce_pod_group_policy_.push_back(x);
    }
    if (auto* x = dynamic_cast<EnforcePodSpecPlugin*>(plugin)) enforce_pod_spec_.push_back(x);
    if (auto* x = dynamic_cast<PreComponentBuilderPlugin*>(plugin)) {
      pre_component_builder_.push_back(x);
    }
    if (auto* x = dynamic_cast<ComponentBuilderPlugin*>(plugin)) component_builder_.push_back(x);
  }
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
  for (auto* p : enforce_ml_policy_) {
    auto r = p->enforce_ml_policy(info, job);
    if (!r) return r;
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
    for (auto& obj : *built) objects.push_back(std::move(obj));
  }
  return objects;
}

}  // namespace trainer
