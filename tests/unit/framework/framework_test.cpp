// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"
#include "trainer/render.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using trainer::Info;
using trainer::RenderContext;
using trainer::Result;
using trainer::TrainJob;

// Records every call in `log`; fails the phases named in `fail_in`.
class Recorder final : public trainer::CustomValidationPlugin,
                       public trainer::EnforceMLPolicyPlugin,
                       public trainer::EnforcePodGroupPolicyPlugin,
                       public trainer::EnforcePodSpecPlugin,
                       public trainer::PreComponentBuilderPlugin,
                       public trainer::ComponentBuilderPlugin {
 public:
  Recorder(std::string name, std::vector<std::string>* log, std::string fail_in = {})
      : name_(std::move(name)), log_(log), fail_in_(std::move(fail_in)) {}
  std::string_view name() const override { return name_; }
  trainer::Phases phases() const override {
    using trainer::Phase;
    return {Phase::kCustomValidation, Phase::kEnforceMLPolicy,     Phase::kEnforcePodGroupPolicy,
            Phase::kEnforcePodSpec,   Phase::kPreComponentBuilder, Phase::kComponentBuilder};
  }
  trainer::ValidationResult validate(const Info&, const TrainJob*, const TrainJob&,
                                     const trainer::PluginContext& ctx) override {
    seen(ctx);
    log_->push_back(name_ + ":validate");
    trainer::ValidationResult r;
    r.warnings.push_back(name_ + " warns");
    r.errors.push_back(trainer::field_required("spec." + name_, "from " + name_));
    return r;
  }
  Result<void> enforce_ml_policy(Info&, TrainJob&, const trainer::PluginContext& ctx) override {
    return step("ml", ctx);
  }
  Result<void> enforce_pod_group_policy(Info&, const TrainJob&,
                                        const trainer::PluginContext& ctx) override {
    return step("pg", ctx);
  }
  Result<void> enforce_pod_spec(Info&, const TrainJob&,
                                const trainer::PluginContext& ctx) override {
    return step("podspec", ctx);
  }
  Result<void> pre_build_sync(Info&, const TrainJob&, const trainer::PluginContext& ctx) override {
    return step("prebuild", ctx);
  }
  Result<std::vector<boost::json::value>> build(const Info&, const TrainJob&,
                                                const trainer::PluginContext& ctx) override {
    if (auto r = step("build", ctx); !r) return tl::unexpected(r.error());
    return std::vector<boost::json::value>{boost::json::object{
        {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name_}}}}};
  }

 private:
  // What every phase saw of the context: the UID of the render and the framework's options.
  void seen(const trainer::PluginContext& ctx) {
    contexts.push_back(ctx.inputs.train_job_uid + "/" + ctx.config.operator_namespace + "/" +
                       (ctx.feature_gates.trainjob_status ? "status" : "-"));
  }
  Result<void> step(const std::string& phase, const trainer::PluginContext& ctx) {
    seen(ctx);
    log_->push_back(name_ + ":" + phase);
    if (phase == fail_in_) return trainer::fail(trainer::ErrorCode::kInvalid, name_ + " failed");
    return {};
  }
  std::string name_;
  std::vector<std::string>* log_;
  std::string fail_in_;

 public:
  std::vector<std::string> contexts;
};

// Implements only the ML-policy extension point.
class MlOnly final : public trainer::EnforceMLPolicyPlugin {
 public:
  explicit MlOnly(std::vector<std::string>* log) : log_(log) {}
  std::string_view name() const override { return "MlOnly"; }
  trainer::Phases phases() const override { return {trainer::Phase::kEnforceMLPolicy}; }
  Result<void> enforce_ml_policy(Info&, TrainJob&, const trainer::PluginContext&) override {
    log_->push_back("MlOnly:ml");
    return {};
  }

 private:
  std::vector<std::string>* log_;
};

trainer::Framework make(std::vector<std::string>* log, const std::string& fail_a = {}) {
  const trainer::Registry registry = {
      {"A", [=] { return std::make_shared<Recorder>("A", log, fail_a); }},
      {"MlOnly", [=] { return std::make_shared<MlOnly>(log); }},
      {"B", [=] { return std::make_shared<Recorder>("B", log); }},
  };
  auto fw = trainer::Framework::from_registry(registry);
  REQUIRE(fw);
  return std::move(*fw);
}

