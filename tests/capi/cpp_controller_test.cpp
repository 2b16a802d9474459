// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's controller (abi::Controller, Controller::reconcile) over libtrainer.so: option
// errors and the callback's ownership without a server, then against the kube-apiserver of the
// CTest fixture `kube_apiserver`: one reconcile by name (JobSet created, absent TrainJob skipped,
// missing runtime, cancellation), and the loop run on a thread of its own, heard through its
// on_reconcile std::function, its metrics read, stopped from this thread. Cases that need the
// server exit 77 (skipped) without TRAINER_KUBE_TEST_ENV.
#include "cpp_cluster_fixture.hpp"
#include "temp_dir.hpp"
#include "trainer.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace abi = trainer::abi;
using cpp_cluster_fixture::kRuntime;
using cpp_cluster_fixture::Server;
using cpp_cluster_fixture::trainjob;
using trainer::ErrorCode;

/// A client of a server that is not there (127.0.0.1:9): enough for what contacts nothing.
abi::Client offline_client() {
  // The client reads its kubeconfig once, at creation.
  const trainer::testing::TempDir dir("trainer-cpp-controller");
  const std::string path = dir / "kubeconfig";
  std::ofstream(path) << R"(apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: offline}}]
current-context: x
)";
  abi::ClientOptions options;
  options.kubeconfig = path;
  auto client = abi::Client::create(options);
  INFO((client ? std::string() : client.error().message));
  REQUIRE(client.has_value());
  return std::move(*client);
}

std::string jobset_path(const std::string& ns, const std::string& name) {
  return "/apis/jobset.x-k8s.io/v1alpha2/namespaces/" + ns + "/jobsets/" + name;
}

/// Adds CPPCTL=yes to the node container of the TrainJob named "plugged".
class Plugged : public abi::PluginBase {
 public:
  abi::PluginReply enforce_ml_policy(const abi::PluginRequest& request) const override {
    const auto name = request.get_string("/trainJob/metadata/name");
    if (name != std::optional<std::string_view>("plugged") &&
        name != std::optional<std::string_view>("single")) {
      return std::optional<std::string>();
    }
    return std::optional<std::string>(
        R"({"info":{"podSets":[{"name":"node","containers":[{"name":"node","env":[)"
        R"({"name":"CPPCTL","value":"yes"}]}]}]}})");
  }
};

/// What the loop's callback heard, from the worker threads.
struct Heard {
  std::mutex mutex;
  std::vector<std::string> results;
  std::vector<std::string> errors;

  bool has(const std::string& needle) {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const auto& r : results) {
      if (r.find(needle) != std::string::npos) return true;
    }
    return false;
  }
};

}  // namespace

