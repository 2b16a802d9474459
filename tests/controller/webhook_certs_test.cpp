// SPDX-License-Identifier: Apache-2.0
// WebhookCertificates against the real kube-apiserver: the Secret is created with its four keys,
// reused by a second start, replaced when expired or not covering the names (a valid CA kept),
// the caBundle of both webhook configurations is written (also when one appears later), and
// `cert_dir` serves files without touching the cluster.
#include "controller/webhook_certs.hpp"
#include "support/api_server.hpp"
#include "support/test_client.hpp"
#include "trainer/base64.hpp"
#include "trainer/kube.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

using namespace std::chrono_literals;
using trainer::ErrorCode;
using trainer::controller::ServingOptions;
using trainer::controller::WebhookCertificates;
using trainer::controller::WebhookCertificatesOptions;
using trainer::kube::Client;
using trainer::kube::Resource;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::need;
namespace serving = trainer::serving;

namespace {

std::string decoded(const boost::json::object& secret, const char* key) {
  auto value = trainer::base64_decode(secret.at("data").at(key).as_string());
  REQUIRE(value);
  return *value;
}

serving::CertificateSet set_of(const boost::json::object& secret) {
  return {{decoded(secret, "ca.crt"), decoded(secret, "ca.key")},
          {decoded(secret, "tls.crt"), decoded(secret, "tls.key")}};
}

boost::json::object secret_with(const std::string& ns, const std::string& name,
                                const serving::CertificateSet& set) {
  using trainer::base64_encode;
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"data",
           {{"ca.crt", base64_encode(set.ca.cert_pem)},
            {"ca.key", base64_encode(set.ca.key_pem)},
            {"tls.crt", base64_encode(set.serving.cert_pem)},
            {"tls.key", base64_encode(set.serving.key_pem)}}}};
}

// The configurations are cluster-wide on the shared API server: each webhook only selects the
// test's own namespace (which holds no TrainJob) and is ignored when unreachable, so TrainJobs
// that other tests create meanwhile are never sent to its unserved URL.
boost::json::object webhook_configuration(const char* kind, const std::string& name,
                                          const std::string& ns, int webhooks) {
  boost::json::array list;
  for (int i = 0; i < webhooks; ++i) {
    list.push_back(boost::json::parse(
        R"({"name":"w)" + std::to_string(i) +
        R"(.trainer.kubeflow.org","clientConfig":{"url":"https://127.0.0.1:9443/validate"},)"
        R"("namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":")" +
        ns +
        R"("}},"failurePolicy":"Ignore",)"
        R"("admissionReviewVersions":["v1"],"sideEffects":"None",)"
        R"("rules":[{"apiGroups":["trainer.kubeflow.org"],"apiVersions":["v1alpha1"],)"
        R"("operations":["CREATE"],"resources":["trainjobs"]}]})"));
  }
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", kind},
          {"metadata", {{"name", name}}},
          {"webhooks", std::move(list)}};
}

struct Fixture {
  ApiServer& server = ApiServer::shared();
  std::string ns = trainer::testing::unique_namespace(server, "certs");
  Client client = client_for(server);
  Resource secrets = need(client, "v1", "Secret");
  ServingOptions serving_options() const {
    ServingOptions serving;
    serving.operator_namespace = ns;
    serving.webhook_service_name = "kubeflow-trainer-controller-manager";
    serving.webhook_secret_name = "kubeflow-trainer-webhook-cert";
    serving.extra_cert_hosts = {"127.0.0.1"};
    return serving;
  }
  WebhookCertificatesOptions options() const {
    WebhookCertificatesOptions options;
    // Configurations of this test's own (they are cluster-wide).
    options.validating_webhook_configuration_name = "validator." + ns;
    options.mutating_webhook_configuration_name = "defaulter." + ns;
    options.refresh_interval = std::chrono::hours(1);
    return options;
  }
  std::vector<std::string> hosts() const {
    return {"kubeflow-trainer-controller-manager." + ns + ".svc",
            "kubeflow-trainer-controller-manager." + ns + ".svc.cluster.local", "127.0.0.1"};
  }
  boost::json::object secret() {
    auto object = client.get(secrets, ns, "kubeflow-trainer-webhook-cert");
    REQUIRE(object);
    return *object;
  }
};

}  // namespace

