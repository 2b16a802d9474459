// SPDX-License-Identifier: Apache-2.0
// The certificates of the controller's HTTPS endpoints (admission webhooks, the TrainJobStatus
// progress server), managed as upstream's cert-controller rotator does for Kubeflow Trainer
// (pkg/util/cert): the Secret `<webhook_secret_name>` in the operator namespace holds `ca.crt`,
// `ca.key`, `tls.crt` and `tls.key`; a valid one is reused, a missing one is created, one that
// stops being valid within the lookahead (90 days) or does not cover the Service's DNS names is
// regenerated (the CA kept while it stays valid); the CA is written into `caBundle` of every
// webhook of the ValidatingWebhookConfiguration `validator.trainer.kubeflow.org` and the
// MutatingWebhookConfiguration `defaulter.trainer.kubeflow.org` when they exist, and the serving
// pair feeds the servers' CertificateStore. Every replica runs it: writes are conditional (create,
// or a patch preconditioned on the resourceVersion read) so that one replica's write wins and
// the others read it. With `cert_dir` the pair comes from files instead (reloaded on change) and
// nothing is written to the cluster.
#pragma once

#include "serving/certificates.hpp"
#include "serving/https_server.hpp"
#include "trainer/controller.hpp"
#include "trainer/kube.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace trainer::controller {

/// Upstream's webhook configuration names (manifests/base/webhook).
inline constexpr const char* kValidatingWebhookConfigurationName = "validator.trainer.kubeflow.org";
inline constexpr const char* kMutatingWebhookConfigurationName = "defaulter.trainer.kubeflow.org";
/// Where a pod reads its namespace (upstream's GetOperatorNamespace).
inline constexpr const char* kServiceAccountNamespaceFile =
    "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
inline constexpr const char* kDefaultOperatorNamespace = "kubeflow-system";

/// `serving.operator_namespace`, else the trimmed content of `namespace_file` when it is not
/// empty, else `kubeflow-system`.
[[nodiscard]] std::string operator_namespace(
    const ServingOptions& serving,
    const std::string& namespace_file = kServiceAccountNamespaceFile);

/// The names the serving certificate covers: `<svc>.<ns>.svc` (its common name, as upstream's
/// DNSName), `<svc>.<ns>.svc.cluster.local`, then `extra_cert_hosts`.
[[nodiscard]] std::vector<std::string> serving_hosts(const ServingOptions& serving,
                                                     const std::string& ns);

/// Whether `Controller::run` needs the certificates: webhooks are served (`webhook_port` not 0)
/// or the progress server is (the TrainJobStatus gate on and `status_server_port` not 0).
[[nodiscard]] bool needs_certificates(const ControllerOptions& options);

struct WebhookCertificatesOptions {
  /// How often the Secret and the caBundles are checked again (and a missing webhook
  /// configuration looked for again); cert-controller checks its certificates every 12 h and
  /// watches the configurations, this polls instead.
  std::chrono::milliseconds refresh_interval{std::chrono::minutes(5)};
  /// How often `cert_dir`'s files are checked for a change (controller-runtime's certwatcher
  /// polls every 10 s besides its file notifications).
  std::chrono::milliseconds cert_dir_poll{std::chrono::seconds(10)};
  /// The clock (tests); default system_clock::now.
  std::function<serving::Clock::time_point()> now;
  /// One line per change (`created Secret ...`, `updated caBundle of ...`) and per failed
  /// refresh; empty: `ServingOptions::log`.
  std::function<void(const std::string&)> log;
  std::string namespace_file = kServiceAccountNamespaceFile;
  /// The configurations whose webhooks get the CA (upstream's Config fields of the same names).
  std::string validating_webhook_configuration_name = kValidatingWebhookConfigurationName;
  std::string mutating_webhook_configuration_name = kMutatingWebhookConfigurationName;
};

class WebhookCertificates {
 public:
  /// Resolves the namespace, does one refresh (a failure is returned: the Secret cannot be read
  /// or written, the files of `cert_dir` are missing or do not parse) and starts the periodic
  /// refresh on a thread of its own. Errors: those of `refresh()`.
  [[nodiscard]] static Result<std::unique_ptr<WebhookCertificates>> start(
      kube::Client& client, const ServingOptions& serving, WebhookCertificatesOptions options = {});
  ~WebhookCertificates();  ///< `stop()`
  WebhookCertificates(const WebhookCertificates&) = delete;
  WebhookCertificates& operator=(const WebhookCertificates&) = delete;

  /// The serving certificate for the servers; always holds one after `start`.
  [[nodiscard]] std::shared_ptr<serving::CertificateStore> store() const;
  /// The operator namespace in use.
  [[nodiscard]] const std::string& operator_namespace() const;
  /// One check now (thread-safe with the periodic one): the Secret (or the files), the store,
  /// the caBundles. Errors: the API server's, kParse/kInvalid for unusable files in `cert_dir`.
  [[nodiscard]] Result<void> refresh();
  /// Ends the periodic refresh and joins its thread. Idempotent.
  void stop() noexcept;

  struct Impl;

 private:
  explicit WebhookCertificates(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::controller
