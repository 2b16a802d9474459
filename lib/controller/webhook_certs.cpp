// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook_certs.hpp"

#include "api/ascii.hpp"
#include "trainer/base64.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace trainer::controller {

namespace {

constexpr const char* kCaCert = "ca.crt";
constexpr const char* kCaKey = "ca.key";
constexpr const char* kTlsCert = "tls.crt";
constexpr const char* kTlsKey = "tls.key";
// A PEM file of cert_dir larger than this is not a certificate or key.
constexpr std::size_t kMaxPemFile = 1024 * 1024;

kube::Resource secrets() {
  kube::Resource r;
  r.version = "v1";
  r.resource = "secrets";
  r.kind = "Secret";
  r.singular = "secret";
  return r;
}

kube::Resource webhook_configurations(bool validating) {
  kube::Resource r;
  r.group = "admissionregistration.k8s.io";
  r.version = "v1";
  r.resource = validating ? "validatingwebhookconfigurations" : "mutatingwebhookconfigurations";
  r.kind = validating ? "ValidatingWebhookConfiguration" : "MutatingWebhookConfiguration";
  r.singular = validating ? "validatingwebhookconfiguration" : "mutatingwebhookconfiguration";
  r.namespaced = false;
  return r;
}

// The whole file, or nullopt when it cannot be read or is larger than `limit`.
std::optional<std::string> read_file(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text;
  char chunk[8192];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > limit) return std::nullopt;
  }
  return text;
}

// The four values of a Secret's `data`; nullopt when one is missing or not base64.
std::optional<serving::CertificateSet> decode_secret(const boost::json::object& secret) {
  const auto* data = find_object(secret, "data");
  if (data == nullptr) return std::nullopt;
  std::string values[4];
  const char* keys[4] = {kCaCert, kCaKey, kTlsCert, kTlsKey};
  for (int i = 0; i < 4; ++i) {
    auto text = find_string(*data, keys[i]);
    if (!text) return std::nullopt;
    auto decoded = base64_decode(*text, Base64Decoding::kGo);
    if (!decoded) return std::nullopt;
    values[i] = std::move(*decoded);
  }
  return serving::CertificateSet{{values[0], values[1]}, {values[2], values[3]}};
}

// The string at `object.<parent>.<key>`; empty when absent.
std::string nested_string(const boost::json::object& object, std::string_view parent,
                          std::string_view key) {
  const auto* inner = find_object(object, parent);
  return inner == nullptr ? std::string() : find_string(*inner, key).value_or("");
}

boost::json::object encode_data(const serving::CertificateSet& set) {
  return {{kCaCert, base64_encode(set.ca.cert_pem)},
          {kCaKey, base64_encode(set.ca.key_pem)},
          {kTlsCert, base64_encode(set.serving.cert_pem)},
          {kTlsKey, base64_encode(set.serving.key_pem)}};
}

}  // namespace

std::string operator_namespace(const ServingOptions& serving, const std::string& namespace_file) {
  if (!serving.operator_namespace.empty()) return serving.operator_namespace;
  if (auto text = read_file(namespace_file, 4096)) {
    auto ns = std::string(ascii::trim(*text));
    if (!ns.empty()) return ns;
  }
  return kDefaultOperatorNamespace;
}