// Derives from every interface but takes part only in the phases it lists.
class Partial final : public trainer::EnforceMLPolicyPlugin,
                      public trainer::ComponentBuilderPlugin {
 public:
  explicit Partial(trainer::Phases phases) : phases_(phases) {}
  std::string_view name() const override { return "Partial"; }
  trainer::Phases phases() const override { return phases_; }
  Result<void> enforce_ml_policy(Info&, TrainJob&, const trainer::PluginContext&) override {
    ++ml_calls;
    return {};
  }
  Result<std::vector<boost::json::value>> build(const Info&, const TrainJob&,
                                                const trainer::PluginContext&) override {
    ++build_calls;
    return std::vector<boost::json::value>{};
  }
  int ml_calls = 0;
  int build_calls = 0;

 private:
  trainer::Phases phases_;
};

}  // namespace

TEST_CASE("Framework partitions plugins per extension point, in plugin order") {
  std::vector<std::string> log;
  const auto fw = make(&log);
  Info info;
  TrainJob job;
  RenderContext ctx;
  REQUIRE(fw.run_enforce_ml_policy(info, job, ctx));
  REQUIRE(fw.run_enforce_pod_group_policy(info, job, ctx));
  REQUIRE(fw.run_enforce_pod_spec(info, job, ctx));
  REQUIRE(fw.run_pre_build_sync(info, job, ctx));
  auto objects = fw.run_component_builders(info, job, ctx);
  REQUIRE(objects);
  REQUIRE(objects->size() == 2);
  CHECK(objects->at(0).at("metadata").at("name") == "A");
  CHECK(objects->at(1).at("metadata").at("name") == "B");
  CHECK(log == std::vector<std::string>{"A:ml", "MlOnly:ml", "B:ml", "A:pg", "B:pg", "A:podspec",
                                        "B:podspec", "A:prebuild", "B:prebuild", "A:build",
                                        "B:build"});
  CHECK(fw.plugins().size() == 3);
}

TEST_CASE("Framework validation collects every plugin's warnings and errors") {
  std::vector<std::string> log;
  const auto fw = make(&log);
  const auto result = fw.run_custom_validation(Info{}, nullptr, TrainJob{}, RenderContext{});
  CHECK(result.warnings == std::vector<std::string>{"A warns", "B warns"});
  REQUIRE(result.errors.size() == 2);
  CHECK(result.errors[0].path == "spec.A");
  CHECK(result.errors[1].path == "spec.B");
}

TEST_CASE("Framework enforce and build phases stop at the first error") {
  for (const std::string phase : {"ml", "build"}) {
    std::vector<std::string> log;
    const auto fw = make(&log, phase);
    Info info;
    TrainJob job;
    if (phase == "ml") {
      auto r = fw.run_enforce_ml_policy(info, job, RenderContext{});
      REQUIRE_FALSE(r);
      CHECK(r.error().message == "A failed");
      CHECK(log == std::vector<std::string>{"A:ml"});
    } else {
      auto r = fw.run_component_builders(info, job, RenderContext{});
      REQUIRE_FALSE(r);
      CHECK(log == std::vector<std::string>{"A:build"});
    }
  }
}

TEST_CASE("default_registry lists the built-in plugins in the documented order") {
  const auto names = [](const trainer::Registry& r) {
    std::vector<std::string> out;
    for (const auto& e : r) out.push_back(e.name);
    return out;
  };
  const std::vector<std::string> base = {"JobSet", "Torch",   "MPI",          "JAX",    "XGBoost",
                                         "Flux",   "PlainML", "CoScheduling", "Volcano"};
  CHECK(names(trainer::default_registry({})) == base);
  trainer::FeatureGates gates;
  gates.trainjob_status = true;
  auto with_status = base;
  with_status.emplace_back("TrainJobStatus");
  const auto registry = trainer::default_registry(gates);
  CHECK(names(registry) == with_status);
  const auto fw = trainer::Framework::from_registry(registry);
  REQUIRE(fw);
  REQUIRE(fw->plugins().size() == registry.size());
  for (std::size_t i = 0; i < registry.size(); ++i) {
    CHECK(fw->plugins()[i]->name() == registry[i].name);
  }
}

