// SPDX-License-Identifier: Apache-2.0
// The webhook serving certificates as upstream's cert-controller (open-policy-agent/cert-controller
// pkg/rotator, which Kubeflow Trainer's pkg/util/cert configures) makes them: a self-signed CA
// (CN `kubeflow-trainer-ca`, O `kubeflow-trainer`) and a serving certificate it signs for the
// webhook Service's DNS names, both RSA 2048 with SHA-256, valid from an hour ago for 10 years
// (the CA) and 1 year (the serving certificate), and replaced when they stop being valid 90 days
// ahead (the lookahead). PEM in, PEM out (OpenSSL 3; keys as `RSA PRIVATE KEY`, PKCS#1, as Go's
// x509.MarshalPKCS1PrivateKey writes them).
#pragma once

#include "trainer/error.hpp"

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::serving {

using Clock = std::chrono::system_clock;

/// cert-controller's `caName` and `caOrganization` as Kubeflow Trainer sets them.
inline constexpr const char* kCaName = "kubeflow-trainer-ca";
inline constexpr const char* kCaOrganization = "kubeflow-trainer";
/// cert-controller's defaultCaCertValidityDuration and defaultServerCertValidityDuration.
inline constexpr std::chrono::hours kCaCertValidity{10 * 365 * 24};
inline constexpr std::chrono::hours kServingCertValidity{365 * 24};
/// cert-controller's defaultLookaheadInterval: a certificate that is not valid this far ahead is
/// replaced.
inline constexpr std::chrono::hours kCertLookahead{90 * 24};
/// cert-controller's defaultRotationCheckFrequency.
inline constexpr std::chrono::hours kRotationCheckFrequency{12};

/// A certificate and its private key, PEM (the key `BEGIN RSA PRIVATE KEY`).
struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

/// The four values of the webhook certificate Secret: `ca.crt`, `ca.key`, `tls.crt`, `tls.key`.
struct CertificateSet {
  KeyPair ca;
  KeyPair serving;
};

/// A self-signed CA certificate (CN `common_name`, O `organization`, DNS SAN `common_name`;
/// basic constraints CA, key usage digitalSignature, keyEncipherment, keyCertSign) valid from
/// `now - 1h` for
/// `validity`, with a new RSA 2048 key. Errors: kInternal when OpenSSL fails.
[[nodiscard]] Result<KeyPair> issue_ca(std::string_view common_name, std::string_view organization,
                                       Clock::time_point now,
                                       std::chrono::seconds validity = kCaCertValidity);

/// A serving certificate signed by `ca` (CN the first host; key usage digitalSignature,
/// keyEncipherment; extended key usage serverAuth) for `hosts`: each an IP address (an IP SAN) or
/// a DNS name (a DNS SAN), valid from `now - 1h` for `validity`, with a new RSA 2048 key.
/// Errors: kInvalidArgument (no host, an empty host, `ca` does not parse or its key does not
/// match), kInternal (OpenSSL).
[[nodiscard]] Result<KeyPair> issue_serving(const KeyPair& ca,
                                            const std::vector<std::string>& hosts,
                                            Clock::time_point now,
                                            std::chrono::seconds validity = kServingCertValidity);

/// A CA and a serving certificate for `hosts` in one call (what the Secret holds).
[[nodiscard]] Result<CertificateSet> issue_certificates(const std::vector<std::string>& hosts,
                                                        Clock::time_point now);

/// What a PEM certificate says about itself.
struct CertificateInfo {
  std::string common_name;
  Clock::time_point not_before;
  Clock::time_point not_after;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  bool is_ca = false;
};

/// Parses the first certificate of `pem`. Errors: kParse (`<what>: not a PEM certificate`).
[[nodiscard]] Result<CertificateInfo> inspect_certificate(std::string_view pem,
                                                          std::string_view what = "certificate");

/// Checks what cert-controller's validCACert/validServerCert check: `cert_pem` parses, its key is
/// `key_pem`, it chains to `ca_pem` and is valid at `at` (callers pass `now + kCertLookahead`)
/// for every one of `hosts`. With an empty `ca_pem` the certificate must be self-signed (a CA
/// checked alone). Errors: kInvalid with the reason (`tls.crt: expires before ...`,
/// `tls.crt: does not cover <host>`, `tls.key: does not belong to tls.crt`, ...), kParse.
[[nodiscard]] Result<void> verify_certificate(const std::string& ca_pem,
                                              const std::string& cert_pem,
                                              const std::string& key_pem,
                                              const std::vector<std::string>& hosts,
                                              Clock::time_point at);

/// Checks a whole set: the CA alone, then the serving certificate against it, at `at`.
[[nodiscard]] Result<void> verify_certificates(const CertificateSet& set,
                                               const std::vector<std::string>& hosts,
                                               Clock::time_point at);

}  // namespace trainer::serving