TEST_CASE("WebhookCertificates creates the Secret with four keys and a second start reuses it",
          "[controller][certificates]") {
  Fixture f;
  auto first = WebhookCertificates::start(f.client, f.serving_options(), f.options());
  REQUIRE(first);
  CHECK((*first)->operator_namespace() == f.ns);
  const auto created = f.secret();
  CHECK(created.at("type") == "Opaque");
  CHECK(created.at("data").as_object().size() == 4);
  const auto set = set_of(created);
  CHECK(serving::verify_certificates(set, f.hosts(),
                                     serving::Clock::now() + serving::kCertLookahead));
  auto ca = serving::inspect_certificate(set.ca.cert_pem);
  REQUIRE(ca);
  CHECK(ca->common_name == "kubeflow-trainer-ca");
  CHECK((*first)->store()->certificate_pem() == set.serving.cert_pem);
  (*first)->stop();

  auto second = WebhookCertificates::start(f.client, f.serving_options(), f.options());
  REQUIRE(second);
  const auto reused = f.secret();
  CHECK(reused.at("metadata").at("resourceVersion") ==
        created.at("metadata").at("resourceVersion"));
  CHECK((*second)->store()->certificate_pem() == set.serving.cert_pem);
}

TEST_CASE("WebhookCertificates replaces an expired Secret and one for other names",
          "[controller][certificates]") {
  Fixture f;
  const auto now = serving::Clock::now();
  SECTION("expired: CA and certificate are new") {
    auto old_ca =
        serving::issue_ca(serving::kCaName, serving::kCaOrganization,
                          now - std::chrono::hours(24 * 400), std::chrono::hours(24 * 365));
    REQUIRE(old_ca);
    auto old_cert = serving::issue_serving(*old_ca, f.hosts(), now - std::chrono::hours(24 * 400),
                                           std::chrono::hours(24 * 365));
    REQUIRE(old_cert);
    REQUIRE(f.client.create(
        f.secrets, f.ns, secret_with(f.ns, "kubeflow-trainer-webhook-cert", {*old_ca, *old_cert})));
    std::vector<std::string> lines;
    auto options = f.options();
    options.log = [&lines](const std::string& line) { lines.push_back(line); };
    auto started = WebhookCertificates::start(f.client, f.serving_options(), options);
    REQUIRE(started);
    const auto set = set_of(f.secret());
    CHECK(set.ca.cert_pem != old_ca->cert_pem);
    CHECK(serving::verify_certificates(set, f.hosts(), now + serving::kCertLookahead));
    CHECK((*started)->store()->certificate_pem() == set.serving.cert_pem);
    REQUIRE(!lines.empty());
    CHECK_THAT(lines.front(), Catch::Contains("ca.crt: expires at"));
  }
  SECTION("other names: the valid CA stays, the certificate is new") {
    auto other = serving::issue_certificates({"other.example.svc"}, now);
    REQUIRE(other);
    REQUIRE(f.client.create(f.secrets, f.ns,
                            secret_with(f.ns, "kubeflow-trainer-webhook-cert", *other)));
    auto started = WebhookCertificates::start(f.client, f.serving_options(), f.options());
    REQUIRE(started);
    const auto set = set_of(f.secret());
    CHECK(set.ca.cert_pem == other->ca.cert_pem);
    CHECK(set.serving.cert_pem != other->serving.cert_pem);
    CHECK(serving::verify_certificates(set, f.hosts(), now + serving::kCertLookahead));
  }
  SECTION("data that is not a certificate") {
    auto bad = secret_with(f.ns, "kubeflow-trainer-webhook-cert", {{"x", "y"}, {"z", "w"}});
    REQUIRE(f.client.create(f.secrets, f.ns, bad));
    auto started = WebhookCertificates::start(f.client, f.serving_options(), f.options());
    REQUIRE(started);
    CHECK(serving::verify_certificates(set_of(f.secret()), f.hosts(), now));
  }
}

