// SPDX-License-Identifier: Apache-2.0
//
// Where and how the transport reaches the API server: the URL every request starts with, the
// TCP destination when `tls-server-name` differs from the host (CURLOPT_CONNECT_TO, as the
// reference's section 1.7 maps it), and names of the server and its trust for messages.
#pragma once

#include "trainer/kube.hpp"

#include <string>

namespace trainer::kube::detail {

struct Endpoint {
  /// `scheme://host:port[/prefix]` without a trailing slash; the host is the TLS server name
  /// when one is configured. Request targets are appended to it.
  std::string base_url;
  /// `tls-name:port:real-host:real-port` for CURLOPT_CONNECT_TO, empty when not needed.
  std::string connect_to;
  /// `https://host:port` (Transport::server()).
  std::string server;
  /// `host:port` as kubectl names the server in connection errors.
  std::string host_port;
  bool tls = false;
  /// Which trust anchors verify the server: `the CA file /x/ca.crt`,
  /// `the CA from certificate-authority-data` or `the system trust store`.
  std::string trust;
};

/// Parses `config.server` (http or https, host, optional port and path prefix) and checks that
/// `config.ca_pem` holds at least one PEM certificate; kInvalidArgument otherwise.
[[nodiscard]] Result<Endpoint> make_endpoint(const Config& config);

}  // namespace trainer::kube::detail
