// SPDX-License-Identifier: Apache-2.0
//
// A plugin must not write outside its TrainJob, on the controller's path against the real API
// server: a plugin that moves the TrainJob to kube-system, or builds a ClusterRoleBinding to
// cluster-admin, an object in another namespace or a kind the server does not serve, fails the
// reconcile before anything is written (each object is looked for with a GET afterwards). The
// server's discovery decides what is namespaced: a ClusterRoleBinding is refused as
// cluster-scoped.
#include "plugin/plugin_internal.hpp"
#include "support/api_server.hpp"
#include "support/cluster_data.hpp"
#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/plugin.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace std::chrono_literals;
namespace cluster = trainer::cluster;
namespace controller = trainer::controller;
namespace kube = trainer::kube;
using trainer::testing::ApiServer;

namespace {

// user_data: the reply text.
trainer_status reply_with(void* user_data, const trainer_plugin_request*,
                          trainer_plugin_reply* reply) {
  const char* text = static_cast<const char*>(user_data);
  return trainer::detail::plugin_reply_set(reply, text, std::strlen(text));
}

kube::Client make_client(ApiServer& server) {
  kube::LoadOptions load;
  load.kubeconfig = server.kubeconfig();
  auto config = kube::load_config(load);
  REQUIRE(config);
  kube::ClientOptions options;
  options.qps = -1;
  options.timeout = 30s;
  options.connect_timeout = 5s;
  auto client = kube::Client::create(*config, options);
  REQUIRE(client);
  return std::move(*client);
}

// Whether the server holds the object (namespace "" for a cluster-scoped one).
bool exists(kube::Client& client, const char* api_version, const char* kind, const std::string& ns,
            const std::string& name) {
  auto resource = client.resource_for(api_version, kind);
  REQUIRE(resource);
  auto got = client.get(*resource, ns, name);
  if (got) return true;
  INFO(got.error().message);
  REQUIRE(got.error().code == trainer::ErrorCode::kNotFound);
  return false;
}

}  // namespace

TEST_CASE("the controller writes nothing a plugin would put outside its TrainJob", "[plugin]") {
  auto& server = ApiServer::shared();
  kube::Client client = make_client(server);

  struct Case {
    const char* name;  // of the TrainJob, also the name of the plugin's objects
    bool ml_policy;
    std::string reply;
    const char* message;  // what the reconcile's error holds
    const char* api_version;
    const char* kind;
    bool elsewhere;  // the object would be in kube-system (else cluster-scoped)
  };
  const Case cases[] = {
      {"moved", true, R"({"trainJob":{"metadata":{"namespace":"kube-system"}}})",
       "plugin \"Evil\": enforceMLPolicy: trainJob.metadata.namespace: Forbidden: a plugin may "
       "change only the TrainJob's spec",
       "jobset.x-k8s.io/v1alpha2", "JobSet", true},
      {"crb", false,
       R"({"objects":[{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
       "metadata":{"name":"crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
       "kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"kind":"ServiceAccount",
       "name":"default","namespace":"kube-system"}]}]})",
       "plugin \"Evil\": build: objects[0].kind: Forbidden: ClusterRoleBinding \"crb\" "
       "(rbac.authorization.k8s.io/v1) is cluster-scoped: a plugin builds only namespaced "
       "objects, in the TrainJob's namespace",
       "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", false},
      {"foreign", false,
       R"({"objects":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"foreign",
       "namespace":"kube-system"}}]})",
       "plugin \"Evil\": build: objects[0].metadata.namespace: Forbidden: ConfigMap \"foreign\" "
       "(v1) must be in the TrainJob's namespace",
       "v1", "ConfigMap", true},
      {"unserved", false,
       R"({"objects":[{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}]})",
       "plugin \"Evil\": build: objects[0].kind: Forbidden: Widget \"w\" (example.com/v1) is not "
       "known to be namespaced (the server doesn't have a resource type \"Widget\" in "
       "\"example.com/v1\")",
       nullptr, nullptr, false},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const auto ns = trainer::testing::unique_namespace(server, "plugin-confine");
    auto docs = trainer::parse_documents(trainer::testing::small_runtime_yaml() + "---\n" +
                                         trainer::testing::small_train_job_yaml(c.name));
    REQUIRE(docs);
    cluster::ApplyOptions apply;
    apply.namespace_ = ns;
    auto applied = cluster::apply(client, *docs, apply);
    INFO((applied ? std::string() : applied.error().message));
    REQUIRE(applied);

    trainer_plugin_descriptor desc{};
    desc.abi_version = (1U << 16U);
    desc.name = "Evil";
    desc.user_data = const_cast<char*>(c.reply.c_str());  // NOLINT: read only
    (c.ml_policy ? desc.enforce_ml_policy : desc.build) = reply_with;
    auto plugin = trainer::plugin_from_descriptor(desc);
    REQUIRE(plugin);
    std::vector<std::shared_ptr<trainer::Plugin>> plugins;
    plugins.push_back(std::move(*plugin));
    auto fw = trainer::Framework::with_plugins({}, std::move(plugins));
    REQUIRE(fw);

    controller::ReconcilerOptions options;
    options.framework = std::make_shared<const trainer::Framework>(std::move(*fw));
    controller::Reconciler reconciler(client, options);
    auto result = reconciler.reconcile(ns, c.name);
    REQUIRE_FALSE(result);
    INFO(result.error().message);
    CHECK(result.error().message.find(c.message) != std::string::npos);

    // Nothing was written: not the plugin's object, not the TrainJob's own JobSet or snapshot.
    if (c.kind != nullptr) {
      CHECK_FALSE(exists(client, c.api_version, c.kind, c.elsewhere ? "kube-system" : "", c.name));
    }
    CHECK_FALSE(exists(client, "jobset.x-k8s.io/v1alpha2", "JobSet", ns, c.name));
    CHECK_FALSE(exists(client, "v1", "ConfigMap", ns, std::string(c.name) + "-runtime-snapshot"));
  }
}