TEST_CASE("WebhookCertificates writes the CA into caBundle of both webhook configurations",
          "[controller][certificates]") {
  Fixture f;
  auto validating =
      need(f.client, "admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration");
  auto mutating = need(f.client, "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration");
  const auto options = f.options();
  REQUIRE(f.client.create(
      validating, "",
      webhook_configuration("ValidatingWebhookConfiguration",
                            options.validating_webhook_configuration_name, f.ns, 2)));
  // The mutating one is missing at start: no error, and it is patched once it exists.
  auto started = WebhookCertificates::start(f.client, f.serving_options(), options);
  REQUIRE(started);
  const auto bundle = trainer::base64_encode(set_of(f.secret()).ca.cert_pem);
  auto check_bundles = [&](const Resource& resource, const std::string& name, std::size_t count) {
    auto object = f.client.get(resource, "", name);
    REQUIRE(object);
    const auto& webhooks = object->at("webhooks").as_array();
    REQUIRE(webhooks.size() == count);
    for (const auto& webhook : webhooks) {
      CHECK(webhook.at("clientConfig").at("caBundle") == bundle.c_str());
    }
  };
  check_bundles(validating, options.validating_webhook_configuration_name, 2);
  REQUIRE(
      f.client.create(mutating, "",
                      webhook_configuration("MutatingWebhookConfiguration",
                                            options.mutating_webhook_configuration_name, f.ns, 1)));
  REQUIRE((*started)->refresh());
  check_bundles(mutating, options.mutating_webhook_configuration_name, 1);
  // Current bundles are left alone: a refresh writes nothing.
  auto before = f.client.get(validating, "", options.validating_webhook_configuration_name);
  REQUIRE(before);
  REQUIRE((*started)->refresh());
  auto after = f.client.get(validating, "", options.validating_webhook_configuration_name);
  REQUIRE(after);
  CHECK(after->at("metadata").at("resourceVersion") ==
        before->at("metadata").at("resourceVersion"));
  (void)f.client.remove(validating, "", options.validating_webhook_configuration_name);
  (void)f.client.remove(mutating, "", options.mutating_webhook_configuration_name);
}

TEST_CASE("WebhookCertificates with cert_dir serves the files and reloads them, writing nothing",
          "[controller][certificates]") {
  Fixture f;
  const auto dir = std::filesystem::temp_directory_path() / ("trainer-certs-" + f.ns);
  std::filesystem::create_directories(dir);
  auto write = [&dir](const serving::KeyPair& pair) {
    std::ofstream(dir / "tls.crt") << pair.cert_pem;
    std::ofstream(dir / "tls.key") << pair.key_pem;
  };
  auto first = serving::issue_certificates({"webhook.example"}, serving::Clock::now());
  REQUIRE(first);
  write(first->serving);
  auto serving_options = f.serving_options();
  serving_options.cert_dir = dir.string();
  auto started = WebhookCertificates::start(f.client, serving_options, f.options());
  REQUIRE(started);
  CHECK((*started)->store()->certificate_pem() == first->serving.cert_pem);
  auto second = serving::issue_certificates({"webhook.example"}, serving::Clock::now());
  REQUIRE(second);
  write(second->serving);
  REQUIRE((*started)->refresh());
  CHECK((*started)->store()->certificate_pem() == second->serving.cert_pem);
  CHECK((*started)->store()->generation() == 2);
  auto secret = f.client.get(f.secrets, f.ns, "kubeflow-trainer-webhook-cert");
  REQUIRE(!secret);
  CHECK(secret.error().code == ErrorCode::kNotFound);
  // A key that does not match is refused and the served pair stays.
  std::ofstream(dir / "tls.key") << first->serving.key_pem;
  auto mismatched = (*started)->refresh();
  REQUIRE(!mismatched);
  CHECK_THAT(mismatched.error().message, Catch::Contains("does not belong"));
  CHECK((*started)->store()->certificate_pem() == second->serving.cert_pem);
  (*started)->stop();
  std::filesystem::remove_all(dir);

  // Missing files fail the start.
  serving_options.cert_dir = (dir / "missing").string();
  auto missing = WebhookCertificates::start(f.client, serving_options, f.options());
  REQUIRE(!missing);
  CHECK_THAT(missing.error().message, Catch::Contains("cannot read"));
}

