// SPDX-License-Identifier: Apache-2.0
// The admission webhooks called by a real kube-apiserver: Controller::run serves them over HTTPS
// (its certificate manager writes the Secret and the caBundle), the test registers upstream's
// Validating/MutatingWebhookConfigurations with `clientConfig.url` on loopback, and the API
// server refuses what the one admission path refuses (a built-in plugin's rule, a loaded
// plugin's rule, an update upstream forbids, a runtime's rule) and stamps runtimePatches[].time.
// One private API server for the file: the configurations intercept every TrainJob of it.
#include "support/api_server.hpp"
#include "support/test_client.hpp"
#include "trainer/controller.hpp"
#include "trainer/kube.hpp"
#include "trainer/plugin.hpp"
#include "trainer/render.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

using namespace std::chrono_literals;
namespace json = boost::json;
using trainer::controller::Controller;
using trainer::controller::ControllerOptions;
using trainer::kube::Client;
using trainer::kube::Resource;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::need;

namespace {

// A port nobody listens on now (bound, then released).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

json::object rule(const char* resource) {
  return json::object{{"apiGroups", json::array{"trainer.kubeflow.org"}},
                      {"apiVersions", json::array{"v1alpha1"}},
                      {"operations", json::array{"CREATE", "UPDATE"}},
                      {"resources", json::array{resource}}};
}

json::object webhook(const char* name, int port, const char* path, const char* resource) {
  return json::object{
      {"name", name},
      {"admissionReviewVersions", json::array{"v1"}},
      {"sideEffects", "None"},
      {"failurePolicy", "Fail"},
      {"timeoutSeconds", 10},
      {"clientConfig", {{"url", "https://127.0.0.1:" + std::to_string(port) + path}}},
      {"rules", json::array{rule(resource)}}};
}

json::object runtime(const std::string& ns, int replicas = 1) {
  json::object rt = json::parse(
                        R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime",
      "metadata":{"name":"rt"},"spec":{"mlPolicy":{"numNodes":1,"torch":{}},"template":{"spec":
      {"replicatedJobs":[{"name":"node","replicas":1,"template":{"metadata":{"labels":
      {"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},"spec":{"template":{"spec":
      {"containers":[{"name":"node","image":"test:runtime"}]}}}}}]}}}})")
                        .as_object();
  rt["metadata"].as_object()["namespace"] = ns;
  rt.at("spec").at("template").at("spec").at("replicatedJobs").at(0).as_object()["replicas"] =
      replicas;
  return rt;
}

json::object train_job(const std::string& name, const std::string& trainer_extra = "",
                       const std::string& spec_extra = "") {
  return json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
      "metadata":{"name":")" +
                     name + R"("},"spec":{"runtimeRef":{"name":"rt",
      "apiGroup":"trainer.kubeflow.org","kind":"TrainingRuntime"},"trainer":{"image":"x")" +
                     trainer_extra + "}" + spec_extra + "}}")
      .as_object();
}

const char* const kPatch = R"(,"runtimePatches":[{"manager":"kueue.x-k8s.io/manager",
    "trainingRuntimeSpec":{"template":{"spec":{"replicatedJobs":[{"name":"node","template":
    {"spec":{"template":{"spec":{"nodeSelector":{"pool":"a"}}}}}}]}}}}])";

// The private API server, the controller serving the webhooks (with the numnodes test plugin
// loaded, as `trainerctl controller --plugin` would) and the configurations, once per process.
struct Env {
  std::unique_ptr<ApiServer> server = ApiServer::start_private();
  Client client = client_for(*server);
  int port = free_port();
  std::string ns = trainer::testing::unique_namespace(*server, "webhooks");
  std::unique_ptr<Controller> controller;
  std::thread runner;
  std::atomic<int> served_port{0};
  Resource train_jobs = need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  Resource runtimes = need(client, "trainer.kubeflow.org/v1alpha1", "TrainingRuntime");