std::vector<std::string> serving_hosts(const ServingOptions& serving, const std::string& ns) {
  std::vector<std::string> hosts = {serving.webhook_service_name + "." + ns + ".svc",
                                    serving.webhook_service_name + "." + ns + ".svc.cluster.local"};
  for (const auto& host : serving.extra_cert_hosts) {
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  return hosts;
}

bool needs_certificates(const ControllerOptions& options) {
  return options.serving.webhook_port != 0 ||
         (options.reconciler.framework_or_default().feature_gates().trainjob_status &&
          options.serving.status_server_port != 0);
}

struct WebhookCertificates::Impl {
  kube::Client& client;
  ServingOptions config;
  WebhookCertificatesOptions options;
  std::string ns;
  std::vector<std::string> hosts;
  std::shared_ptr<serving::CertificateStore> store = std::make_shared<serving::CertificateStore>();

  std::mutex refresh_mutex;  // one refresh at a time
  std::string last_files;    // cert_dir: the contents last loaded

  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  kube::CancelToken cancel;  // stop() ends a request in flight

  kube::CallOptions call() const {
    kube::CallOptions call_options;
    call_options.cancel = cancel;
    return call_options;
  }
  kube::WriteOptions write() const {
    kube::WriteOptions write_options;
    write_options.cancel = cancel;
    return write_options;
  }
  std::thread thread;

  Impl(kube::Client& c, ServingOptions s, WebhookCertificatesOptions o)
      : client(c), config(std::move(s)), options(std::move(o)) {}

  serving::Clock::time_point now() const {
    return options.now ? options.now() : serving::Clock::now();
  }
  void log(const std::string& line) const {
    if (options.log) options.log(line);
  }
  std::string secret_name() const { return ns + "/" + config.webhook_secret_name; }

  Result<void> refresh_files();
  Result<void> refresh_secret();
  Result<serving::CertificateSet> ensure_secret();
  Result<void> inject_ca(const std::string& ca_pem, bool validating);
  Result<void> serve(const serving::CertificateSet& set);
  void loop();
};

Result<void> WebhookCertificates::Impl::refresh_files() {
  const std::string dir = config.cert_dir + "/";
  auto cert = read_file(dir + kTlsCert, kMaxPemFile);
  if (!cert) {
    return fail(ErrorCode::kIo, "--webhook-cert-dir: cannot read " + dir + kTlsCert);
  }
  auto key = read_file(dir + kTlsKey, kMaxPemFile);
  if (!key) return fail(ErrorCode::kIo, "--webhook-cert-dir: cannot read " + dir + kTlsKey);
  const std::string contents = *cert + '\0' + *key;
  if (contents == last_files) return {};
  if (auto info = serving::inspect_certificate(*cert, dir + kTlsCert); !info) {
    return tl::unexpected(std::move(info.error()));
  }
  if (auto set = store->set(*cert, *key); !set) {
    return fail(set.error().code,
                "--webhook-cert-dir " + config.cert_dir + ": " + set.error().message);
  }
  last_files = contents;
  log("loaded the serving certificate from " + dir + kTlsCert);
  return {};
}

// The Secret's certificates, valid for `hosts` until now + lookahead: read, created or
// regenerated. A write that loses to another replica's (409) reads the winner's.
Result<serving::CertificateSet> WebhookCertificates::Impl::ensure_secret() {
  const auto resource = secrets();
  const auto at = now();
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto secret = client.get(resource, ns, config.webhook_secret_name, call());
    if (!secret && secret.error().code != ErrorCode::kNotFound) {
      return tl::unexpected(std::move(secret.error()));
    }
    if (!secret) {
      auto set = serving::issue_certificates(hosts, at);
      if (!set) return tl::unexpected(std::move(set.error()));
      boost::json::object object = {
          {"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", config.webhook_secret_name}, {"namespace", ns}}},
          {"type", "Opaque"},
          {"data", encode_data(*set)}};
      auto created = client.create(resource, ns, object, write());
      if (created) {
        log("created Secret " + secret_name() + " with a new CA and serving certificate");
        return std::move(*set);
      }
      if (created.error().code != ErrorCode::kConflict) {
        return tl::unexpected(std::move(created.error()));
      }
      continue;  // another replica created it: read theirs
    }
    const std::string resource_version = nested_string(*secret, "metadata", "resourceVersion");
    auto current = decode_secret(*secret);
    const auto lookahead = at + serving::kCertLookahead;
    std::string why;
    serving::CertificateSet next;
    if (!current) {
      why = "it lacks ca.crt, ca.key, tls.crt or tls.key";
    } else if (auto ca = serving::verify_certificate("", current->ca.cert_pem, current->ca.key_pem,
                                                     {}, lookahead);
               !ca) {
      why = ca.error().message;
    } else if (auto cert =
                   serving::verify_certificate(current->ca.cert_pem, current->serving.cert_pem,
                                               current->serving.key_pem, hosts, lookahead);
               !cert) {
      why = cert.error().message;
      next.ca = current->ca;  // the CA stays valid: only the serving certificate is new
    } else {
      return std::move(*current);
    }
    if (next.ca.cert_pem.empty()) {
      auto ca = serving::issue_ca(serving::kCaName, serving::kCaOrganization, at);
      if (!ca) return tl::unexpected(std::move(ca.error()));
      next.ca = std::move(*ca);
    }
    auto issued = serving::issue_serving(next.ca, hosts, at);
    if (!issued) return tl::unexpected(std::move(issued.error()));
    next.serving = std::move(*issued);
    // The resourceVersion makes the patch conditional: a replica that wrote meanwhile wins.
    boost::json::object patch = {{"metadata", {{"resourceVersion", resource_version}}},
                                 {"data", encode_data(next)}};
    auto patched = client.patch(resource, ns, config.webhook_secret_name, kube::PatchType::kMerge,
                                boost::json::serialize(patch), write());
    if (patched) {
      log("regenerated the certificates of Secret " + secret_name() + ": " + why);
      return next;
    }
    if (patched.error().code != ErrorCode::kConflict &&
        patched.error().code != ErrorCode::kNotFound) {
      return tl::unexpected(std::move(patched.error()));
    }
  }
  return fail(ErrorCode::kConflict,
              "Secret " + secret_name() + ": changed by another writer three times in a row");
}

