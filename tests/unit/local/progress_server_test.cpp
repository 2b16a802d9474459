// SPDX-License-Identifier: Apache-2.0
//
// The progress server of local runs (lib/local/progress_server.cpp) without pods: its
// certificate and render hook, its tokens (audience, revocation, expiry), where posts go and
// what they may hold; and the executor's refusal of a projected token without a server. The
// HTTPS exchange with real pods and the Kubeflow SDK is cli.run.progress.
#include <catch2/catch.hpp>

#include "local/progress_registry.hpp"
#include "serving/certificates.hpp"
#include "temp_dir.hpp"
#include "trainer/base64.hpp"

#include "trainer/local.hpp"
#include "trainer/local_progress.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <sys/stat.h>

namespace {

namespace json = boost::json;
using trainer::ErrorCode;
using trainer::local::ProgressServer;
using trainer::serving::progress_audience;
using trainer::serving::ProgressOutcome;

json::object post(int percent) {
  return {{"progressPercentage", percent}, {"lastUpdatedTime", "2026-01-01T00:00:00Z"}};
}

}  // namespace

TEST_CASE("progress server: its CA, service name and render hook") {
  auto server = ProgressServer::start();
  REQUIRE(server);
  auto& s = **server;
  CHECK(s.port() > 0);
  CHECK(s.service_host() == "kubeflow-trainer-controller-manager.kubeflow-system.svc");
  auto ca = trainer::serving::inspect_certificate(s.ca_cert_pem());
  REQUIRE(ca);
  CHECK(ca->is_ca);
  auto serving = trainer::serving::inspect_certificate(s.impl().certificates.serving.cert_pem);
  REQUIRE(serving);
  CHECK(serving->ip_addresses == std::vector<std::string>{"127.0.0.1"});
  CHECK(std::find(serving->dns_names.begin(), serving->dns_names.end(), s.service_host()) !=
        serving->dns_names.end());

  trainer::RenderContext ctx;
  ctx.lookup = [](std::string_view, std::string_view kind, std::string_view,
                  std::string_view) -> std::optional<json::value> {
    if (kind == "ConfigMap") return json::value(json::object{{"kind", "ConfigMap"}});
    return std::nullopt;
  };
  trainer::OperatorConfig base;
  base.operator_namespace = "replaced";
  const trainer::Framework fw = s.configure(ctx, trainer::default_framework({}).with_config(base));
  CHECK(fw.config().status_server_port == static_cast<std::int32_t>(s.port()));
  CHECK(fw.config().operator_namespace == "kubeflow-system");
  CHECK(fw.plugins() == trainer::default_framework({}).plugins());
  auto secret = ctx.find("v1", "Secret", "kubeflow-system", "kubeflow-trainer-webhook-cert");
  REQUIRE(secret);
  const auto ca_text = trainer::base64_decode(secret->at("data").at("ca.crt").as_string());
  REQUIRE(ca_text);
  CHECK(*ca_text == s.ca_cert_pem());
  // Only ca.crt: the keys stay in the process.
  CHECK(secret->at("data").as_object().size() == 1);
  // Anything else is the previous lookup's.
  CHECK(ctx.find("v1", "ConfigMap", "ns", "x"));
  CHECK_FALSE(ctx.find("v1", "Secret", "other", "kubeflow-trainer-webhook-cert"));
}

TEST_CASE("progress server: tokens are bound to an audience and end with their pod") {
  auto server = ProgressServer::start();
  REQUIRE(server);
  auto& impl = (*server)->impl();
  const auto audience = progress_audience("team", "job");
  auto token = impl.issue_token(audience, "/runs/a", "job-node-0-0-0", std::chrono::hours(1));
  REQUIRE(token);
  CHECK(token->rfind("trainer-local.", 0) == 0);
  CHECK(token->size() == 14 + 64);
  auto other = impl.issue_token(audience, "/runs/a", "job-node-0-1-0", std::chrono::hours(1));
  REQUIRE(other);
  CHECK(*other != *token);

  CHECK(impl.authenticate(*token, "team", "job").outcome == ProgressOutcome::kOk);
  // Another TrainJob's path, no token, an unknown one.
  CHECK(impl.authenticate(*token, "team", "other").outcome == ProgressOutcome::kForbidden);
  CHECK(impl.authenticate(*token, "other", "job").outcome == ProgressOutcome::kForbidden);
  CHECK(impl.authenticate("", "team", "job").outcome == ProgressOutcome::kForbidden);
  CHECK(impl.authenticate("trainer-local.00", "team", "job").outcome ==
        ProgressOutcome::kForbidden);
  // The attempt ended: its token only.
  impl.revoke("/runs/a", "job-node-0-0-0");
  CHECK(impl.authenticate(*token, "team", "job").outcome == ProgressOutcome::kForbidden);
  CHECK(impl.authenticate(*other, "team", "job").outcome == ProgressOutcome::kOk);
  // The run ended: all of its tokens.
  impl.revoke("/runs/a");
  CHECK(impl.authenticate(*other, "team", "job").outcome == ProgressOutcome::kForbidden);
  // Expired.
  auto expired = impl.issue_token(audience, "/runs/b", "p", std::chrono::seconds(0));
  REQUIRE(expired);
  CHECK(impl.authenticate(*expired, "team", "job").outcome == ProgressOutcome::kForbidden);
}

