// SPDX-License-Identifier: Apache-2.0
#include "serving/certificates.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

namespace {

using namespace trainer::serving;
using Catch::Matchers::Contains;

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

const std::vector<std::string> kCertificateHosts = {
    "kubeflow-trainer-controller-manager.kubeflow-system.svc",
    "kubeflow-trainer-controller-manager.kubeflow-system.svc.cluster.local", "127.0.0.1"};

}  // namespace

TEST_CASE("issue_certificates makes cert-controller's CA and a serving certificate", "[serving]") {
  const auto now = Clock::now();
  auto set = issue_certificates(kCertificateHosts, now);
  REQUIRE(set);
  CHECK_THAT(set->ca.key_pem, Contains("BEGIN RSA PRIVATE KEY"));

  auto ca = inspect_certificate(set->ca.cert_pem);
  REQUIRE(ca);
  CHECK(ca->common_name == "kubeflow-trainer-ca");
  CHECK(ca->is_ca);
  const auto hour = std::chrono::hours(1);
  CHECK(ca->not_before <= now - hour + std::chrono::seconds(1));
  CHECK(ca->not_before >= now - hour - std::chrono::seconds(2));
  CHECK(ca->not_after - ca->not_before == kCaCertValidity);
  CHECK(ca->dns_names == std::vector<std::string>{"kubeflow-trainer-ca"});

  auto serving = inspect_certificate(set->serving.cert_pem);
  REQUIRE(serving);
  CHECK(!serving->is_ca);
  CHECK(serving->common_name == kCertificateHosts[0]);
  CHECK(contains(serving->dns_names, kCertificateHosts[0]));
  CHECK(contains(serving->dns_names, kCertificateHosts[1]));
  CHECK(serving->ip_addresses == std::vector<std::string>{"127.0.0.1"});
  CHECK(std::chrono::duration_cast<std::chrono::hours>(serving->not_after - serving->not_before)
            .count() == kServingCertValidity.count());

  CHECK(verify_certificates(*set, kCertificateHosts, now + kCertLookahead));
}

TEST_CASE("verify_certificates names why a set must be replaced", "[serving]") {
  const auto now = Clock::now();
  auto set = issue_certificates(kCertificateHosts, now);
  REQUIRE(set);

  SECTION("a host it does not cover") {
    auto result = verify_certificates(*set, {"other.kubeflow-system.svc"}, now);
    REQUIRE(!result);
    CHECK(result.error().code == trainer::ErrorCode::kInvalid);
    CHECK(result.error().message == "tls.crt: does not cover other.kubeflow-system.svc");
  }
  SECTION("expiry within the lookahead") {
    auto ca = issue_ca(kCaName, kCaOrganization, now);
    REQUIRE(ca);
    auto short_lived = issue_serving(*ca, kCertificateHosts, now, std::chrono::hours(24 * 30));
    REQUIRE(short_lived);
    CertificateSet soon{*ca, *short_lived};
    CHECK(verify_certificates(soon, kCertificateHosts, now));
    auto result = verify_certificates(soon, kCertificateHosts, now + kCertLookahead);
    REQUIRE(!result);
    CHECK_THAT(result.error().message, Contains("tls.crt: expires at"));
  }
  SECTION("an expired CA") {
    auto old = issue_ca(kCaName, kCaOrganization, now - std::chrono::hours(24 * 400),
                        std::chrono::hours(24 * 365));
    REQUIRE(old);
    auto serving = issue_serving(*old, kCertificateHosts, now);
    REQUIRE(serving);
    auto result = verify_certificates({*old, *serving}, kCertificateHosts, now);
    REQUIRE(!result);
    CHECK_THAT(result.error().message, Contains("ca.crt: expires at"));
  }
  SECTION("a serving certificate of another CA") {
    auto other = issue_certificates(kCertificateHosts, now);
    REQUIRE(other);
    auto result = verify_certificates({set->ca, other->serving}, kCertificateHosts, now);
    REQUIRE(!result);
    CHECK_THAT(result.error().message, Contains("tls.crt: not signed by ca.crt"));
  }
  SECTION("a key that is not the certificate's") {
    auto other = issue_certificates(kCertificateHosts, now);
    REQUIRE(other);
    auto result = verify_certificates({set->ca, {set->serving.cert_pem, other->serving.key_pem}},
                                      kCertificateHosts, now);
    REQUIRE(!result);
    CHECK(result.error().message == "tls.key: does not belong to tls.crt");
  }
  SECTION("text that is no PEM") {
    auto result =
        verify_certificates({set->ca, {"garbage", set->serving.key_pem}}, kCertificateHosts, now);
    REQUIRE(!result);
    CHECK(result.error().code == trainer::ErrorCode::kParse);
    CHECK(result.error().message == "tls.crt: not a PEM certificate");
    CHECK(!inspect_certificate("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"));
  }
}

TEST_CASE("issue_serving refuses bad hosts and a mismatched CA", "[serving]") {
  const auto now = Clock::now();
  auto ca = issue_ca(kCaName, kCaOrganization, now);
  REQUIRE(ca);
  CHECK(!issue_serving(*ca, {}, now));
  auto bad_host = issue_serving(*ca, {"a,DNS:evil"}, now);
  REQUIRE(!bad_host);
  CHECK(bad_host.error().code == trainer::ErrorCode::kInvalidArgument);
  auto other = issue_ca(kCaName, kCaOrganization, now);
  REQUIRE(other);
  auto mismatched = issue_serving({ca->cert_pem, other->key_pem}, kCertificateHosts, now);
  REQUIRE(!mismatched);
  CHECK(mismatched.error().message == "ca.key: does not belong to ca.crt");
}