// Writes `ca_pem` into caBundle of every webhook of the configuration that lacks it. A missing
// configuration is no error: it is looked for again on the next refresh.
Result<void> WebhookCertificates::Impl::inject_ca(const std::string& ca_pem, bool validating) {
  const auto resource = webhook_configurations(validating);
  const std::string& name = validating ? options.validating_webhook_configuration_name
                                       : options.mutating_webhook_configuration_name;
  if (name.empty()) return {};
  auto object = client.get(resource, "", name, call());
  if (!object) {
    if (object.error().code == ErrorCode::kNotFound) return {};
    return tl::unexpected(std::move(object.error()));
  }
  const std::string bundle = base64_encode(ca_pem);
  const auto* webhooks = find_array(*object, "webhooks");
  if (webhooks == nullptr) return {};
  boost::json::array ops;
  ops.push_back({{"op", "test"},
                 {"path", "/metadata/resourceVersion"},
                 {"value", nested_string(*object, "metadata", "resourceVersion")}});
  for (std::size_t i = 0; i < webhooks->size(); ++i) {
    const auto* webhook = (*webhooks)[i].if_object();
    if (webhook == nullptr) continue;
    if (nested_string(*webhook, "clientConfig", "caBundle") == bundle) continue;
    if (find_object(*webhook, "clientConfig") == nullptr) continue;
    ops.push_back({{"op", "add"},
                   {"path", "/webhooks/" + std::to_string(i) + "/clientConfig/caBundle"},
                   {"value", bundle}});
  }
  if (ops.size() == 1) return {};
  auto patched = client.patch(resource, "", name, kube::PatchType::kJson,
                              boost::json::serialize(ops), write());
  if (!patched) return tl::unexpected(std::move(patched.error()));
  log("updated caBundle of " + resource.kind + " " + name + " (" + std::to_string(ops.size() - 1) +
      " webhooks)");
  return {};
}

Result<void> WebhookCertificates::Impl::serve(const serving::CertificateSet& set) {
  if (store->certificate_pem() == set.serving.cert_pem) return {};
  auto stored = store->set(set.serving.cert_pem, set.serving.key_pem);
  if (!stored) {
    return fail(stored.error().code, "Secret " + secret_name() + ": " + stored.error().message);
  }
  return {};
}

Result<void> WebhookCertificates::Impl::refresh_secret() {
  auto set = ensure_secret();
  if (!set) return tl::unexpected(std::move(set.error()));
  if (auto served = serve(*set); !served) return served;
  // Both configurations are tried even when the first fails; the first error is returned.
  auto validating = inject_ca(set->ca.cert_pem, true);
  auto mutating = inject_ca(set->ca.cert_pem, false);
  if (!validating) return validating;
  return mutating;
}

void WebhookCertificates::Impl::loop() {
  const auto interval = config.cert_dir.empty() ? options.refresh_interval : options.cert_dir_poll;
  std::unique_lock lock(mutex);
  while (!wake.wait_for(lock, interval, [this] { return stopping; })) {
    lock.unlock();
    std::lock_guard refresh_lock(refresh_mutex);
    auto result = config.cert_dir.empty() ? refresh_secret() : refresh_files();
    if (!result) log("refreshing the webhook certificates failed: " + result.error().message);
    lock.lock();
  }
}

Result<std::unique_ptr<WebhookCertificates>> WebhookCertificates::start(
    kube::Client& client, const ServingOptions& serving, WebhookCertificatesOptions options) {
  if (serving.cert_dir.empty()) {
    if (serving.webhook_secret_name.empty()) {
      return fail(ErrorCode::kInvalidArgument, "--webhook-secret-name must not be empty");
    }
    if (serving.webhook_service_name.empty()) {
      return fail(ErrorCode::kInvalidArgument, "--webhook-service-name must not be empty");
    }
  }
  if (options.refresh_interval <= std::chrono::milliseconds(0) ||
      options.cert_dir_poll <= std::chrono::milliseconds(0)) {
    return fail(ErrorCode::kInvalidArgument, "webhook certificates: intervals must be positive");
  }
  if (!options.log) options.log = serving.log;
  auto impl = std::make_unique<Impl>(client, serving, std::move(options));
  impl->ns = controller::operator_namespace(serving, impl->options.namespace_file);
  impl->hosts = serving_hosts(serving, impl->ns);
  for (const auto& host : impl->hosts) {
    if (host.empty() || host.find_first_of(", \t\r\n") != std::string::npos) {
      return fail(ErrorCode::kInvalidArgument,
                  "--webhook-cert-hosts: \"" + host + "\" is not a DNS name or IP address");
    }
  }
  std::unique_ptr<WebhookCertificates> certificates(new WebhookCertificates(std::move(impl)));
  if (auto first = certificates->refresh(); !first) return tl::unexpected(std::move(first.error()));
  Impl& running = *certificates->impl_;
  certificates->impl_->thread = std::thread([&running] { running.loop(); });
  return certificates;
}

WebhookCertificates::WebhookCertificates(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WebhookCertificates::~WebhookCertificates() {
  stop();
}

std::shared_ptr<serving::CertificateStore> WebhookCertificates::store() const {
  return impl_->store;
}

const std::string& WebhookCertificates::operator_namespace() const {
  return impl_->ns;
}

Result<void> WebhookCertificates::refresh() {
  std::lock_guard lock(impl_->refresh_mutex);
  return impl_->config.cert_dir.empty() ? impl_->refresh_secret() : impl_->refresh_files();
}

void WebhookCertificates::stop() noexcept {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->cancel.cancel();
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace trainer::controller
