// SPDX-License-Identifier: Apache-2.0
#include "api/status_carrier.hpp"
#include "local/progress_registry.hpp"

#include "trainer/base64.hpp"

#include "trainer/codec.hpp"
#include "trainer/collectives.hpp"
#include "trainer/validation.hpp"

#include <boost/json/array.hpp>

#include <utility>

namespace trainer::local {
namespace {

namespace json = boost::json;
using serving::ProgressOutcome;
using serving::ProgressResult;

std::string service_host_of(const OperatorConfig& config) {
  return config.webhook_service_name + "." + config.operator_namespace + ".svc";
}

// What the API server would answer a status write of `trainer_status` that breaks the CRD's
// rules (its message, as the cluster's progress server passes it on with 422); empty when valid.
std::string invalid_status_message(const std::string& name, const json::object& trainer_status) {
  auto decoded = trainer::detail::decode_train_job_status(
      name, json::object{{"trainerStatus", trainer_status}});
  if (!decoded)
    return "TrainJob.trainer.kubeflow.org \"" + name + "\" is invalid: " + decoded.error().message;
  std::vector<FieldError> errors;
  for (auto& e : validate_train_job(decoded->object).errors) {
    if (e.path.rfind("status.trainerStatus", 0) == 0) errors.push_back(std::move(e));
  }
  if (errors.empty()) return {};
  return "TrainJob.trainer.kubeflow.org \"" + name +
         "\" is invalid: " + Error::invalid(std::move(errors)).message;
}

}  // namespace

ProgressServer::Impl::Impl(ProgressServerOptions options_in, serving::CertificateSet certs)
    : options(std::move(options_in)), certificates(std::move(certs)) {}

Result<std::string> ProgressServer::Impl::issue_token(const std::string& audience,
                                                      const std::string& run_dir,
                                                      const std::string& pod,
                                                      std::chrono::seconds lifetime) {
  // 32 bytes of the kernel's random generator, as hex (the run's secrets all come from it).
  auto secret = collectives::new_rendezvous_secret();
  if (!secret) return tl::unexpected(std::move(secret.error()));
  std::string token = "trainer-local." + *secret;
  std::lock_guard<std::mutex> lock(mu_);
  tokens_[token] = Token{audience, run_dir, pod, std::chrono::steady_clock::now() + lifetime};
  return token;
}

void ProgressServer::Impl::revoke(const std::string& run_dir, const std::string& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    const bool ended = it->second.run_dir == run_dir && (pod.empty() || it->second.pod == pod);
    it = ended ? tokens_.erase(it) : std::next(it);
  }
}

Result<void> ProgressServer::Impl::attach(const std::string& ns, const std::string& name,
                                          Sink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!jobs_.emplace(std::make_pair(ns, name), std::move(sink)).second) {
    return fail(ErrorCode::kConflict,
                "the progress server already serves a run of TrainJob " + ns + "/" + name);
  }
  return {};
}

void ProgressServer::Impl::detach(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.erase(std::make_pair(ns, name));
}

// As the cluster's backend answers: no token, an unknown, expired or ended one, or one whose
// audience is another TrainJob's, is Forbidden.
ProgressResult ProgressServer::Impl::authenticate(const std::string& token, const std::string& ns,
                                                  const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto found = tokens_.find(token);
  if (token.empty() || found == tokens_.end() ||
      found->second.expires <= std::chrono::steady_clock::now() ||
      found->second.audience != serving::progress_audience(ns, name)) {
    return {ProgressOutcome::kForbidden, {}};
  }
  return {ProgressOutcome::kOk, {}};
}

ProgressResult ProgressServer::Impl::apply(const std::string& ns, const std::string& name,
                                           const json::object& trainer_status) const {
  if (auto message = invalid_status_message(name, trainer_status); !message.empty()) {
    return {ProgressOutcome::kInvalid, std::move(message)};
  }
  // Under the lock, so that a run's `detach` waits for a post in flight to its sink.
  std::lock_guard<std::mutex> lock(mu_);
  const auto job = jobs_.find(std::make_pair(ns, name));
  if (job == jobs_.end()) return {ProgressOutcome::kNotFound, {}};
  job->second(trainer_status);
  return {ProgressOutcome::kOk, {}};
}

Result<std::shared_ptr<ProgressServer>> ProgressServer::start(ProgressServerOptions options) {
  const std::string host = service_host_of(options.config);
  auto certificates = serving::issue_certificates(
      {host, host + ".cluster.local", "127.0.0.1", "localhost"}, serving::Clock::now());
  if (!certificates) return tl::unexpected(std::move(certificates.error()));
  auto impl = std::make_unique<Impl>(std::move(options), std::move(*certificates));
  auto store = std::make_shared<serving::CertificateStore>();
  if (auto set =
          store->set(impl->certificates.serving.cert_pem, impl->certificates.serving.key_pem);
      !set) {
    return tl::unexpected(std::move(set.error()));
  }
  Impl* backend = impl.get();  // outlives the server, which it owns and stops first
  serving::ProgressBackend routes_backend;
  routes_backend.authenticate = [backend](const std::string& token, const std::string& ns,
                                          const std::string& name) {
    return backend->authenticate(token, ns, name);
  };
  routes_backend.apply = [backend](const std::string& ns, const std::string& name,
                                   const json::object& trainer_status) {
    return backend->apply(ns, name, trainer_status);
  };
  serving::ServerOptions server;
  server.name = "progress server";
  server.bind_address = impl->options.bind_address;
  server.port = impl->options.port;
  server.certificates = std::move(store);
  server.routes = serving::progress_routes(routes_backend);
  server.fallback = serving::progress_not_found;
  auto started = serving::HttpsServer::start(std::move(server));
  if (!started) {
    return fail(started.error().code, "progress server: " + started.error().message);
  }
  impl->server = std::move(*started);
  return std::shared_ptr<ProgressServer>(new ProgressServer(std::move(impl)));
}

ProgressServer::ProgressServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ProgressServer::~ProgressServer() {
  // Stopped before the token and TrainJob maps it reads go.
  if (impl_ && impl_->server) {
    impl_->server->stop();
    impl_->server.reset();
  }
}

std::uint16_t ProgressServer::port() const noexcept {
  return impl_->server->port();
}

const std::string& ProgressServer::ca_cert_pem() const noexcept {
  return impl_->certificates.ca.cert_pem;
}

std::string ProgressServer::service_host() const {
  return service_host_of(impl_->options.config);
}

Framework ProgressServer::configure(RenderContext& ctx, const Framework& framework) const {
  OperatorConfig config = impl_->options.config;
  config.status_server_port = port();
  const std::string ns = config.operator_namespace;
  const std::string secret_name = config.webhook_secret_name;
  // The Secret the TrainJobStatus plugin reads the CA from, as the certificate manager keeps it
  // on a cluster (only `ca.crt`: the keys stay in this process).
  json::value secret =
      json::object{{"apiVersion", "v1"},
                   {"kind", "Secret"},
                   {"metadata", json::object{{"name", secret_name}, {"namespace", ns}}},
                   {"data", json::object{{"ca.crt", trainer::base64_encode(ca_cert_pem())}}}};
  ctx.lookup = [previous = std::move(ctx.lookup), secret = std::move(secret), ns, secret_name](
                   std::string_view api_version, std::string_view kind, std::string_view in,
                   std::string_view name) -> std::optional<json::value> {
    if (api_version == "v1" && kind == "Secret" && in == ns && name == secret_name) return secret;
    if (previous) return previous(api_version, kind, in, name);
    return std::nullopt;
  };
  return framework.with_config(std::move(config));
}

}  // namespace trainer::local