TEST_CASE("every phase gets the render's inputs and the options the Framework is bound to") {
  std::vector<std::string> log;
  auto recorder = std::make_shared<Recorder>("Paddle", &log);
  trainer::FrameworkOptions options;
  options.feature_gates.trainjob_status = true;
  options.config.operator_namespace = "ops";
  auto fw = trainer::Framework::from_registry({{"Paddle", [&] { return recorder; }}}, options);
  REQUIRE(fw);
  CHECK(fw->feature_gates().trainjob_status);
  CHECK(fw->config().operator_namespace == "ops");
  RenderContext ctx;
  ctx.train_job_uid = "u1";
  Info info;
  TrainJob job;
  CHECK_FALSE(fw->run_custom_validation(info, nullptr, job, ctx).ok());
  REQUIRE(fw->run_enforce_ml_policy(info, job, ctx));
  REQUIRE(fw->run_enforce_pod_group_policy(info, job, ctx));
  REQUIRE(fw->run_enforce_pod_spec(info, job, ctx));
  REQUIRE(fw->run_pre_build_sync(info, job, ctx));
  REQUIRE(fw->run_component_builders(info, job, ctx));
  CHECK(recorder->contexts == std::vector<std::string>(6, "u1/ops/status"));

  // with_config: the same plugin instances, another operator configuration.
  trainer::OperatorConfig other;
  other.operator_namespace = "elsewhere";
  const trainer::Framework rebound = fw->with_config(other);
  CHECK(rebound.plugins().back() == fw->plugins().back());
  CHECK(rebound.feature_gates().trainjob_status);
  recorder->contexts.clear();
  REQUIRE(rebound.run_enforce_ml_policy(info, job, ctx));
  CHECK(recorder->contexts == std::vector<std::string>{"u1/elsewhere/status"});
  CHECK(fw->config().operator_namespace == "ops");
}

TEST_CASE("a plugin takes part only in the phases it lists") {
  auto partial = std::make_shared<Partial>(trainer::Phases{trainer::Phase::kComponentBuilder});
  auto fw = trainer::Framework::from_registry({{"Partial", [&] { return partial; }}});
  REQUIRE(fw);
  Info info;
  TrainJob job;
  REQUIRE(fw->run_enforce_ml_policy(info, job, RenderContext{}));
  REQUIRE(fw->run_component_builders(info, job, RenderContext{}));
  CHECK(partial->ml_calls == 0);
  CHECK(partial->build_calls == 1);
}

TEST_CASE("a plugin that lists a phase it does not implement is refused") {
  auto fw = trainer::Framework::with_plugins(
      {}, {std::make_shared<Partial>(
              trainer::Phases{trainer::Phase::kEnforceMLPolicy, trainer::Phase::kEnforcePodSpec})});
  REQUIRE_FALSE(fw);
  CHECK(fw.error().code == trainer::ErrorCode::kInvalid);
  CHECK(fw.error().message ==
        "plugin \"Partial\" lists phase EnforcePodSpec but does not implement "
        "EnforcePodSpecPlugin");
}

TEST_CASE("RenderContext::find without a lookup finds nothing") {
  RenderContext ctx;
  CHECK_FALSE(ctx.find("v1", "Secret", "default", "x"));
  ctx.lookup = [](std::string_view, std::string_view kind, std::string_view,
                  std::string_view name) -> std::optional<boost::json::value> {
    if (kind == "Secret" && name == "x") return boost::json::value("found");
    return std::nullopt;
  };
  CHECK(ctx.find("v1", "Secret", "default", "x") == std::optional<boost::json::value>("found"));
  CHECK_FALSE(ctx.find("v1", "Secret", "default", "y"));
}

