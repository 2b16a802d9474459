// SPDX-License-Identifier: Apache-2.0
//
// Volcano plugin: behaviours of upstream's volcano_test.go (TestVolcano, TestValidate) on
// hand-built Info fixtures, plus libtrainer's choice for the system-* priority class quirk.
#include "plugins/volcano/volcano_plugin.hpp"

#include <catch2/catch.hpp>

#include <boost/json/serialize.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace json = boost::json;
using trainer::ComponentBuilderPlugin;
using trainer::CustomValidationPlugin;
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

/// A replicated job whose pod spec sets `priorityClassName` when `pc` is given.
json::value replicated_job(const char* name, std::optional<const char*> pc) {
  json::object pod_spec{{"containers", json::array{json::object{{"name", "node"}}}}};
  if (pc) pod_spec["priorityClassName"] = *pc;
  return {{"name", name},
          {"template", {{"spec", {{"template", {{"spec", std::move(pod_spec)}}}}}}}};
}

Info volcano_info(std::vector<json::value> jobs = {}, std::vector<PodSet> pod_sets = {}) {
  Info info;
  trainer::PodGroupPolicy policy;
  policy.volcano = trainer::VolcanoPodGroupPolicySource{};
  info.runtime_policy.pod_group_policy = policy;
  info.template_spec.jobset_spec["replicatedJobs"] = json::array(jobs.begin(), jobs.end());
  info.template_spec.pod_sets = std::move(pod_sets);
  return info;
}

PodSet pod_set(std::string name, std::int32_t count, std::map<std::string, Quantity> requests) {
  PodSet ps;
  ps.name = std::move(name);
  ps.count = count;
  ps.single_pod_requests = std::move(requests);
  return ps;
}

TrainJob train_job(const char* name, const char* ns, bool suspend = false) {
  TrainJob job;
  job.metadata.name = name;
  job.metadata.namespace_ = ns;
  job.spec.suspend = suspend;
  return job;
}

using Lookup = std::tuple<std::string, std::string, std::string, std::string>;

/// A context in which the objects named in `existing` (by kind/name) exist; records lookups.
RenderContext context(std::vector<Lookup>* calls, std::set<std::string> existing = {}) {
  RenderContext ctx;
  ctx.train_job_uid = "uid-2";
  ctx.lookup = [calls, existing](std::string_view api, std::string_view kind, std::string_view ns,
                                 std::string_view name) -> std::optional<json::value> {
    if (calls != nullptr) calls->emplace_back(api, kind, ns, name);
    if (existing.count(std::string(kind) + "/" + std::string(name)) == 0) return std::nullopt;
    return json::value{{"apiVersion", api}, {"kind", kind}, {"metadata", {{"name", name}}}};
  };
  return ctx;
}

struct Fixture {
  std::unique_ptr<trainer::Plugin> plugin = trainer::plugins::make_volcano_plugin();
  CustomValidationPlugin& validator = dynamic_cast<CustomValidationPlugin&>(*plugin);
  EnforcePodGroupPolicyPlugin& enforcer = dynamic_cast<EnforcePodGroupPolicyPlugin&>(*plugin);
  ComponentBuilderPlugin& builder = dynamic_cast<ComponentBuilderPlugin&>(*plugin);

  json::value build_one(const Info& info, const TrainJob& job, const RenderContext& ctx) {
    auto objects = builder.build(info, job, ctx);
    REQUIRE(objects.has_value());
    REQUIRE(objects->size() == 1);
    return objects->front();
  }

  std::vector<std::string> errors(const Info& info, const RenderContext& ctx) {
    const trainer::ValidationResult result =
        validator.validate(info, nullptr, train_job("test", "default"), ctx);
    CHECK(result.warnings.empty());
    std::vector<std::string> out;
    for (const auto& e : result.errors) out.push_back(e.to_string());
    return out;
  }
};

