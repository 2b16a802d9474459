// SPDX-License-Identifier: Apache-2.0
//
// The client every API-server test makes: the server's admin kubeconfig, no rate limit and
// bounded waits, and the resources the test needs. Failures throw std::runtime_error (a test
// reports it with its message; the benchmarks exit with it).
#pragma once

#include "support/api_server.hpp"
#include "trainer/kube.hpp"

#include <string>

namespace trainer::testing {

/// No rate limit; 30 s a request, 5 s to connect, 20 s of silence on a stream.
[[nodiscard]] kube::ClientOptions test_client_options();

/// The admin config of `server` (its kubeconfig); `server_url`, when given, replaces the
/// server's address (a proxy in front of it).
[[nodiscard]] kube::Config admin_config(ApiServer& server, const std::string& server_url = "");

/// A client of `server` as admin.
[[nodiscard]] kube::Client client_for(ApiServer& server,
                                      const kube::ClientOptions& options = test_client_options(),
                                      const std::string& server_url = "");

/// The resource of `kind`, which must be served.
[[nodiscard]] kube::Resource need(kube::Client& client, const char* api_version, const char* kind);

}  // namespace trainer::testing