TEST_CASE("operator_namespace and serving_hosts follow upstream", "[controller][certificates]") {
  ServingOptions serving;
  const auto file = std::filesystem::temp_directory_path() / "trainer-test-namespace";
  std::ofstream(file) << "  team-ops\n";
  CHECK(trainer::controller::operator_namespace(serving, file.string()) == "team-ops");
  CHECK(trainer::controller::operator_namespace(serving, "/nonexistent/namespace") ==
        "kubeflow-system");
  serving.operator_namespace = "given";
  CHECK(trainer::controller::operator_namespace(serving, file.string()) == "given");
  std::filesystem::remove(file);
  serving.extra_cert_hosts = {"127.0.0.1", "kubeflow-trainer-controller-manager.x.svc"};
  CHECK(trainer::controller::serving_hosts(serving, "x") ==
        std::vector<std::string>{"kubeflow-trainer-controller-manager.x.svc",
                                 "kubeflow-trainer-controller-manager.x.svc.cluster.local",
                                 "127.0.0.1"});
}

TEST_CASE(
    "WebhookCertificates' periodic refresh patches a configuration that appears and reloads files",
    "[controller][certificates]") {
  Fixture f;
  auto mutating = need(f.client, "admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration");
  auto options = f.options();
  options.refresh_interval = 200ms;
  auto started = WebhookCertificates::start(f.client, f.serving_options(), options);
  REQUIRE(started);
  const auto bundle = trainer::base64_encode(set_of(f.secret()).ca.cert_pem);
  // Created after start: the next periodic check writes the bundle, no refresh() called.
  REQUIRE(
      f.client.create(mutating, "",
                      webhook_configuration("MutatingWebhookConfiguration",
                                            options.mutating_webhook_configuration_name, f.ns, 1)));
  bool patched = false;
  for (int i = 0; i < 100 && !patched; ++i) {
    std::this_thread::sleep_for(100ms);
    auto object = f.client.get(mutating, "", options.mutating_webhook_configuration_name);
    REQUIRE(object);
    const auto& config = object->at("webhooks").as_array().at(0).at("clientConfig").as_object();
    patched = config.contains("caBundle") && config.at("caBundle") == bundle.c_str();
  }
  CHECK(patched);
  (*started)->stop();
  (void)f.client.remove(mutating, "", options.mutating_webhook_configuration_name);

  // cert_dir: a rewritten pair is served after the next poll.
  const auto dir = std::filesystem::temp_directory_path() / ("trainer-certs-poll-" + f.ns);
  std::filesystem::create_directories(dir);
  auto write = [&dir](const serving::KeyPair& pair) {
    std::ofstream(dir / "tls.crt") << pair.cert_pem;
    std::ofstream(dir / "tls.key") << pair.key_pem;
  };
  auto first = serving::issue_certificates({"webhook.example"}, serving::Clock::now());
  REQUIRE(first);
  write(first->serving);
  auto serving_options = f.serving_options();
  serving_options.cert_dir = dir.string();
  options.cert_dir_poll = 100ms;
  auto watching = WebhookCertificates::start(f.client, serving_options, options);
  REQUIRE(watching);
  auto second = serving::issue_certificates({"webhook.example"}, serving::Clock::now());
  REQUIRE(second);
  write(second->serving);
  for (int i = 0; i < 100 && (*watching)->store()->generation() < 2; ++i) {
    std::this_thread::sleep_for(50ms);
  }
  CHECK((*watching)->store()->certificate_pem() == second->serving.cert_pem);
  (*watching)->stop();
  std::filesystem::remove_all(dir);
}
