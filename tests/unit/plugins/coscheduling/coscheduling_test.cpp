// SPDX-License-Identifier: Apache-2.0
//
// CoScheduling plugin: behaviours of upstream's coscheduling_test.go and the integration example
// (reference 7.4), on hand-built Info fixtures.
#include "plugins/coscheduling/coscheduling_plugin.hpp"

#include <catch2/catch.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace json = boost::json;
using trainer::ComponentBuilderPlugin;
using trainer::EnforcePodGroupPolicyPlugin;
using trainer::Info;
using trainer::PodSet;
using trainer::Quantity;
using trainer::RenderContext;
using trainer::TrainJob;

namespace {

Quantity q(const char* text) {
  return Quantity::parse(text).value();
}

PodSet pod_set(std::string name, std::int32_t count,
               std::map<std::string, Quantity> requests = {}) {
  PodSet ps;
  ps.name = std::move(name);
  ps.count = count;
  ps.single_pod_requests = std::move(requests);
  return ps;
}

Info coscheduling_info(std::optional<std::int32_t> timeout, std::vector<PodSet> pod_sets) {
  Info info;
  trainer::PodGroupPolicy policy;
  policy.coscheduling = trainer::CoschedulingPodGroupPolicySource{timeout};
  info.runtime_policy.pod_group_policy = policy;
  info.template_spec.pod_sets = std::move(pod_sets);
  return info;
}

TrainJob train_job(const char* name, const char* ns, bool suspend = false) {
  TrainJob job;
  job.metadata.name = name;
  job.metadata.namespace_ = ns;
  job.spec.suspend = suspend;
  return job;
}

using Lookups = std::vector<std::tuple<std::string, std::string, std::string, std::string>>;

/// A context whose lookup answers with `existing` (or nothing) and records every call.
RenderContext context(Lookups* calls, std::optional<json::value> existing = std::nullopt) {
  RenderContext ctx;
  ctx.train_job_uid = "uid-1";
  ctx.lookup = [calls, existing](std::string_view api, std::string_view kind, std::string_view ns,
                                 std::string_view name) -> std::optional<json::value> {
    if (calls != nullptr) calls->emplace_back(api, kind, ns, name);
    return existing;
  };
  return ctx;
}

json::value build_one(Info& info, const TrainJob& job, const RenderContext& ctx) {
  auto plugin = trainer::plugins::make_coscheduling_plugin();
  auto* builder = dynamic_cast<ComponentBuilderPlugin*>(plugin.get());
  REQUIRE(builder != nullptr);
  auto objects = builder->build(info, job, ctx);
  REQUIRE(objects.has_value());
  REQUIRE(objects->size() == 1);
  return objects->front();
}

json::value owner_refs(const char* name, const char* uid) {
  return json::array{json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                  {"kind", "TrainJob"},
                                  {"name", name},
                                  {"uid", uid},
                                  {"controller", true},
                                  {"blockOwnerDeletion", true}}};
}

}  // namespace

TEST_CASE("coscheduling: registry name and interfaces", "[coscheduling]") {
  auto plugin = trainer::plugins::make_coscheduling_plugin();
  CHECK(plugin->name() == "CoScheduling");
  CHECK(dynamic_cast<EnforcePodGroupPolicyPlugin*>(plugin.get()) != nullptr);
  CHECK(dynamic_cast<ComponentBuilderPlugin*>(plugin.get()) != nullptr);
  CHECK(dynamic_cast<trainer::CustomValidationPlugin*>(plugin.get()) == nullptr);
}

TEST_CASE("coscheduling: no action without the coscheduling policy", "[coscheduling]") {
  auto plugin = trainer::plugins::make_coscheduling_plugin();
  auto* enforcer = dynamic_cast<EnforcePodGroupPolicyPlugin*>(plugin.get());
  auto* builder = dynamic_cast<ComponentBuilderPlugin*>(plugin.get());
  const TrainJob job = train_job("job", "default");
  Lookups calls;
  const RenderContext ctx = context(&calls);

  Info no_policy;
  no_policy.template_spec.pod_sets.push_back(pod_set("node", 2, {{"cpu", q("1")}}));
  Info volcano_only = no_policy;
  volcano_only.runtime_policy.pod_group_policy = trainer::PodGroupPolicy{};
  volcano_only.runtime_policy.pod_group_policy->volcano = trainer::VolcanoPodGroupPolicySource{};

  for (Info* info : {&no_policy, &volcano_only}) {
    REQUIRE(enforcer->enforce_pod_group_policy(*info, job, trainer::RenderContext{}).has_value());
    CHECK(info->scheduler.pod_labels.empty());
    CHECK(info->scheduler.pod_annotations.empty());
    auto objects = builder->build(*info, job, ctx);
    REQUIRE(objects.has_value());
    CHECK(objects->empty());
  }
  CHECK(calls.empty());
}

