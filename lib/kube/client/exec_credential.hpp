// SPDX-License-Identifier: Apache-2.0
//
// The `client.authentication.k8s.io` ExecCredential exchange of client-go's exec plugin
// authenticator: KUBERNETES_EXEC_INFO in, the plugin's stdout checked and decoded out, with
// client-go's messages. Caching and locking are the authenticator's (auth.cpp).
#pragma once

#include "trainer/kube.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::kube::detail {

struct ExecCredential {
  std::string token;
  std::string client_cert_pem;  ///< plain PEM (not base64, unlike kubeconfig `*-data`)
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiry;
};

/// KUBERNETES_EXEC_INFO for `config.exec`, field order as client-go encodes it; `spec.cluster`
/// only with provideClusterInfo (CA file contents inlined as base64).
[[nodiscard]] std::string exec_info_json(const Config& config, bool interactive);

/// Checks and decodes a plugin's stdout against the configured apiVersion.
[[nodiscard]] Result<ExecCredential> parse_exec_credential(std::string_view text,
                                                           const std::string& api_version);

/// Runs `config.exec` once. Errors have client-go's text without the `getting credentials: `
/// prefix (`exec: executable x not found ...`, `exec: executable x failed with exit code 1`);
/// codes kTimeout (after `timeout`, the process killed), kCancelled, else kUnauthorized.
[[nodiscard]] Result<ExecCredential> run_exec_plugin(const Config& config,
                                                     std::chrono::milliseconds timeout,
                                                     const CancelToken& cancel);

}  // namespace trainer::kube::detail
