// SPDX-License-Identifier: Apache-2.0
//
// The controller's status step with a TrainJobStatus plugin (a C descriptor in process) against
// the real API server: the reconciler renders with the framework and writes the status the
// plugin refined.
#include "plugin/plugin_internal.hpp"
#include "support/api_server.hpp"
#include "support/cluster_data.hpp"
#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/plugin.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <string>

using namespace std::chrono_literals;
namespace json = boost::json;
namespace cluster = trainer::cluster;
namespace controller = trainer::controller;
namespace kube = trainer::kube;
using trainer::testing::ApiServer;

namespace {

// Adds a condition naming the phase it saw, so the test can tell the plugin ran on the status.
trainer_status refine(void*, const trainer_plugin_request* request, trainer_plugin_reply* reply) {
  const char* phase = trainer::detail::plugin_request_get_string(request, "/phase");
  if (phase == nullptr || std::strcmp(phase, "status") != 0) return TRAINER_E_INTERNAL;
  static const char patch[] =
      R"({"status":{"conditions":[{"type":"TestFwReady","status":"True","reason":"Refined",)"
      R"("message":"refined by the plugin","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})";
  return trainer::detail::plugin_reply_set(reply, patch, sizeof patch - 1);
}

}  // namespace

TEST_CASE("a TrainJobStatus plugin refines the status the reconciler writes", "[plugin]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "plugin-status");
  kube::LoadOptions load;
  load.kubeconfig = server.kubeconfig();
  auto config = kube::load_config(load);
  REQUIRE(config);
  kube::ClientOptions client_options;
  client_options.qps = -1;
  client_options.timeout = 30s;
  client_options.connect_timeout = 5s;
  auto client = kube::Client::create(*config, client_options);
  REQUIRE(client);

  auto docs = trainer::parse_documents(trainer::testing::small_runtime_yaml() + "---\n" +
                                       trainer::testing::small_train_job_yaml("s"));
  REQUIRE(docs);
  cluster::ApplyOptions apply;
  apply.namespace_ = ns;
  auto applied = cluster::apply(*client, *docs, apply);
  INFO((applied ? std::string() : applied.error().message));
  REQUIRE(applied);

  trainer_plugin_descriptor desc{};
  desc.abi_version = (1U << 16U);
  desc.name = "TestFwStatus";
  desc.status = refine;
  auto plugin = trainer::plugin_from_descriptor(desc);
  REQUIRE(plugin);
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  plugins.push_back(std::move(*plugin));
  auto fw = trainer::Framework::with_plugins({}, std::move(plugins));
  REQUIRE(fw);

  controller::ReconcilerOptions options;
  options.framework = std::make_shared<const trainer::Framework>(std::move(*fw));
  controller::Reconciler reconciler(*client, options);
  auto result = reconciler.reconcile(ns, "s");
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  CHECK(result->status_patched);

  auto trainjobs = client->resource_for("trainer.kubeflow.org/v1alpha1", "TrainJob");
  REQUIRE(trainjobs);
  auto job = client->get(*trainjobs, ns, "s");
  REQUIRE(job);
  const auto& conditions = job->at("status").at("conditions").as_array();
  REQUIRE(conditions.size() == 1);
  CHECK(conditions[0].at("type") == "TestFwReady");
  CHECK(conditions[0].at("reason") == "Refined");

  // The same status again: nothing to write.
  auto again = reconciler.reconcile(ns, "s");
  REQUIRE(again);
  CHECK_FALSE(again->status_patched);
}