/// Upstream's base fixture: launcher 1 x (300m, 1Gi) with priority class `high-priority`, worker
/// 4 x (500m, 0.5Gi).
Info base_info() {
  return volcano_info({replicated_job("launcher", "high-priority"), replicated_job("worker", {})},
                      {pod_set("launcher", 1, {{"cpu", q("300m")}, {"memory", q("1Gi")}}),
                       pod_set("worker", 4, {{"cpu", q("500m")}, {"memory", q("0.5Gi")}})});
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

TEST_CASE("volcano: registry name and interfaces", "[volcano]") {
  auto plugin = trainer::plugins::make_volcano_plugin();
  CHECK(plugin->name() == "Volcano");
  CHECK(dynamic_cast<CustomValidationPlugin*>(plugin.get()) != nullptr);
  CHECK(dynamic_cast<EnforcePodGroupPolicyPlugin*>(plugin.get()) != nullptr);
  CHECK(dynamic_cast<ComponentBuilderPlugin*>(plugin.get()) != nullptr);
}

TEST_CASE("volcano: no action without the volcano policy", "[volcano]") {
  Fixture f;
  std::vector<Lookup> calls;
  const RenderContext ctx = context(&calls);
  Info no_policy = base_info();
  no_policy.runtime_policy.pod_group_policy.reset();
  no_policy.annotations["scheduling.volcano.sh/queue-name"] = "";
  Info coscheduling_only = no_policy;
  coscheduling_only.runtime_policy.pod_group_policy = trainer::PodGroupPolicy{};
  coscheduling_only.runtime_policy.pod_group_policy->coscheduling =
      trainer::CoschedulingPodGroupPolicySource{60};

  for (Info* info : {&no_policy, &coscheduling_only}) {
    CHECK(f.errors(*info, ctx).empty());
    REQUIRE(
        f.enforcer.enforce_pod_group_policy(*info, train_job("j", "ns"), trainer::RenderContext{})
            .has_value());
    CHECK(info->scheduler.pod_annotations.empty());
    CHECK(info->scheduler.pod_labels.empty());
    auto objects = f.builder.build(*info, train_job("j", "ns"), ctx);
    REQUIRE(objects.has_value());
    CHECK(objects->empty());
  }
  CHECK(calls.empty());
}

TEST_CASE("volcano: group-name annotation on every pod template", "[volcano]") {
  Fixture f;
  Info info = volcano_info();
  REQUIRE(
      f.enforcer
          .enforce_pod_group_policy(info, train_job("test-trainjob", ""), trainer::RenderContext{})
          .has_value());
  CHECK(info.scheduler.pod_annotations ==
        trainer::StringMap{{"scheduling.k8s.io/group-name", "test-trainjob"}});
  CHECK(info.scheduler.pod_labels.empty());
}

TEST_CASE("volcano: minimal PodGroup", "[volcano]") {
  Fixture f;
  Info info = volcano_info();
  TrainJob job = train_job("test-trainjob", "");
  job.metadata.namespace_.reset();
  const json::value pg = f.build_one(info, job, RenderContext{});
  const json::value want = {
      {"apiVersion", "scheduling.volcano.sh/v1beta1"},
      {"kind", "PodGroup"},
      {"metadata",
       {{"name", "test-trainjob"}, {"ownerReferences", owner_refs("test-trainjob", "")}}},
      {"spec", {{"minMember", 0}, {"minResources", json::object{}}}}};
  CHECK(json::serialize(pg) == json::serialize(want));
}

TEST_CASE("volcano: full PodGroup with queue, priority class and network topology", "[volcano]") {
  // Upstream "PodGroup exists but trainjob suspended": the PodGroup is rebuilt.
  Fixture f;
  Info info = base_info();
  info.annotations["scheduling.volcano.sh/queue-name"] = "q1";
  info.runtime_policy.pod_group_policy->volcano->network_topology =
      json::object{{"mode", "hard"}, {"highestTierAllowed", 1}};
  std::vector<Lookup> calls;
  const json::value pg = f.build_one(info, train_job("job-update", "test-ns", true),
                                     context(&calls, {"PodGroup/job-update"}));
  const json::value want = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
                            {"kind", "PodGroup"},
                            {"metadata",
                             {{"name", "job-update"},
                              {"namespace", "test-ns"},
                              {"ownerReferences", owner_refs("job-update", "uid-2")}}},
                            {"spec",
                             {{"minMember", 5},
                              {"queue", "q1"},
                              {"priorityClassName", "high-priority"},
                              {"minResources", {{"cpu", "2300m"}, {"memory", "3Gi"}}},
                              {"networkTopology", {{"mode", "hard"}, {"highestTierAllowed", 1}}}}}};
  CHECK(json::serialize(pg) == json::serialize(want));
  // A suspended TrainJob's PodGroup is rebuilt whether or not it exists: no lookup needed.
  CHECK(calls.empty());
}

TEST_CASE("volcano: existing PodGroup and running TrainJob: nothing built", "[volcano]") {
  Fixture f;
  std::vector<Lookup> calls;
  auto objects = f.builder.build(base_info(), train_job("job-exist-running", "test-ns", false),
                                 context(&calls, {"PodGroup/job-exist-running"}));
  REQUIRE(objects.has_value());
  CHECK(objects->empty());
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] ==
        Lookup("scheduling.volcano.sh/v1beta1", "PodGroup", "test-ns", "job-exist-running"));
}

TEST_CASE("volcano: priorityClassName of the last job that sets one", "[volcano]") {
  Fixture f;
  Info info = volcano_info({replicated_job("a", "first"), replicated_job("b", {}),
                            replicated_job("c", "third"), replicated_job("d", "")});
  const json::value pg = f.build_one(info, train_job("j", "ns"), context(nullptr));
  CHECK(pg.at("spec").at("priorityClassName") == "third");

  Info none = volcano_info({replicated_job("a", {}), replicated_job("b", "")});
  CHECK(f.build_one(none, train_job("j", "ns"), context(nullptr))
            .at("spec")
            .as_object()
            .if_contains("priorityClassName") == nullptr);
}

