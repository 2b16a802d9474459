// SPDX-License-Identifier: Apache-2.0
//
// Credentials of one client as client-go applies them: a static token, a token file re-read
// about once a minute, a client certificate (files or data), or an exec credential plugin whose
// output is cached until its expirationTimestamp and shared by every request of the client
// (one plugin run at a time). An exec plugin is skipped when the user also has a token or a
// client certificate.
#pragma once

#include "trainer/kube.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace trainer::kube::detail {

/// What one request carries.
struct Credentials {
  std::string bearer_token;     ///< empty: none
  std::string client_cert_pem;  ///< empty: none (with client_key_pem)
  std::string client_key_pem;
  /// Identifies this credential set, so a 401 refreshes only if nobody refreshed meanwhile.
  std::uint64_t generation = 0;
};

class Authenticator {
 public:
  static Result<std::unique_ptr<Authenticator>> create(const Config& config,
                                                       const ClientOptions& options);
  virtual ~Authenticator() = default;
  /// The credentials for the next request (runs the exec plugin when none are cached or they
  /// expired; kUnauthorized with the plugin's error when it fails, e.g.
  /// `getting credentials: exec: executable x not found`). `deadline`: the request's, which
  /// bounds a plugin run as ClientOptions::exec_timeout does (kTimeout when it ends the run).
  virtual Result<Credentials> current(
      const CancelToken& cancel,
      std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt) = 0;
  /// The server answered 401 to `used`: drop them (exec output, token-file cache) so the next
  /// `current()` obtains new ones. Returns true when a refresh can give different credentials
  /// (exec plugin or token file), i.e. when retrying the request once makes sense.
  virtual bool invalidate(const Credentials& used) = 0;
  /// For 401/403/TLS messages: `user "admin" of context "local" (bearer token)`, never secrets.
  [[nodiscard]] virtual std::string describe() const = 0;
};

}  // namespace trainer::kube::detail
