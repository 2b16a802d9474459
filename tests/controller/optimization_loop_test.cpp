// SPDX-License-Identifier: Apache-2.0
// The controller loop runs OptimizationJobs against the real kube-apiserver: applied with
// `cluster::apply` (admitted locally, the template's runtime read from the cluster), then
// `Controller` in once mode creates the trial TrainJobs (and, reconciling those too, their
// JobSets); the test plays the trainer by writing the trials' status (Complete or Failed, with
// trainerStatus.metrics, as a pod does through the status server). Also the watch mode: a
// trial's status change queues its OptimizationJob.
#include "support/api_server.hpp"
#include "support/test_client.hpp"
#include "trainer/cluster.hpp"
#include "trainer/controller.hpp"
#include "trainer/kube.hpp"
#include "wait_until.hpp"

#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
namespace json = boost::json;
namespace kube = trainer::kube;
using trainer::controller::Controller;
using trainer::controller::ControllerOptions;
using trainer::controller::ReconcileResult;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::need;

namespace {

constexpr const char* kRuntime = R"({
  "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
  "metadata": {"name": "rt"},
  "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "template": {"spec": {"replicatedJobs": [
    {"name": "node", "replicas": 1, "template": {
      "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
      "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "test:rt"}]}}}}}
  ]}}}})";

constexpr const char* kJob = R"({
  "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "OptimizationJob",
  "metadata": {"name": "tune"},
  "spec": {
    "objectives": [{"metric": "loss", "direction": "Minimize"}],
    "searchAlgorithm": {"random": {"seed": 7}},
    "parameters": [{"name": "lr", "searchSpace": {"uniform": {"min": "0.1", "max": "1"}}}],
    "numTrials": 3, "parallelTrials": 2,
    "trainJobTemplate": {"spec": {"runtimeRef": {"name": "rt", "kind": "TrainingRuntime"}}}
  }})";

struct Fixture {
  kube::Client client;
  std::string ns;
  kube::Resource jobs;
  kube::Resource train_jobs;
  kube::Resource job_sets;

