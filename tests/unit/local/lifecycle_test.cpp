// SPDX-License-Identifier: Apache-2.0
//
// Pod outcomes in the local lifecycle (lib/local/lifecycle.cpp, docs/local.md "Lifecycle"): a
// pod that could not start and a pod that failed carry the kubelet's termination reason and a
// message, and the JobSet's Failed condition names the pod and the cause.
#include <catch2/catch.hpp>

#include "local/lifecycle.hpp"
#include "local/plan.hpp"

#include <boost/json.hpp>

#include <string>

namespace {

namespace json = boost::json;
using trainer::local::Phase;
using trainer::local::detail::Clock;
using trainer::local::detail::Lifecycle;
using trainer::local::detail::make_plan;

Lifecycle one_pod(int backoff_limit) {
  const auto jobset = json::parse(R"({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
    "metadata": {"name": "j", "namespace": "default"},
    "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": {
      "backoffLimit": )" + std::to_string(backoff_limit) +
                                  R"(, "template": {"spec": {
        "containers": [{"name": "node", "command": ["/bin/true"]}]}}}}}]}})");
  auto plan = make_plan({jobset});
  REQUIRE(plan.has_value());
  return Lifecycle(std::move(*plan), Clock::now());
}

const json::object& pod_status(const json::value& status) {
  return status.at("pods").as_array().at(0).as_object();
}

std::string failed_message(const json::value& status) {
  for (const auto& c : status.at("conditions").as_array()) {
    if (c.at("type") == "Failed") return std::string(c.at("message").as_string());
  }
  return {};
}

}  // namespace

TEST_CASE("lifecycle: a pod that cannot start fails the run naming the pod and the cause") {
  auto lc = one_pod(0);
  const auto now = Clock::now();
  REQUIRE(lc.step(now).start == std::vector<std::size_t>{0});
  lc.pod_setup_failed(0, "binding /x at /y: No such file or directory");
  lc.pod_exited(0, 125, now);
  (void)lc.step(now);
  CHECK(lc.phase() == Phase::kFailed);
  CHECK(lc.finished());
  const auto status = lc.status(now);
  CHECK(failed_message(status) ==
        "jobset failed due to one or more job failures (first failed job: j-node-0; pod "
        "j-node-0-0-0: StartError: binding /x at /y: No such file or directory)");
  CHECK(pod_status(status).at("reason") == "StartError");
  CHECK(pod_status(status).at("message") == "binding /x at /y: No such file or directory");
  CHECK(pod_status(status).at("exitCode") == 125);
}

TEST_CASE("lifecycle: a failed program is Error with its exit code or signal") {
  auto lc = one_pod(0);
  const auto now = Clock::now();
  (void)lc.step(now);
  lc.pod_exited(0, 128 + 9, now);
  (void)lc.step(now);
  const auto status = lc.status(now);
  CHECK(failed_message(status) ==
        "jobset failed due to one or more job failures (first failed job: j-node-0; pod "
        "j-node-0-0-0: Error: exit code 137 (signal 9))");
  CHECK(pod_status(status).at("reason") == "Error");
}

TEST_CASE("lifecycle: a replacement pod starts without the failed attempt's reason") {
  auto lc = one_pod(1);
  const auto now = Clock::now();
  (void)lc.step(now);
  lc.pod_start_failed(0, "fork: Resource temporarily unavailable", now);
  CHECK(pod_status(lc.status(now)).at("reason") == "StartError");
  REQUIRE(lc.step(now).start == std::vector<std::size_t>{0});
  CHECK_FALSE(pod_status(lc.status(now)).contains("reason"));
  lc.pod_running(0, now);
  lc.pod_exited(0, 0, now);
  (void)lc.step(now);
  CHECK(lc.phase() == Phase::kComplete);
  const auto status = lc.status(now);
  CHECK(pod_status(status).at("reason") == "Completed");
  CHECK_FALSE(pod_status(status).contains("message"));
  CHECK(pod_status(status).at("name") == "j-node-0-0-1");
}