  Env() {
    Resource namespaces = need(client, "v1", "Namespace");
    REQUIRE(client.create(namespaces, "",
                          json::object{{"apiVersion", "v1"},
                                       {"kind", "Namespace"},
                                       {"metadata", {{"name", "kubeflow-system"}}}}));
    // The configurations first, without a caBundle: the controller's certificate manager
    // writes it when it starts.
    Resource validating =
        need(client, "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration");
    Resource mutating =
        need(client, "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration");
    REQUIRE(client.create(
        validating, "",
        json::object{
            {"apiVersion", "admissionregistration.k8s.io/v1"},
            {"kind", "ValidatingWebhookConfiguration"},
            {"metadata", {{"name", "validator.trainer.kubeflow.org"}}},
            {"webhooks",
             json::array{webhook("validator.trainjob.trainer.kubeflow.org", port,
                                 "/validate-trainer-kubeflow-org-v1alpha1-trainjob", "trainjobs"),
                         webhook("validator.trainingruntime.trainer.kubeflow.org", port,
                                 "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime",
                                 "trainingruntimes"),
                         webhook("validator.clustertrainingruntime.trainer.kubeflow.org", port,
                                 "/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime",
                                 "clustertrainingruntimes")}}}));
    REQUIRE(client.create(
        mutating, "",
        json::object{
            {"apiVersion", "admissionregistration.k8s.io/v1"},
            {"kind", "MutatingWebhookConfiguration"},
            {"metadata", {{"name", "defaulter.trainer.kubeflow.org"}}},
            {"webhooks", json::array{webhook("defaulter.trainjob.trainer.kubeflow.org", port,
                                             "/mutate-trainer-kubeflow-org-v1alpha1-"
                                             "trainjob",
                                             "trainjobs")}}}));

    auto plugin = trainer::load_plugin(NUMNODES_PLUGIN);
    REQUIRE(plugin);
    std::vector<std::shared_ptr<trainer::Plugin>> extra;
    extra.push_back(std::move(*plugin));
    auto framework = trainer::Framework::with_plugins({}, std::move(extra));
    REQUIRE(framework);
    ControllerOptions options;
    options.reconciler.framework =
        std::make_shared<const trainer::Framework>(std::move(*framework));
    options.serving.operator_namespace = "kubeflow-system";
    options.serving.extra_cert_hosts = {"127.0.0.1"};
    options.serving.webhook_bind_address = "127.0.0.1";
    options.serving.webhook_port = port;
    options.on_serving = [this](std::string_view, int p) { served_port = p; };
    controller = std::make_unique<Controller>(client, std::move(options));
    runner = std::thread([this] {
      auto ran = controller->run();
      if (!ran) std::fprintf(stderr, "controller: %s\n", ran.error().message.c_str());
    });
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (served_port == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
    }
    REQUIRE(served_port == port);
    // The caBundle is in place once the manager's first refresh returned (before it serves).
    auto config = client.get(validating, "", "validator.trainer.kubeflow.org");
    REQUIRE(config);
    REQUIRE_FALSE(
        config->at("webhooks").at(0).at("clientConfig").as_object().if_contains("caBundle") ==
        nullptr);
    REQUIRE(client.create(runtimes, ns, runtime(ns)));
  }
  ~Env() {
    controller->stop();
    runner.join();
  }
};

Env& env() {
  static Env e;
  return e;
}

std::string create_error(const json::object& job) {
  Env& e = env();
  auto created = e.client.create(e.train_jobs, e.ns, job);
  if (created) return "";
  return trainer::kube::kubectl_text(created.error());
}

}  // namespace

// One test case, so that its sections share the one API server of the process.
TEST_CASE("the API server calls our admission webhooks", "[controller][webhooks]") {
  SECTION("the API server refuses a TrainJob with a reserved env var through our webhook") {
    const std::string error =
        create_error(train_job("reserved", R"(,"env":[{"name":"PET_NNODES","value":"3"}])"));
    INFO(error);
    CHECK(error.find("admission webhook \"validator.trainjob.trainer.kubeflow.org\" denied the "
                     "request: spec.trainer.env: Invalid value: ") != std::string::npos);
    CHECK(error.find("must not have reserved envs, invalid envs configured: [PET_NNODES]") !=
          std::string::npos);
  }
  SECTION("the API server refuses what a loaded plugin's rule refuses") {
    const std::string error = create_error(train_job("too-many", R"(,"numNodes":5)"));
    INFO(error);
    CHECK(error.find("denied the request: spec.trainer.numNodes: Invalid value: 5: must be at "
                     "most 4") != std::string::npos);
  }
  SECTION("a valid TrainJob is admitted and the defaulter stamps its runtimePatches' time") {
    Env& e = env();
    auto created = e.client.create(e.train_jobs, e.ns, train_job("valid", "", kPatch));
    if (!created) FAIL(trainer::kube::kubectl_text(created.error()));
    const auto& patch = created->at("spec").at("runtimePatches").at(0).as_object();
    REQUIRE(patch.if_contains("time") != nullptr);
    const std::string time(patch.at("time").as_string());
    CHECK(time.size() == 20);  // RFC 3339 seconds, UTC
    CHECK(time.back() == 'Z');

    // An update upstream forbids: the runtime patches change while the TrainJob runs.
    const std::string body =
        R"({"spec":{"runtimePatches":[{"manager":"kueue.x-k8s.io/manager","trainingRuntimeSpec":
        {"template":{"spec":{"replicatedJobs":[{"name":"node","template":{"spec":{"template":
        {"spec":{"nodeSelector":{"pool":"b"}}}}}}]}}}}]}})";
    auto patched =
        e.client.patch(e.train_jobs, e.ns, "valid", trainer::kube::PatchType::kMerge, body);
    REQUIRE_FALSE(patched);
    const std::string error = trainer::kube::kubectl_text(patched.error());
    INFO(error);
    CHECK(error.find("denied the request: spec.runtimePatches: Forbidden: RuntimePatches can only "
                     "be modified when the TrainJob is suspended before or after the update") !=
          std::string::npos);
  }
  SECTION("the API server refuses a TrainingRuntime the runtime webhook refuses") {
    Env& e = env();
    json::object rt = runtime(e.ns, 2);
    rt["metadata"].as_object()["name"] = "two-replicas";
    auto created = e.client.create(e.runtimes, e.ns, rt);
    REQUIRE_FALSE(created);
    const std::string error = trainer::kube::kubectl_text(created.error());
    INFO(error);
    CHECK(error.find("admission webhook \"validator.trainingruntime.trainer.kubeflow.org\" denied "
                     "the request: spec.template.spec.replicatedJobs[0].replicas: Invalid value: "
                     "2: always must be 1") != std::string::npos);
  }
}
