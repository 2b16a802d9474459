// SPDX-License-Identifier: Apache-2.0
//
// In-cluster configuration as client-go's rest.InClusterConfig: the service account's token
// (kept as a file so the authenticator re-reads it: the kubelet rotates it), its CA and
// namespace, and the API server from KUBERNETES_SERVICE_HOST/PORT.
#include "kube/client/config_files.hpp"
#include "trainer/kube.hpp"

namespace trainer::kube {

Result<Config> in_cluster_config(const LoadOptions& options) {
  const std::string host = detail::env_or(options.service_host, "KUBERNETES_SERVICE_HOST");
  const std::string port = detail::env_or(options.service_port, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return fail(ErrorCode::kNotFound,
                "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
                "KUBERNETES_SERVICE_PORT must be defined");
  }
  const std::string& dir = options.service_account_dir;
  Config config;
  config.source = "in-cluster";
  // net.JoinHostPort: an IPv6 address goes in brackets.
  config.server = host.find(':') != std::string::npos && host.front() != '['
                      ? "https://[" + host + "]:" + port
                      : "https://" + host + ":" + port;
  config.token_file = detail::resolve_against(dir, "token");
  auto token = detail::read_file(config.token_file);
  if (!token) return tl::unexpected(token.error());
  config.token = detail::trim_space(*token);

  // client-go logs an unreadable CA and goes on with the system's roots; so do we, visibly.
  const std::string ca_file = detail::resolve_against(dir, "ca.crt");
  if (auto ca = detail::read_file(ca_file); ca) {
    config.ca_pem = std::move(*ca);
    config.ca_file = ca_file;
  } else {
    config.warnings.push_back("expected to load root CA config from " + ca_file +
                              ", but got err: " + ca.error().message);
  }

  if (!options.namespace_.empty()) {
    config.namespace_ = options.namespace_;
  } else if (auto pod_ns = detail::env_or(options.pod_namespace, "POD_NAMESPACE");
             !pod_ns.empty()) {
    config.namespace_ = pod_ns;
  } else if (auto ns = detail::read_file(detail::resolve_against(dir, "namespace"));
             ns && !detail::trim_space(*ns).empty()) {
    config.namespace_ = detail::trim_space(*ns);
  }
  return config;
}

}  // namespace trainer::kube
