// SPDX-License-Identifier: Apache-2.0
//
// The TrainJobStatus progress endpoint of local runs (KEP-2779, feature gate `TrainJobStatus`):
// the contract the controller serves on a cluster, on loopback. Training code in a pod posts
// `{"trainerStatus": {...}}` to `KUBEFLOW_TRAINER_SERVER_URL` with the token in
// `KUBEFLOW_TRAINER_SERVER_TOKEN`, verifying the server with `KUBEFLOW_TRAINER_SERVER_CA_CERT`
// (the Kubeflow SDK's `update_trainjob_status()` does exactly that), and the run's status gets
// the values as its `trainerStatus`. See docs/local.md, "Progress".
//
//   auto server = trainer::local::ProgressServer::start({});       // a CA of its own, a free port
//   trainer::RenderContext ctx = trainer::system_render_context();
//   const trainer::Framework framework =                            // the URL's port, the CA
//       (*server)->configure(ctx, trainer::default_framework({/*trainjob_status=*/true}));
//   ... render with ctx and framework ...
//   options.progress_server = *server;                              // tokens, and where posts go
//   auto run = trainer::local::Executor::start(objects, options);
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/render.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace trainer::local {

struct ProgressServerOptions {
  /// Where it listens. Pods share the host's network, so loopback reaches every pod.
  std::string bind_address = "127.0.0.1";
  /// 0: a free port (`port()` tells which).
  std::uint16_t port = 0;
  /// The names the rendered pods use: the URL's host is `<webhook_service_name>.
  /// <operator_namespace>.svc` and the CA comes from Secret `webhook_secret_name` there, as on a
  /// cluster (upstream's defaults). `status_server_port` is ignored: the URL gets `port()`.
  OperatorConfig config;
};

/// One HTTPS server for any number of local runs (a tuning run's trials share one). Its CA and
/// serving certificate are made at `start` and live only in memory and in the runs' pods; its
/// tokens are per pod attempt and end with it. Thread-safe; shared by the runs that use it
/// (`ExecutorOptions::progress_server`), it stops when the last owner lets it go.
class ProgressServer {
 public:
  /// Issues the CA and the serving certificate (for the service names and 127.0.0.1), binds and
  /// starts serving. Errors: kInvalidArgument (bind address), kIo (the port is taken),
  /// kInternal (OpenSSL).
  [[nodiscard]] static Result<std::shared_ptr<ProgressServer>> start(
      ProgressServerOptions options = {});

  /// The bound port.
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// The CA certificate (PEM) pods verify the server with.
  [[nodiscard]] const std::string& ca_cert_pem() const noexcept;
  /// The host name in the pods' URL: `<service>.<namespace>.svc`. A run resolves it (and its
  /// `.cluster.local` form) to 127.0.0.1 in every pod.
  [[nodiscard]] std::string service_host() const;

  /// Makes a render for this server: the returned Framework is `framework`'s plugins bound to
  /// the options' config with `status_server_port = port()`, and `ctx.lookup` answers the webhook
  /// Secret (its `ca.crt`, the run CA), asking the previous lookup for anything else. The
  /// TrainJobStatus plugin then renders the env, the projected token volume and
  /// `<job>-tls-config` as on a cluster.
  [[nodiscard]] Framework configure(RenderContext& ctx, const Framework& framework) const;

  ProgressServer(const ProgressServer&) = delete;
  ProgressServer& operator=(const ProgressServer&) = delete;
  ~ProgressServer();

  class Impl;
  /// libtrainer's executor: token issue and revocation, where a TrainJob's posts go.
  [[nodiscard]] Impl& impl() const noexcept { return *impl_; }

 private:
  explicit ProgressServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::local