TEST_CASE("coscheduling: pod-group label on every pod template", "[coscheduling]") {
  auto plugin = trainer::plugins::make_coscheduling_plugin();
  auto* enforcer = dynamic_cast<EnforcePodGroupPolicyPlugin*>(plugin.get());
  Info info = coscheduling_info(30, {pod_set("node", 1)});
  info.scheduler.pod_labels["existing"] = "kept";
  REQUIRE(enforcer
              ->enforce_pod_group_policy(info, train_job("test-job", "default"),
                                         trainer::RenderContext{})
              .has_value());
  CHECK(info.scheduler.pod_labels ==
        trainer::StringMap{{"existing", "kept"}, {"scheduling.x-k8s.io/pod-group", "test-job"}});
  CHECK(info.scheduler.pod_annotations.empty());
}

TEST_CASE("coscheduling: PodGroup for a single PodSet without requests", "[coscheduling]") {
  Info info = coscheduling_info(30, {pod_set("node", 1)});
  Lookups calls;
  const json::value pg = build_one(info, train_job("test-job", "default"), context(&calls));
  const json::value want = {
      {"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
      {"kind", "PodGroup"},
      {"metadata",
       {{"name", "test-job"},
        {"namespace", "default"},
        {"ownerReferences", owner_refs("test-job", "uid-1")}}},
      {"spec",
       {{"minMember", 1}, {"minResources", json::object{}}, {"scheduleTimeoutSeconds", 30}}}};
  CHECK(json::serialize(pg) == json::serialize(want));
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == std::make_tuple(std::string("scheduling.x-k8s.io/v1alpha1"),
                                    std::string("PodGroup"), std::string("default"),
                                    std::string("test-job")));
}

TEST_CASE("coscheduling: totals over several PodSets with exact quantities", "[coscheduling]") {
  Info info =
      coscheduling_info(30, {pod_set("node", 2, {{"cpu", q("500m")}, {"memory", q("1Gi")}}),
                             pod_set("launcher", 1, {{"cpu", q("250m")}, {"memory", q("512Mi")}})});
  const json::value pg = build_one(info, train_job("test-job", "default"), context(nullptr));
  const json::object& spec = pg.at("spec").as_object();
  CHECK(spec.at("minMember") == 3);
  // 2 x 500m + 250m and 2 x 1Gi + 512Mi, printed canonically.
  CHECK(spec.at("minResources") == json::value{{"cpu", "1250m"}, {"memory", "2560Mi"}});
  CHECK(q("1.25") == q("1250m"));
  CHECK(q("2.5Gi") == q("2560Mi"));
}

TEST_CASE("coscheduling: 100 trainer nodes and two initializers", "[coscheduling]") {
  // Reference 7.4 / upstream integration test: every pod 1 CPU and 4Gi.
  const std::map<std::string, Quantity> requests{{"cpu", q("1")}, {"memory", q("4Gi")}};
  Info info = coscheduling_info(
      100, {pod_set("dataset-initializer", 1, requests), pod_set("model-initializer", 1, requests),
            pod_set("node", 100, requests)});
  const json::value pg = build_one(info, train_job("test-job", "default"), context(nullptr));
  const json::object& spec = pg.at("spec").as_object();
  CHECK(spec.at("minMember") == 102);
  CHECK(spec.at("minResources") == json::value{{"cpu", "102"}, {"memory", "408Gi"}});
  CHECK(spec.at("scheduleTimeoutSeconds") == 100);
}

