// SPDX-License-Identifier: Apache-2.0
#include "kube/strategic_merge.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

using trainer::detail::SchemaType;
using trainer::detail::strategic_merge;

namespace {

boost::json::value merge(const char* original, const char* patch,
                         SchemaType type = SchemaType::kJobSetSpec) {
  auto r = strategic_merge(boost::json::parse(original), boost::json::parse(patch), type);
  REQUIRE(r.has_value());
  return *r;
}

// The pod spec of replicated job `i` of a merged JobSet spec.
const boost::json::object& pod_spec(const boost::json::value& spec, std::size_t i) {
  return spec.at("replicatedJobs")
      .at(i)
      .at("template")
      .at("spec")
      .at("template")
      .at("spec")
      .as_object();
}

constexpr const char* kJobSet = R"({"replicatedJobs":[
  {"name":"node","replicas":1,"template":{"metadata":{"labels":{"a":"1"}},"spec":{"template":{
    "metadata":{"annotations":{"x":"1"}},
    "spec":{"containers":[
      {"name":"node","image":"img","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
       "volumeMounts":[{"name":"data","mountPath":"/data"}],
       "ports":[{"containerPort":29500}]},
      {"name":"sidecar","image":"side"}],
     "volumes":[{"name":"data","emptyDir":{}}],
     "tolerations":[{"key":"a","operator":"Exists"}],
     "nodeSelector":{"zone":"a"}}}}}},
  {"name":"launcher","template":{"spec":{"template":{"spec":{"containers":[{"name":"node"}]}}}}}
]})";

}  // namespace

TEST_CASE("strategic merge: containers and env merge by name, in place", "[smp]") {
  auto spec = merge(kJobSet, R"({"replicatedJobs":[{"name":"node","template":{"spec":{"template":
      {"spec":{"containers":[{"name":"node","env":[{"name":"B","value":"two"},
      {"name":"C","value":"3"}]}]}}}}}]})");
  const auto& containers = pod_spec(spec, 0).at("containers").as_array();
  REQUIRE(containers.size() == 2);
  CHECK(containers[0].at("image") == "img");
  CHECK(boost::json::serialize(containers[0].at("env")) ==
        R"([{"name":"A","value":"1"},{"name":"B","value":"two"},{"name":"C","value":"3"}])");
  CHECK(containers[1].at("name") == "sidecar");
  // The other replicated job is untouched and keeps its place.
  CHECK(spec.at("replicatedJobs").at(1).at("name") == "launcher");
}

TEST_CASE("strategic merge: env entries merge fields, not replace", "[smp]") {
  auto spec = merge(kJobSet, R"({"replicatedJobs":[{"name":"node","template":{"spec":{"template":
      {"spec":{"containers":[{"name":"node","env":[{"name":"A","valueFrom":{"fieldRef":
      {"fieldPath":"metadata.name"}}}]}]}}}}}]})");
  const auto& env = pod_spec(spec, 0).at("containers").at(0).at("env").at(0).as_object();
  CHECK(env.at("value") == "1");
  CHECK(env.contains("valueFrom"));
}

TEST_CASE("strategic merge: volumeMounts merge by mountPath, volumes by name", "[smp]") {
  auto spec = merge(kJobSet, R"({"replicatedJobs":[{"name":"node","template":{"spec":{"template":
      {"spec":{"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"c"}},
      {"name":"extra","emptyDir":{}}],
      "containers":[{"name":"node","volumeMounts":[{"name":"other","mountPath":"/data"},
      {"name":"extra","mountPath":"/extra"}]}]}}}}}]})");
  const auto& ps = pod_spec(spec, 0);
  const auto& mounts = ps.at("containers").at(0).at("volumeMounts").as_array();
  REQUIRE(mounts.size() == 2);
  CHECK(mounts[0].at("name") == "other");
  CHECK(mounts[1].at("mountPath") == "/extra");
  const auto& volumes = ps.at("volumes").as_array();
  REQUIRE(volumes.size() == 2);
  // Without a $retainKeys directive the old volume source stays next to the new one, as SMP does.
  CHECK(volumes[0].as_object().contains("emptyDir"));
  CHECK(volumes[0].at("persistentVolumeClaim").at("claimName") == "c");
}

TEST_CASE("strategic merge: tolerations are replaced, maps merged per key", "[smp]") {
  auto spec = merge(kJobSet, R"({"replicatedJobs":[{"name":"node","template":{
      "metadata":{"labels":{"b":"2"}},"spec":{"template":{"metadata":{"annotations":{"y":"2"}},
      "spec":{"tolerations":[{"key":"gpu","operator":"Exists","effect":"NoSchedule"}],
      "nodeSelector":{"disk":"ssd"}}}}}}]})");
  const auto& ps = pod_spec(spec, 0);
  CHECK(boost::json::serialize(ps.at("tolerations")) ==
        R"([{"key":"gpu","operator":"Exists","effect":"NoSchedule"}])");
  CHECK(boost::json::serialize(ps.at("nodeSelector")) == R"({"zone":"a","disk":"ssd"})");
  const auto& job_meta = spec.at("replicatedJobs").at(0).at("template").at("metadata");
  CHECK(boost::json::serialize(job_meta.at("labels")) == R"({"a":"1","b":"2"})");
}

TEST_CASE("strategic merge: later patches win, null deletes, new items append", "[smp]") {
  auto first = merge(kJobSet, R"({"replicatedJobs":[{"name":"node","template":{"spec":{"template":
      {"spec":{"nodeSelector":{"zone":"b"},"serviceAccountName":"one"}}}}}]})");
  auto second = strategic_merge(first, boost::json::parse(R"({"replicatedJobs":[{"name":"node",
      "template":{"spec":{"template":{"spec":{"nodeSelector":{"zone":null},
      "serviceAccountName":"two","initContainers":[{"name":"init","image":"busybox"}]}}}}}]})"),
                                SchemaType::kJobSetSpec);
  REQUIRE(second.has_value());
  const auto& ps = pod_spec(*second, 0);
  CHECK(ps.at("serviceAccountName") == "two");
  CHECK(ps.at("nodeSelector").as_object().empty());
  CHECK(ps.at("initContainers").at(0).at("name") == "init");
}

TEST_CASE("strategic merge: finalizers merge as a set", "[smp]") {
  auto meta =
      merge(R"({"finalizers":["a","b"]})", R"({"finalizers":["b","c"]})", SchemaType::kObjectMeta);
  CHECK(boost::json::serialize(meta.at("finalizers")) == R"(["a","b","c"])");
}

TEST_CASE("strategic merge: an item without its merge key is an error", "[smp]") {
  auto r = strategic_merge(boost::json::parse(kJobSet),
                           boost::json::parse(R"({"replicatedJobs":[{"replicas":2}]})"),
                           SchemaType::kJobSetSpec);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == trainer::ErrorCode::kInvalid);
  CHECK(r.error().message.find("merge key \"name\"") != std::string::npos);
}