namespace {

// A builder whose ConfigMap records how many keys the Info's JobSet spec had when it ran;
// `takes`: it takes the Info (as the JobSet plugin does) and keeps the spec in its object.
class SpecBuilder final : public trainer::ComponentBuilderPlugin {
 public:
  SpecBuilder(std::string name, std::vector<std::string>* log, bool takes, bool fails = false)
      : name_(std::move(name)), log_(log), takes_(takes), fails_(fails) {}
  std::string_view name() const override { return name_; }
  trainer::Phases phases() const override { return {trainer::Phase::kComponentBuilder}; }
  bool takes_info() const override { return takes_; }
  Result<std::vector<boost::json::value>> build(const Info& info, const TrainJob&,
                                                const trainer::PluginContext&) override {
    log_->push_back(name_ + ":build");
    return made(info.template_spec.jobset_spec);
  }
  Result<std::vector<boost::json::value>> build_taking_info(
      Info& info, const TrainJob&, const trainer::PluginContext&) override {
    log_->push_back(name_ + ":take");
    return made(std::move(info.template_spec.jobset_spec));
  }

 private:
  Result<std::vector<boost::json::value>> made(boost::json::object spec) const {
    if (fails_) return trainer::fail(trainer::ErrorCode::kInvalid, name_ + " failed");
    const auto keys = static_cast<std::int64_t>(spec.size());
    return std::vector<boost::json::value>{
        boost::json::object{{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", {{"name", name_}}},
                            {"data", {{"keys", keys}, {"spec", std::move(spec)}}}}};
  }
  std::string name_;
  std::vector<std::string>* log_;
  bool takes_;
  bool fails_;
};

trainer::Framework spec_builders(std::vector<std::string>* log, bool before_fails, bool taker_fails,
                                 bool after_fails) {
  auto fw = trainer::Framework::from_registry({
      {"Before", [=] { return std::make_shared<SpecBuilder>("Before", log, false, before_fails); }},
      {"Taker", [=] { return std::make_shared<SpecBuilder>("Taker", log, true, taker_fails); }},
      {"Second", [=] { return std::make_shared<SpecBuilder>("Second", log, true); }},
      {"After", [=] { return std::make_shared<SpecBuilder>("After", log, false, after_fails); }},
  });
  REQUIRE(fw);
  return std::move(*fw);
}

Info info_with_spec() {
  Info info;
  info.template_spec.jobset_spec = boost::json::object{{"replicatedJobs", boost::json::array{}}};
  return info;
}

std::int64_t keys_seen(const boost::json::value& object) {
  return object.at("data").at("keys").as_int64();
}

}  // namespace

TEST_CASE("a render that gives its Info up lets the first builder that takes it run last") {
  std::vector<std::string> log;
  const auto fw = spec_builders(&log, false, false, false);
  Info info = info_with_spec();
  auto objects = fw.run_component_builders(std::move(info), TrainJob{}, RenderContext{});
  REQUIRE(objects);
  // Every other builder ran before the taker and saw the spec; the objects keep plugin order.
  CHECK(log ==
        std::vector<std::string>{"Before:build", "Second:build", "After:build", "Taker:take"});
  REQUIRE(objects->size() == 4);
  const std::vector<std::string> names = {"Before", "Taker", "Second", "After"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(objects->at(i).at("metadata").at("name").as_string() == names[i]);
    CHECK(keys_seen(objects->at(i)) == 1);
  }
  CHECK(objects->at(1).at("data").at("spec").as_object().contains("replicatedJobs"));
}

TEST_CASE("run_component_builders on a kept Info calls build only, in plugin order") {
  std::vector<std::string> log;
  const auto fw = spec_builders(&log, false, false, false);
  const Info info = info_with_spec();
  auto objects = fw.run_component_builders(info, TrainJob{}, RenderContext{});
  REQUIRE(objects);
  CHECK(log ==
        std::vector<std::string>{"Before:build", "Taker:build", "Second:build", "After:build"});
  CHECK(info.template_spec.jobset_spec.size() == 1);
}

TEST_CASE("the taker's error comes first, as in plugin order") {
  const auto run = [](bool before_fails, bool taker_fails, bool after_fails) {
    std::vector<std::string> log;
    const auto fw = spec_builders(&log, before_fails, taker_fails, after_fails);
    auto r = fw.run_component_builders(info_with_spec(), TrainJob{}, RenderContext{});
    REQUIRE_FALSE(r);
    return r.error().message;
  };
  CHECK(run(true, true, true) == "Before failed");
  CHECK(run(false, true, true) == "Taker failed");
  CHECK(run(false, false, true) == "After failed");
  CHECK(run(false, true, false) == "Taker failed");
}
