// SPDX-License-Identifier: Apache-2.0
// One reconcile of an OptimizationJob against the real kube-apiserver: trial TrainJobs created
// with make_trial (label, env, owner), parallelTrials respected, metrics read from the trials'
// status.trainerStatus.metrics (the test plays the trainer and the TrainJob controller by
// writing the trials' status), status.result the best trial by the direction.
#include "controller/optimization_reconciler.hpp"
#include "support/api_server.hpp"
#include "support/test_client.hpp"
#include "trainer/codec.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

using namespace std::chrono_literals;
namespace json = boost::json;
namespace kube = trainer::kube;
using trainer::testing::ApiServer;
using trainer::testing::client_for;

namespace {

kube::Resource resource(kube::Client& client, std::string_view kind) {
  auto r = client.resource_for("trainer.kubeflow.org/v1alpha1", kind);
  REQUIRE(r);
  return *r;
}

constexpr const char* kJob = R"({
  "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
  "metadata": {"name": "tune"},
  "spec": {
    "objectives": [{"metric": "loss", "direction": "Minimize"}],
    "searchAlgorithm": {"random": {"seed": 3}},
    "parameters": [{"name": "lr", "searchSpace": {"uniform": {"min": "0.1", "max": "1"}}}],
    "numTrials": 3, "parallelTrials": 2,
    "trainJobTemplate": {"spec": {"runtimeRef": {"name": "torch-distributed"}}}
  }})";

// The trainer pushes `loss` and the TrainJob ends Complete.
void finish_trial(kube::Client& client, const std::string& ns, const std::string& name,
                  const std::string& loss) {
  const json::object status{
      {"status",
       {{"conditions", json::array{{{"type", "Complete"},
                                    {"status", "True"},
                                    {"reason", "JobSetCompleted"},
                                    {"message", "done"},
                                    {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
        {"trainerStatus",
         {{"metrics", json::array{{{"name", "loss"}, {"value", loss}}}},
          {"lastUpdatedTime", "2026-01-01T00:00:00Z"}}}}}};
  kube::WriteOptions write;
  write.subresource = "status";
  auto patched = client.patch(resource(client, "TrainJob"), ns, name, kube::PatchType::kMerge,
                              json::serialize(status), write);
  INFO((patched ? std::string() : patched.error().message));
  REQUIRE(patched);
}

}  // namespace

TEST_CASE("an OptimizationJob reconcile creates trials and picks the best by trainerStatus metrics",
          "[controller][tuning]") {
  auto& server = ApiServer::shared();
  const std::string ns = trainer::testing::unique_namespace(server, "tune");
  auto client = client_for(server);
  const auto jobs = resource(client, "OptimizationJob");
  const auto trainjobs = resource(client, "TrainJob");
  auto created = client.create(jobs, ns, json::parse(kJob).as_object());
  INFO((created ? std::string() : created.error().message));
  REQUIRE(created);
  const std::string uid(created->at("metadata").at("uid").as_string());

  auto first =
      trainer::controller::reconcile_optimization_job(client, ns, "tune", "2026-01-01T00:00:00Z");
  INFO((first ? std::string() : first.error().message));
  REQUIRE(first);
  CHECK(first->created == 2);  // parallelTrials
  CHECK(first->active == 2);
  CHECK(first->status_written);

  auto trial0 = client.get(trainjobs, ns, "tune-trial-0");
  REQUIRE(trial0);
  const auto& meta = trial0->at("metadata").as_object();
  CHECK(meta.at("labels").at("trainer.kubeflow.org/optimizationjob-name") == "tune");
  CHECK(meta.at("ownerReferences").as_array().at(0).at("uid").as_string() == uid);
  const std::string lr0(meta.at("annotations").at("trainer.kubeflow.org/opt-param-lr").as_string());
  const auto& env = trial0->at("spec").at("trainer").at("env").as_array();
  CHECK(env.back().at("name") == "KUBEFLOW_TRAINER_OPT_LR");
  CHECK(env.back().at("value").as_string() == lr0);

  // Nothing finished: no new trial, no status write.
  auto again =
      trainer::controller::reconcile_optimization_job(client, ns, "tune", "2026-01-01T00:00:01Z");
  REQUIRE(again);
  CHECK(again->created == 0);
  CHECK_FALSE(again->status_written);

  finish_trial(client, ns, "tune-trial-0", "0.5");
  finish_trial(client, ns, "tune-trial-1", "0.25");
  auto third =
      trainer::controller::reconcile_optimization_job(client, ns, "tune", "2026-01-01T00:00:02Z");
  REQUIRE(third);
  CHECK(third->created == 1);  // numTrials 3
  CHECK(third->trials == 3);
  REQUIRE(client.get(trainjobs, ns, "tune-trial-2"));

  finish_trial(client, ns, "tune-trial-2", "0.75");
  auto last =
      trainer::controller::reconcile_optimization_job(client, ns, "tune", "2026-01-01T00:00:03Z");
  REQUIRE(last);
  CHECK(last->created == 0);
  CHECK(last->active == 0);
  auto job = client.get(jobs, ns, "tune");
  REQUIRE(job);
  const auto& status = job->at("status").as_object();
  CHECK(status.at("result").at("trainJobName") == "tune-trial-1");
  bool complete = false;
  for (const auto& c : status.at("conditions").as_array()) {
    if (c.at("type") == "Complete") complete = c.at("status") == "True";
  }
  CHECK(complete);
}

TEST_CASE("an OptimizationJob whose grid is smaller than numTrials completes with the grid",
          "[controller][tuning]") {
  auto& server = ApiServer::shared();
  const std::string ns = trainer::testing::unique_namespace(server, "tunegrid");
  auto client = client_for(server);
  const auto jobs = resource(client, "OptimizationJob");
  auto doc = json::parse(kJob).as_object();
  doc["spec"].as_object()["searchAlgorithm"] = json::object{{"grid", json::object{}}};
  doc["spec"].as_object()["parameters"] =
      json::array{{{"name", "lr"},
                   {"searchSpace", {{"categorical", {{"choices", json::array{"0.1", "0.2"}}}}}}}};
  REQUIRE(client.create(jobs, ns, doc));

  auto first =
      trainer::controller::reconcile_optimization_job(client, ns, "tune", "2026-01-01T00:00:00Z");
  INFO((first ? std::string() : first.error().message));
  REQUIRE(first);
  CHECK(first->created == 2);
  finish_trial(client, ns, "tune-trial-0", "0.5");
  finish_trial(client, ns, "tune-trial-1", "0.75");
  auto last =
      trainer::controller::reconcile_optimization_job(client, ns, "tune", "2026-01-01T00:00:01Z");
  REQUIRE(last);
  CHECK(last->created == 0);
  CHECK(last->trials == 2);
  auto job = client.get(jobs, ns, "tune");
  REQUIRE(job);
  const auto& status = job->at("status").as_object();
  CHECK(status.at("result").at("trainJobName") == "tune-trial-0");
  bool complete = false;
  for (const auto& c : status.at("conditions").as_array()) {
    if (c.at("type") == "Complete") complete = c.at("status") == "True";
  }
  CHECK(complete);
}