TEST_CASE("trainer.hpp Controller: option errors, the callback released, stop before run") {
  abi::Client client = offline_client();
  auto held = std::make_shared<int>(0);

  abi::ControllerOptions options;
  options.workers = -1;
  options.on_reconcile = [held](std::string_view, const std::optional<trainer::Error>&) {};
  auto refused = abi::Controller::create(client, options);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::kInvalidArgument);
  options.on_reconcile = nullptr;
  CHECK(held.use_count() == 1);  // the library released its copy when create failed

  abi::ControllerOptions gates;
  gates.feature_gates = "TrainJobStatus=maybe";
  auto bad_gates = abi::Controller::create(client, gates);
  REQUIRE_FALSE(bad_gates.has_value());
  CHECK(bad_gates.error().code == ErrorCode::kInvalidArgument);

  // A framework and feature gates together are refused: the framework's gates apply.
  auto framework = abi::Framework::create("TrainJobStatus=true");
  REQUIRE(framework.has_value());
  abi::ControllerOptions both;
  both.feature_gates = "TrainJobStatus=true";
  both.framework = &*framework;
  auto conflicting = abi::Controller::create(client, both);
  REQUIRE_FALSE(conflicting.has_value());
  CHECK(conflicting.error().code == ErrorCode::kInvalidArgument);

  // The serving options (struct version 3) reach the library, which checks them.
  abi::ControllerOptions serving;
  serving.webhook_port = 70000;
  auto bad_port = abi::Controller::create(client, serving);
  REQUIRE_FALSE(bad_port.has_value());
  CHECK(bad_port.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad_port.error().message.find("webhook_port") != std::string::npos);
  serving.webhook_port = 9443;
  serving.webhook_cert_hosts = {"127.0.0.1", "localhost"};
  serving.status_server_port = -1;
  CHECK(abi::Controller::create(client, serving).has_value());

  // Created (nothing contacted), metrics readable, a stop before the run ends it at once.
  options.workers = 2;
  options.on_reconcile = [held](std::string_view, const std::optional<trainer::Error>&) {};
  auto controller = abi::Controller::create(client, options);
  REQUIRE(controller.has_value());
  options.on_reconcile = nullptr;
  CHECK(held.use_count() == 2);  // the controller's copy
  auto metrics = controller->metrics();
  REQUIRE(metrics.has_value());
  CHECK(metrics->find("# TYPE trainer_reconcile_total counter") != std::string::npos);
  controller->stop();
  const auto before = std::chrono::steady_clock::now();
  auto ran = controller->run();
  INFO((ran ? std::string() : ran.error().message));
  CHECK(ran.has_value());
  CHECK(std::chrono::steady_clock::now() - before < std::chrono::seconds(5));
  { const abi::Controller gone = std::move(*controller); }
  CHECK(held.use_count() == 1);

  auto no_name = abi::Controller::reconcile(client, "ns", "");
  REQUIRE_FALSE(no_name.has_value());
  CHECK(no_name.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("trainer.hpp Controller::reconcile: one TrainJob by name") {
  const Server server = Server::get();
  std::string ns;
  abi::Client client = server.client("cpp-reconcile", ns);
  REQUIRE(client.apply(std::string(kRuntime) + "---\n" + trainjob("once", 1)).has_value());
  CHECK_FALSE(server.get(jobset_path(ns, "once")).has_value());

  auto result = abi::Controller::reconcile(client, "", "once");  // "": the client's namespace
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result.has_value());
  CHECK(result->find("\"key\":\"" + ns + "/once\"") != std::string::npos);
  CHECK(result->find("\"skipped\":false") != std::string::npos);
  CHECK(result->find("jobset.jobset.x-k8s.io/once") != std::string::npos);
  CHECK(server.get(jobset_path(ns, "once")).has_value());

  // A TrainJob that does not exist is skipped, not an error.
  auto absent = abi::Controller::reconcile(client, ns, "absent");
  REQUIRE(absent.has_value());
  CHECK(absent->find("\"skipped\":true") != std::string::npos);

  // Its runtime is missing: NotFound naming it, nothing created.
  const std::string orphan =
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: orphan\n"
      "spec:\n  runtimeRef:\n    name: nowhere\n    kind: TrainingRuntime\n";
  REQUIRE(client.apply(orphan).has_value());
  auto missing = abi::Controller::reconcile(client, ns, "orphan");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().message.find("nowhere") != std::string::npos);
  CHECK_FALSE(server.get(jobset_path(ns, "orphan")).has_value());

  // A cancelled token ends the call.
  auto token = abi::CancelToken::create();
  REQUIRE(token.has_value());
  token->cancel();
  abi::ReconcileOptions options;
  options.cancel = *token;
  auto cancelled = abi::Controller::reconcile(client, ns, "once", options);
  REQUIRE_FALSE(cancelled.has_value());
  CHECK(cancelled.error().code == ErrorCode::kCancelled);
}