TEST_CASE("progress server: posts reach the attached run, valid ones only") {
  auto server = ProgressServer::start();
  REQUIRE(server);
  auto& impl = (*server)->impl();
  json::object received;
  int calls = 0;
  CHECK(impl.apply("team", "job", post(10)).outcome == ProgressOutcome::kNotFound);
  REQUIRE(impl.attach("team", "job", [&](const json::object& status) {
    received = status;
    ++calls;
  }));
  // One run per TrainJob.
  auto twice = impl.attach("team", "job", [](const json::object&) {});
  REQUIRE_FALSE(twice);
  CHECK(twice.error().code == ErrorCode::kConflict);

  CHECK(impl.apply("team", "job", post(40)).outcome == ProgressOutcome::kOk);
  CHECK(calls == 1);
  CHECK(received.at("progressPercentage") == 40);
  // The CRD's rules, with the API server's message.
  auto refused = impl.apply("team", "job", post(150));
  CHECK(refused.outcome == ProgressOutcome::kInvalid);
  CHECK(refused.message ==
        "TrainJob.trainer.kubeflow.org \"job\" is invalid: "
        "status.trainerStatus.progressPercentage: Invalid value: 150: "
        "status.trainerStatus.progressPercentage in body should be less than or equal to 100");
  auto no_time = impl.apply("team", "job", json::object{{"progressPercentage", 5}});
  CHECK(no_time.outcome == ProgressOutcome::kInvalid);
  CHECK_THAT(no_time.message,
             Catch::Contains("lastUpdatedTime is required when trainerStatus is present"));
  CHECK(calls == 1);
  impl.detach("team", "job");
  CHECK(impl.apply("team", "job", post(50)).outcome == ProgressOutcome::kNotFound);
  CHECK(calls == 1);
}

TEST_CASE("executor: a projected token without a progress server is refused before the run") {
  const auto jobset = json::parse(R"({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
    "metadata": {"name": "tok", "namespace": "default"},
    "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": {
      "template": {"spec": {
        "containers": [{"name": "node", "command": ["true"],
          "volumeMounts": [{"name": "t", "mountPath": "/var/run/t"}]}],
        "volumes": [{"name": "t", "projected": {"sources": [
          {"serviceAccountToken": {"path": "token", "audience": "vault"}}]}}]}}}}}]}})");
  const trainer::testing::TempDir tmp("trainer-progress-test");
  trainer::local::ExecutorOptions options;
  options.run_dir = tmp / "run";
  options.isolation = trainer::local::Isolation::kHost;
  auto started = trainer::local::Executor::start({jobset}, options);
  REQUIRE_FALSE(started);
  CHECK(started.error().code == ErrorCode::kUnsupported);
  CHECK_THAT(started.error().message,
             Catch::StartsWith("JobSet.spec.replicatedJobs[0].template.spec.template.spec."
                               "volumes[0].projected.sources[0].serviceAccountToken: a local run "
                               "issues service account tokens only"));
  struct stat st {};
  CHECK(::stat((options.run_dir + "/state.json").c_str(), &st) != 0);

  SECTION("the API server's rules on the projection") {
    auto bad = jobset;
    auto& source = bad.at_pointer(
        "/spec/replicatedJobs/0/template/spec/template/spec/volumes/0/projected/sources/0");
    source.at("serviceAccountToken").as_object()["expirationSeconds"] = 60;
    source.at("serviceAccountToken").as_object()["path"] = "../escape";
    auto refused = trainer::local::Executor::start({bad}, options);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ErrorCode::kInvalid);
    CHECK_THAT(refused.error().message,
               Catch::Contains("serviceAccountToken.expirationSeconds: Invalid value: 60: may not "
                               "specify a duration less than 10 minutes"));
    CHECK_THAT(refused.error().message, Catch::Contains("serviceAccountToken.path"));
  }
}
