// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"
#include "trainer/plugin_support.hpp"

using trainer::merge_resource_requirements;
using trainer::pod_requests;
using trainer::Quantity;

namespace {

Quantity q(const char* text) {
  auto parsed = Quantity::parse(text);
  REQUIRE(parsed);
  return *parsed;
}

}  // namespace

TEST_CASE("pod requests sum regular containers, requests only") {
  auto spec = fwtest::yaml(R"(
containers:
  - name: a
    resources: {requests: {cpu: 500m, memory: 1Gi}, limits: {cpu: "4"}}
  - name: b
    resources: {requests: {cpu: "1.5"}}
  - name: limits-only
    resources: {limits: {nvidia.com/gpu: 1}}
)");
  auto r = pod_requests(spec.get_object());
  REQUIRE(r);
  CHECK(r->size() == 2);
  CHECK(r->at("cpu") == q("2"));
  CHECK(r->at("memory") == q("1Gi"));
}

TEST_CASE("pod requests take the largest init container, sidecars add up") {
  auto spec = fwtest::yaml(R"(
initContainers:
  - name: sidecar
    restartPolicy: Always
    resources: {requests: {cpu: "1"}}
  - name: big-init
    resources: {requests: {cpu: "2", memory: 2Gi}}
  - name: second-sidecar
    restartPolicy: Always
    resources: {requests: {memory: 100Mi}}
containers:
  - name: app
    resources: {requests: {cpu: "1", memory: 1Gi}}
overhead: {cpu: 250m}
)");
  auto r = pod_requests(spec.get_object());
  REQUIRE(r);
  // app + sidecars: cpu 2, memory 1Gi+100Mi; init peak: big-init (2 cpu, 2Gi) + sidecar
  // started before it (1 cpu) = 3 cpu, 2Gi. Max per resource, then overhead.
  CHECK(r->at("cpu") == q("3250m"));
  CHECK(r->at("memory") == q("2Gi"));
}

TEST_CASE("pod-level requests replace cpu and memory") {
  auto spec = fwtest::yaml(R"(
resources: {requests: {cpu: "8", example.com/foo: "3"}}
containers:
  - name: app
    resources: {requests: {cpu: "1", memory: 1Gi}}
)");
  auto r = pod_requests(spec.get_object());
  REQUIRE(r);
  CHECK(r->at("cpu") == q("8"));
  CHECK(r->at("memory") == q("1Gi"));
  CHECK(r->count("example.com/foo") == 0);
}

TEST_CASE("pod requests reject a quantity that does not parse") {
  auto spec = fwtest::yaml(R"(
containers:
  - name: app
    resources: {requests: {cpu: lots}}
)");
  auto r = pod_requests(spec.get_object());
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("resource cpu") != std::string::npos);
}

TEST_CASE("MergeResourceRequirements cases") {
  SECTION("gpu only overlays runtime cpu and memory") {
    auto m =
        merge_resource_requirements(fwtest::yaml("{limits: {cpu: '4', memory: 8Gi}}").get_object(),
                                    fwtest::yaml("{limits: {nvidia.com/gpu: 2}}").get_object());
    CHECK(boost::json::value(m) ==
          fwtest::yaml("{limits: {cpu: '4', memory: 8Gi, nvidia.com/gpu: 2}}"));
  }
  SECTION("trainjob cpu overrides runtime cpu") {
    auto m = merge_resource_requirements(
        fwtest::yaml("{requests: {cpu: '1', memory: 1Gi}}").get_object(),
        fwtest::yaml("{requests: {cpu: '3'}}").get_object());
    CHECK(boost::json::value(m) == fwtest::yaml("{requests: {cpu: '3', memory: 1Gi}}"));
  }
  SECTION("partial override keeps other runtime keys, claims merge by name") {
    auto m = merge_resource_requirements(
        fwtest::yaml("{limits: {cpu: '2'}, requests: {cpu: '1'}, claims: [{name: a}, {name: b}]}")
            .get_object(),
        fwtest::yaml("{limits: {memory: 2Gi}, claims: [{name: b, request: r}, {name: c}]}")
            .get_object());
    CHECK(boost::json::value(m) ==
          fwtest::yaml("{limits: {cpu: '2', memory: 2Gi}, requests: {cpu: '1'}, "
                       "claims: [{name: a}, {name: b, request: r}, {name: c}]}"));
  }
}
