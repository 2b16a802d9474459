// SPDX-License-Identifier: Apache-2.0
//
// Every fixture of tests/convert/data converts to a TrainingRuntime `<job>-v1` and a TrainJob
// that pass admission and render, and the rendered JobSet's pods carry the env contract the
// Training Operator v1 controller injected, on JobSet pod addresses.
#include <catch2/catch.hpp>

#include "convert_test_support.hpp"

namespace {

namespace json = boost::json;
using namespace convert_test;
constexpr const char* kIndexRef =
    "<metadata.annotations['batch.kubernetes.io/job-completion-index']>";

}  // namespace

TEST_CASE("TFJob PS+Worker: one replicatedJob per type, TF_CONFIG on JobSet addresses",
          "[convert]") {
  auto c = trainer::convert::convert_job(fixture("tfjob-mnist-ps.yaml"));
  REQUIRE(c.has_value());
  INFO(lines(c->warnings));
  CHECK(c->warnings.empty());
  REQUIRE(c->objects.size() == 2);
  CHECK(c->objects[0].at("kind") == "TrainingRuntime");
  CHECK(c->objects[0].at("metadata").at("name") == "mnist-v1");
  CHECK(c->objects[1].at("kind") == "TrainJob");
  CHECK(c->objects[1].at("metadata").at("labels").at("team") == "vision");
  auto out = render(*c);
  INFO((out ? lines(out->warnings) : text(out.error())));
  REQUIRE(out.has_value());
  const auto* js = jobset(*out);
  REQUIRE(js != nullptr);
  const auto* ps = replicated_job(*js, "ps");
  const auto* worker = replicated_job(*js, "worker");
  REQUIRE(ps != nullptr);
  REQUIRE(worker != nullptr);
  CHECK(worker->at("template").at("spec").at("parallelism") == 2);
  CHECK(pod_spec(*worker).at("restartPolicy") == "Never");
  const auto* tf = container(*worker, "tensorflow");
  REQUIRE(tf != nullptr);
  CHECK(env_index(*tf, "V1_REPLICA_INDEX") == 0);
  CHECK(env(*tf, "V1_REPLICA_INDEX") == kIndexRef);
  CHECK(env(*tf, "TF_CONFIG") ==
        R"({"cluster":{"ps":["mnist-ps-0-0.mnist:2222"],"worker":["mnist-worker-0-0.mnist:2222",)"
        R"("mnist-worker-0-1.mnist:2222"]},"task":{"type":"worker","index":$(V1_REPLICA_INDEX)},)"
        R"("environment":"cloud"})");
  CHECK(env(*container(*ps, "tensorflow"), "TF_CONFIG").find(R"("task":{"type":"ps",)") !=
        std::string::npos);
  // The default port, as v1's defaulting added it.
  CHECK(tf->at("ports").at(0).at("name") == "tfjob-port");
  CHECK(tf->at("ports").at(0).at("containerPort") == 2222);
  CHECK(js->at("spec").at("successPolicy").at("targetReplicatedJobs") == json::array{"worker"});
}