TEST_CASE("coscheduling: single-pod requests are multiplied as given, per resource name",
          "[coscheduling]") {
  // The framework already folds init containers, sidecars and overhead into
  // single_pod_requests (e.g. max(init 2, app 1 + sidecar 0.5) + overhead 100m = 2100m).
  Info info = coscheduling_info(
      std::nullopt, {pod_set("node", 3, {{"cpu", q("2100m")}, {"nvidia.com/gpu", q("2")}}),
                     pod_set("launcher", 1, {{"cpu", q("100m")}, {"ephemeral-storage", q("1G")}}),
                     pod_set("idle", 0, {{"cpu", q("8")}})});
  const json::value pg = build_one(info, train_job("j", "ns"), context(nullptr));
  const json::object& spec = pg.at("spec").as_object();
  CHECK(spec.at("minMember") == 4);
  CHECK(spec.at("minResources") ==
        json::value{{"cpu", "6400m"}, {"ephemeral-storage", "1G"}, {"nvidia.com/gpu", "6"}});
  // Coscheduling's default timeout when the runtime was not defaulted.
  CHECK(spec.at("scheduleTimeoutSeconds") == 60);
}

TEST_CASE("coscheduling: existing PodGroup is kept unless the TrainJob is suspended",
          "[coscheduling]") {
  auto plugin = trainer::plugins::make_coscheduling_plugin();
  auto* builder = dynamic_cast<ComponentBuilderPlugin*>(plugin.get());
  Info info = coscheduling_info(30, {pod_set("node", 2, {{"cpu", q("500m")}})});
  const json::value existing = {{"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
                                {"kind", "PodGroup"},
                                {"metadata", {{"name", "job"}, {"namespace", "ns"}}}};

  SECTION("exists, not suspended: nothing is built") {
    auto objects = builder->build(info, train_job("job", "ns", false), context(nullptr, existing));
    REQUIRE(objects.has_value());
    CHECK(objects->empty());
  }
  SECTION("exists, suspend unset: nothing is built") {
    TrainJob job = train_job("job", "ns");
    job.spec.suspend.reset();
    auto objects = builder->build(info, job, context(nullptr, existing));
    REQUIRE(objects.has_value());
    CHECK(objects->empty());
  }
  SECTION("exists, suspended: rebuilt") {
    const json::value pg =
        build_one(info, train_job("job", "ns", true), context(nullptr, existing));
    CHECK(pg.at("spec").at("minMember") == 2);
    CHECK(pg.at("spec").at("minResources") == json::value{{"cpu", "1"}});
  }
  SECTION("absent, not suspended: built") {
    const json::value pg = build_one(info, train_job("job", "ns", false), context(nullptr));
    CHECK(pg.at("metadata").at("name") == "job");
  }
  SECTION("no lookup configured: built") {
    RenderContext ctx;
    const json::value pg = build_one(info, train_job("job", "ns", false), ctx);
    CHECK(pg.at("metadata").at("ownerReferences").at(0).at("uid") == "");
  }
}

TEST_CASE("coscheduling: owner reference uid falls back to the TrainJob's", "[coscheduling]") {
  Info info = coscheduling_info(30, {pod_set("node", 1)});
  TrainJob job = train_job("job", "ns");
  job.metadata.uid = "from-job";
  RenderContext ctx;
  CHECK(build_one(info, job, ctx).at("metadata").at("ownerReferences") ==
        owner_refs("job", "from-job"));
  ctx.train_job_uid = "from-context";
  CHECK(build_one(info, job, ctx).at("metadata").at("ownerReferences") ==
        owner_refs("job", "from-context"));
}

TEST_CASE("coscheduling: a PodSet without a count counts as one pod", "[coscheduling]") {
  PodSet ps = pod_set("node", 1, {{"cpu", q("3")}});
  ps.count.reset();
  Info info = coscheduling_info(30, {ps});
  const json::value pg = build_one(info, train_job("job", "ns"), context(nullptr));
  CHECK(pg.at("spec").at("minMember") == 1);
  CHECK(pg.at("spec").at("minResources") == json::value{{"cpu", "3"}});
}

TEST_CASE("coscheduling: minMember beyond int32 is an error", "[coscheduling]") {
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  Info info = coscheduling_info(30, {pod_set("a", kMax), pod_set("b", 1)});
  auto plugin = trainer::plugins::make_coscheduling_plugin();
  auto* builder = dynamic_cast<ComponentBuilderPlugin*>(plugin.get());
  auto objects = builder->build(info, train_job("job", "ns"), context(nullptr));
  REQUIRE_FALSE(objects.has_value());
  CHECK(objects.error().code == trainer::ErrorCode::kLimit);
  CHECK(objects.error().message == "PodGroup minMember 2147483648 does not fit in int32");
}
