// SPDX-License-Identifier: Apache-2.0
// share_plugin: one forwarder class per combination of extension points, chosen at run time by
// which interfaces the target implements (the same dynamic_cast the Framework partitions by).
#include "capi/shared_plugin.hpp"

#include <string_view>
#include <utility>
#include <vector>

namespace trainer::capi {
namespace {

// The target of the forwarding mixins below.
class Forwarding : public virtual Plugin {
 public:
  [[nodiscard]] virtual Plugin& target() const = 0;
};

template <class Interface>
Interface& as(const Forwarding& self) {
  return dynamic_cast<Interface&>(self.target());
}

class ForwardValidate : public CustomValidationPlugin, public virtual Forwarding {
 public:
  using Interface = CustomValidationPlugin;
  ValidationResult validate(const Info& info, const TrainJob* old_job, const TrainJob& new_job,
                            const RenderContext& ctx) override {
    return as<Interface>(*this).validate(info, old_job, new_job, ctx);
  }
};

class ForwardMLPolicy : public EnforceMLPolicyPlugin, public virtual Forwarding {
 public:
  using Interface = EnforceMLPolicyPlugin;
  Result<void> enforce_ml_policy(Info& info, TrainJob& job) override {
    return as<Interface>(*this).enforce_ml_policy(info, job);
  }
};

class ForwardPodGroupPolicy : public EnforcePodGroupPolicyPlugin, public virtual Forwarding {
 public:
  using Interface = EnforcePodGroupPolicyPlugin;
  Result<void> enforce_pod_group_policy(Info& info, const TrainJob& job) override {
    return as<Interface>(*this).enforce_pod_group_policy(info, job);
  }
};

class ForwardPodSpec : public EnforcePodSpecPlugin, public virtual Forwarding {
 public:
  using Interface = EnforcePodSpecPlugin;
  Result<void> enforce_pod_spec(Info& info, const TrainJob& job,
                                const RenderContext& ctx) override {
    return as<Interface>(*this).enforce_pod_spec(info, job, ctx);
  }
};

class ForwardPreBuild : public PreComponentBuilderPlugin, public virtual Forwarding {
 public:
  using Interface = PreComponentBuilderPlugin;
  Result<void> pre_build_sync(Info& info, const TrainJob& job) override {
    return as<Interface>(*this).pre_build_sync(info, job);
  }
};

class ForwardBuild : public ComponentBuilderPlugin, public virtual Forwarding {
 public:
  using Interface = ComponentBuilderPlugin;
  Result<std::vector<boost::json::value>> build(const Info& info, const TrainJob& job,
                                                const RenderContext& ctx) override {
    return as<Interface>(*this).build(info, job, ctx);
  }
};

class ForwardStatus : public TrainJobStatusPlugin, public virtual Forwarding {
 public:
  using Interface = TrainJobStatusPlugin;
  Result<void> status(const TrainJob& job, boost::json::object& status) override {
    return as<Interface>(*this).status(job, status);
  }
};

template <class... Mixins>
class Forwarder final : public virtual Forwarding, public Mixins... {
 public:
  explicit Forwarder(std::shared_ptr<Plugin> plugin) : plugin_(std::move(plugin)) {}
  [[nodiscard]] std::string_view name() const override { return plugin_->name(); }
  [[nodiscard]] Plugin& target() const override { return *plugin_; }

 private:
  std::shared_ptr<Plugin> plugin_;
};

template <class...>
struct List {};

template <class... Chosen>
std::unique_ptr<Plugin> make(std::shared_ptr<Plugin> plugin, List<Chosen...> /*chosen*/,
                             List<> /*rest*/) {
  return std::make_unique<Forwarder<Chosen...>>(std::move(plugin));
}

// Takes the mixin of the next interface when the plugin implements it, then the rest.
template <class... Chosen, class Next, class... Rest>
std::unique_ptr<Plugin> make(std::shared_ptr<Plugin> plugin, List<Chosen...> /*chosen*/,
                             List<Next, Rest...> /*rest*/) {
  if (dynamic_cast<typename Next::Interface*>(plugin.get()) != nullptr) {
    return make(std::move(plugin), List<Chosen..., Next>{}, List<Rest...>{});
  }
  return make(std::move(plugin), List<Chosen...>{}, List<Rest...>{});
}

}  // namespace

std::unique_ptr<Plugin> share_plugin(std::shared_ptr<Plugin> plugin) {
  return make(std::move(plugin), List<>{},
              List<ForwardValidate, ForwardMLPolicy, ForwardPodGroupPolicy, ForwardPodSpec,
                   ForwardPreBuild, ForwardBuild, ForwardStatus>{});
}

}  // namespace trainer::capi