  Fixture(ApiServer& server, const std::string& prefix)
      : client(client_for(server)),
        ns(trainer::testing::unique_namespace(server, prefix)),
        jobs(need(client, "trainer.kubeflow.org/v1alpha1", "OptimizationJob")),
        train_jobs(need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob")),
        job_sets(need(client, "jobset.x-k8s.io/v1alpha2", "JobSet")) {}

  // The runtime first, then the OptimizationJob alone: its template's runtime comes from the
  // cluster for admission, as a TrainJob's does.
  void apply_job(const json::object& job) {
    trainer::cluster::ApplyOptions options;
    options.namespace_ = ns;
    auto runtime = trainer::cluster::apply(client, {json::parse(kRuntime)}, options);
    if (!runtime) FAIL(kube::kubectl_text(runtime.error()));
    std::vector<std::string> warnings;  // a runtime admission could not see would warn
    options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
    auto applied = trainer::cluster::apply(client, {json::value(job)}, options);
    if (!applied) FAIL(kube::kubectl_text(applied.error()));
    REQUIRE(applied->size() == 1);
    CHECK(warnings.empty());
    for (const auto& w : warnings) WARN(w);
  }

  std::set<std::string> names(const kube::Resource& resource) {
    auto list = client.list(resource, ns);
    REQUIRE(list);
    std::set<std::string> out;
    for (const auto& item : list->at("items").as_array()) {
      out.insert(std::string(item.at("metadata").at("name").as_string()));
    }
    return out;
  }

  // The trainer reports `loss` (or nothing) and the trial ends with `condition`.
  void finish(const std::string& name, const char* condition, const std::string& loss) {
    json::object trainer_status{{"lastUpdatedTime", "2026-01-01T00:00:00Z"}};
    if (!loss.empty()) {
      trainer_status["metrics"] = json::array{{{"name", "loss"}, {"value", loss}}};
    }
    const json::object status{
        {"status",
         {{"conditions", json::array{{{"type", condition},
                                      {"status", "True"},
                                      {"reason", "Test"},
                                      {"message", "played by the test"},
                                      {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}},
          {"trainerStatus", trainer_status}}}};
    kube::WriteOptions write;
    write.subresource = "status";
    auto patched =
        client.patch(train_jobs, ns, name, kube::PatchType::kMerge, json::serialize(status), write);
    if (!patched) FAIL(kube::kubectl_text(patched.error()));
  }

  json::object status() {
    auto job = client.get(jobs, ns, "tune");
    REQUIRE(job);
    const auto* s = job->if_contains("status");
    return s != nullptr && s->is_object() ? s->as_object() : json::object{};
  }

  bool condition(const char* type) {
    const auto s = status();
    const auto* conditions = s.if_contains("conditions");
    if (conditions == nullptr) return false;
    for (const auto& c : conditions->as_array()) {
      if (c.at("type") == type) return c.at("status") == "True";
    }
    return false;
  }
};

// Every reconcile the controller reports, by key.
struct Seen {
  std::mutex mutex;
  std::multiset<std::string> keys;
  std::vector<std::string> errors;

  void attach(ControllerOptions& options) {
    options.on_reconcile = [this](const ReconcileResult& r, const trainer::Error* e) {
      std::lock_guard<std::mutex> lock(mutex);
      keys.insert(r.key);
      if (e != nullptr) errors.push_back(r.key + ": " + e->message);
    };
  }
  std::size_t count(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex);
    return keys.count(key);
  }
  std::string error_text() {
    std::lock_guard<std::mutex> lock(mutex);
    std::string out;
    for (const auto& e : errors) out += e + "\n";
    return out;
  }
};

ControllerOptions once_options(const std::string& ns) {
  ControllerOptions options;
  options.namespace_ = ns;
  options.once = true;
  options.workers = 2;
  options.shutdown_timeout = 10s;
  return options;
}

// One `--once` pass; returns its metrics.
trainer::controller::ControllerMetrics run_once(Fixture& f, Seen& seen) {
  ControllerOptions options = once_options(f.ns);
  seen.attach(options);
  Controller controller(f.client, options);
  const auto result = controller.run();
  INFO(seen.error_text());
  if (!result) FAIL(result.error().message);
  return controller.metrics();
}

// Polls `ready` every 100 ms (each poll reads the API server) for at most `bound`.
bool eventually(const std::function<bool()>& ready, std::chrono::milliseconds bound = 30s) {
  return trainer::testing::wait_until(ready, bound, 100ms);
}

}  // namespace

TEST_CASE("controller --once runs an OptimizationJob: trials and their JobSets, then the best",
          "[controller][tuning]") {
  auto& server = ApiServer::shared();
  Fixture f(server, "optloop");
  f.apply_job(json::parse(kJob).as_object());
  // A TrainJob of the same name: its key and the OptimizationJob's are two.
  trainer::cluster::ApplyOptions apply;
  apply.namespace_ = f.ns;
  auto same = trainer::cluster::apply(
      f.client, {json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"tune"},"spec":{"runtimeRef":{"name":"rt","kind":"TrainingRuntime"}}})")},
      apply);
  if (!same) FAIL(kube::kubectl_text(same.error()));

  Seen seen;
  auto metrics = run_once(f, seen);
  CHECK(seen.count(f.ns + "/tune") == 1);
  CHECK(seen.count("OptimizationJob:" + f.ns + "/tune") == 1);
  CHECK(seen.count(f.ns + "/tune-trial-0") == 1);  // the trials made in this run, too
  CHECK(seen.count(f.ns + "/tune-trial-1") == 1);
  CHECK(metrics.optimization_reconciles == 1);
  CHECK(metrics.reconciles == 3);
  CHECK(f.names(f.train_jobs) == std::set<std::string>{"tune", "tune-trial-0", "tune-trial-1"});
  CHECK(f.names(f.job_sets) == std::set<std::string>{"tune", "tune-trial-0", "tune-trial-1"});

  auto trial = f.client.get(f.train_jobs, f.ns, "tune-trial-0");
  REQUIRE(trial);
  const auto& owner = trial->at("metadata").at("ownerReferences").as_array().at(0);
  CHECK(owner.at("kind") == "OptimizationJob");
  CHECK(owner.at("name") == "tune");
  CHECK(owner.at("controller") == true);
  bool has_env = false;
  for (const auto& env : trial->at("spec").at("trainer").at("env").as_array()) {
    has_env = has_env || env.at("name") == "KUBEFLOW_TRAINER_OPT_LR";
  }
  CHECK(has_env);
  CHECK(f.condition("Created"));
  CHECK_FALSE(f.condition("Complete"));

  // Nothing finished: a second pass makes no trial.
  run_once(f, seen);
  CHECK(f.names(f.train_jobs).size() == 3);

  f.finish("tune-trial-0", "Complete", "0.5");
  f.finish("tune-trial-1", "Complete", "0.25");
  run_once(f, seen);
  CHECK(f.names(f.train_jobs).count("tune-trial-2") == 1);
  CHECK(f.names(f.job_sets).count("tune-trial-2") == 1);
  CHECK_FALSE(f.condition("Complete"));

  f.finish("tune-trial-2", "Complete", "0.75");
  run_once(f, seen);
  CHECK(f.names(f.train_jobs).size() == 4);  // numTrials 3, and the other TrainJob
  const auto status = f.status();
  INFO(json::serialize(status));
  REQUIRE(status.if_contains("result") != nullptr);
  CHECK(status.at("result").at("trainJobName") == "tune-trial-1");  // the lowest loss
  CHECK(f.condition("Complete"));
}