TEST_CASE("trainer.hpp Controller: the loop on a thread, heard, measured, stopped") {
  const Server server = Server::get();
  std::string ns;
  abi::Client client = server.client("cpp-loop", ns);
  REQUIRE(client.apply(kRuntime).has_value());

  auto heard = std::make_shared<Heard>();
  abi::ControllerOptions options;
  options.namespace_ = ns;
  options.workers = 2;
  options.shutdown_timeout = std::chrono::seconds(10);
  options.on_reconcile = [heard](std::string_view result,
                                 const std::optional<trainer::Error>& error) {
    const std::lock_guard<std::mutex> lock(heard->mutex);
    heard->results.emplace_back(result);
    if (error) heard->errors.push_back(error->message);
  };
  auto controller = abi::Controller::create(client, options);
  REQUIRE(controller.has_value());
  options.on_reconcile = nullptr;

  std::optional<trainer::Result<void>> ran;
  std::thread runner([&] { ran = controller->run(); });

  // A TrainJob created while the loop runs gets its JobSet, and the callback hears of it.
  REQUIRE(client.apply(trainjob("loop", 1)).has_value());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!heard->has("jobset.jobset.x-k8s.io/loop") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(heard->has("\"key\":\"" + ns + "/loop\""));
  CHECK(server.get(jobset_path(ns, "loop")).has_value());

  auto metrics = controller->metrics();
  REQUIRE(metrics.has_value());
  CHECK(metrics->find("trainer_reconcile_total") != std::string::npos);
  CHECK(metrics->find("trainer_reconcile_total 0\n") == std::string::npos);

  // Stopped from this thread: run() returns success within the bound.
  const auto stopping = std::chrono::steady_clock::now();
  controller->stop();
  runner.join();
  CHECK(std::chrono::steady_clock::now() - stopping < std::chrono::seconds(15));
  REQUIRE(ran.has_value());
  INFO((*ran ? std::string() : ran->error().message));
  CHECK(ran->has_value());
  // A controller runs once.
  auto again = controller->run();
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error().code == ErrorCode::kInvalidArgument);
  CHECK(heard.use_count() == 2);
  { const abi::Controller gone = std::move(*controller); }
  CHECK(heard.use_count() == 1);
}

TEST_CASE("trainer.hpp Controller: a framework's plugin reaches what the controller applies") {
  const Server server = Server::get();
  std::string ns;
  abi::Client client = server.client("cpp-plugged", ns);
  REQUIRE(client.apply(std::string(kRuntime) + "---\n" + trainjob("plugged", 1)).has_value());

  std::optional<abi::Controller> controller;
  {
    // The controller keeps its own reference: the framework may go first.
    auto framework = abi::Framework::create();
    REQUIRE(framework.has_value());
    auto plugin = abi::Plugin::create("Plugged", std::make_unique<Plugged>());
    REQUIRE(plugin.has_value());
    REQUIRE(framework->add(std::move(*plugin)).has_value());
    abi::ControllerOptions options;
    options.namespace_ = ns;
    options.once = true;
    options.framework = &*framework;
    auto created = abi::Controller::create(client, options);
    INFO((created ? std::string() : created.error().message));
    REQUIRE(created.has_value());
    controller.emplace(std::move(*created));

    // One reconcile by name renders with the framework too.
    REQUIRE(client.apply(trainjob("single", 1)).has_value());
    abi::ReconcileOptions single;
    single.framework = &*framework;
    auto reconciled = abi::Controller::reconcile(client, ns, "single", single);
    INFO((reconciled ? std::string() : reconciled.error().message));
    REQUIRE(reconciled.has_value());
    const auto single_jobset = server.get(jobset_path(ns, "single"));
    REQUIRE(single_jobset.has_value());
    CHECK(boost::json::serialize(boost::json::parse(*single_jobset))
              .find(R"({"name":"CPPCTL","value":"yes"})") != std::string::npos);
  }
  auto ran = controller->run();  // `once`: every TrainJob present is reconciled, then it returns
  INFO((ran ? std::string() : ran.error().message));
  REQUIRE(ran.has_value());
  const auto jobset = server.get(jobset_path(ns, "plugged"));
  REQUIRE(jobset.has_value());
  const std::string compact = boost::json::serialize(boost::json::parse(*jobset));  // pretty
  INFO(compact);
  CHECK(compact.find(R"({"name":"CPPCTL","value":"yes"})") != std::string::npos);
}