TEST_CASE("volcano: queue only when the annotation is present", "[volcano]") {
  Fixture f;
  Info info = volcano_info();
  info.annotations["other"] = "x";
  CHECK(f.build_one(info, train_job("j", "ns"), context(nullptr))
            .at("spec")
            .as_object()
            .if_contains("queue") == nullptr);
  info.annotations["scheduling.volcano.sh/queue-name"] = "research";
  CHECK(f.build_one(info, train_job("j", "ns"), context(nullptr)).at("spec").at("queue") ==
        "research");
}

TEST_CASE("volcano: network topology mode and tier copied, defaults filled", "[volcano]") {
  Fixture f;
  Info info = volcano_info();
  auto& topology = info.runtime_policy.pod_group_policy->volcano->network_topology;

  topology = json::object{{"mode", "soft"}, {"highestTierAllowed", 3}, {"highestTierName", "x"}};
  CHECK(
      f.build_one(info, train_job("j", "ns"), context(nullptr)).at("spec").at("networkTopology") ==
      json::value{{"mode", "soft"}, {"highestTierAllowed", 3}});

  topology = json::object{};
  CHECK(
      f.build_one(info, train_job("j", "ns"), context(nullptr)).at("spec").at("networkTopology") ==
      json::value{{"mode", "hard"}, {"highestTierAllowed", 1}});

  topology.reset();
  CHECK(f.build_one(info, train_job("j", "ns"), context(nullptr))
            .at("spec")
            .as_object()
            .if_contains("networkTopology") == nullptr);
}

TEST_CASE("volcano: validation of the queue annotation", "[volcano]") {
  Fixture f;
  Info info = volcano_info();
  CHECK(f.errors(info, context(nullptr)).empty());
  info.annotations["scheduling.volcano.sh/queue-name"] = "default";
  CHECK(f.errors(info, context(nullptr)).empty());
  info.annotations["scheduling.volcano.sh/queue-name"] = "";
  CHECK(f.errors(info, context(nullptr)) ==
        std::vector<std::string>{"spec.annotations[scheduling.volcano.sh/queue-name]: Invalid "
                                 "value: \"\": Volcano queue name must not be empty"});
}

TEST_CASE("volcano: validation of priority classes", "[volcano]") {
  Fixture f;
  std::vector<Lookup> calls;

  SECTION("missing PriorityClass") {
    Info info = volcano_info({replicated_job("node", "non-existent")});
    CHECK(f.errors(info, context(&calls)) ==
          std::vector<std::string>{
              "spec.templateSpec.priorityClassName: Invalid value: \"non-existent\": PriorityClass "
              "\"non-existent\" doesn't exist: priorityclasses.scheduling.k8s.io \"non-existent\" "
              "not found"});
    REQUIRE(calls.size() == 1);
    CHECK(calls[0] == Lookup("scheduling.k8s.io/v1", "PriorityClass", "", "non-existent"));
  }
  SECTION("existing PriorityClass") {
    Info info = volcano_info({replicated_job("node", "existing-priority")});
    CHECK(f.errors(info, context(&calls, {"PriorityClass/existing-priority"})).empty());
    CHECK(calls.size() == 1);
  }
  SECTION("no lookup: every named class is missing") {
    Info info = volcano_info({replicated_job("node", "high")});
    CHECK(f.errors(info, RenderContext{}).size() == 1);
  }
  SECTION("one error per job, empty names ignored") {
    Info info = volcano_info(
        {replicated_job("a", "gone"), replicated_job("b", ""), replicated_job("c", "gone")});
    CHECK(f.errors(info, context(&calls)).size() == 2);
    CHECK(calls.size() == 2);
  }
  SECTION("system classes are not looked up; later jobs are still checked") {
    // Upstream returns at the first system-* class and never checks "gone" (reference Q11);
    // libtrainer skips only that job.
    Info info =
        volcano_info({replicated_job("a", "system-node-critical"),
                      replicated_job("b", "system-cluster-critical"), replicated_job("c", "gone")});
    const auto errs = f.errors(info, context(&calls));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].find("PriorityClass \"gone\" doesn't exist") != std::string::npos);
    REQUIRE(calls.size() == 1);
    CHECK(std::get<3>(calls[0]) == "gone");
  }
  SECTION("queue error first, then priority classes") {
    Info info = volcano_info({replicated_job("node", "gone")});
    info.annotations["scheduling.volcano.sh/queue-name"] = "";
    const auto errs = f.errors(info, context(nullptr));
    REQUIRE(errs.size() == 2);
    CHECK(errs[0].rfind("spec.annotations[scheduling.volcano.sh/queue-name]", 0) == 0);
    CHECK(errs[1].rfind("spec.templateSpec.priorityClassName", 0) == 0);
  }
  SECTION("names are quoted as Go's %q") {
    Info info = volcano_info({replicated_job("node", "a\"b")});
    const auto errs = f.errors(info, context(nullptr));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].find("PriorityClass \"a\\\"b\" doesn't exist: "
                       "priorityclasses.scheduling.k8s.io \"a\\\"b\" not found") !=
          std::string::npos);
  }
}