TEST_CASE("controller --once: an OptimizationJob whose trials all fail is Failed",
          "[controller][tuning]") {
  auto& server = ApiServer::shared();
  Fixture f(server, "optloopfail");
  auto job = json::parse(kJob).as_object();
  job["spec"].as_object()["numTrials"] = 2;
  f.apply_job(job);
  {
    // A template runtime the cluster lacks too is warned about, as for a TrainJob.
    auto other = json::parse(kJob).as_object();
    other["metadata"].as_object()["name"] = "other";
    other["spec"].as_object()["trainJobTemplate"] =
        json::parse(R"({"spec":{"runtimeRef":{"name":"nope","kind":"TrainingRuntime"}}})");
    trainer::cluster::ApplyOptions options;
    options.namespace_ = f.ns;
    options.dry_run = true;
    std::vector<std::string> warnings;
    options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
    auto applied = trainer::cluster::apply(f.client, {json::value(other)}, options);
    if (!applied) FAIL(kube::kubectl_text(applied.error()));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("nope") != std::string::npos);
  }
  Seen seen;
  run_once(f, seen);
  REQUIRE(f.names(f.train_jobs) == std::set<std::string>{"tune-trial-0", "tune-trial-1"});
  f.finish("tune-trial-0", "Failed", "");
  f.finish("tune-trial-1", "Failed", "");
  run_once(f, seen);
  CHECK(f.condition("Failed"));
  CHECK_FALSE(f.condition("Complete"));
  CHECK(f.names(f.train_jobs).size() == 2);
}

TEST_CASE("the watching controller queues an OptimizationJob when its trials change",
          "[controller][tuning]") {
  auto& server = ApiServer::shared();
  Fixture f(server, "optwatch");
  f.apply_job(json::parse(kJob).as_object());
  ControllerOptions options;
  options.namespace_ = f.ns;
  options.workers = 2;
  options.shutdown_timeout = 10s;
  Seen seen;
  seen.attach(options);
  Controller controller(f.client, options);
  trainer::Result<void> result;
  std::thread runner([&] { result = controller.run(); });
  struct Stop {
    Controller& c;
    std::thread& t;
    ~Stop() {
      c.stop();
      if (t.joinable()) t.join();
    }
  } stop{controller, runner};

  CHECK(eventually([&] {
    return f.names(f.job_sets) == std::set<std::string>{"tune-trial-0", "tune-trial-1"};
  }));
  f.finish("tune-trial-0", "Complete", "0.5");
  f.finish("tune-trial-1", "Complete", "0.25");
  CHECK(eventually([&] { return f.names(f.job_sets).count("tune-trial-2") == 1; }));
  f.finish("tune-trial-2", "Complete", "0.125");
  CHECK(eventually([&] { return f.condition("Complete"); }));
  CHECK(f.status().at("result").at("trainJobName") == "tune-trial-2");
  CHECK(controller.metrics_text().find("trainer_optimizationjob_reconcile_total") !=
        std::string::npos);
  controller.stop();
  runner.join();
  INFO(seen.error_text());
  CHECK(result);
}
