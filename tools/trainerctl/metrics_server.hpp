// SPDX-License-Identifier: Apache-2.0
// `trainerctl controller --metrics-addr`: the Prometheus text of the controller over plain HTTP on
// a loopback address (GET /metrics; every other path is 404), served by lib/serving's
// HttpsServer (plain HTTP, one thread); every connection is bounded in time and size, so a
// client that stalls cannot hold it.
#pragma once

#include "trainer/error.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace trainerctl {

struct MetricsServerOptions {
  /// `HOST:PORT` (`[::1]:PORT` for IPv6); HOST must be a loopback address, PORT may be 0 (any).
  std::string address;
  /// The body of GET /metrics, called on the server's thread.
  std::function<std::string()> metrics;
  /// Bound on reading a request and on writing its answer.
  std::chrono::milliseconds io_timeout{std::chrono::seconds(5)};
  /// More connections at once are closed without an answer.
  int max_connections = 32;
};

class MetricsServer {
 public:
  /// Binds and starts serving. Errors: kInvalidArgument (not HOST:PORT, not a loopback
  /// address), kIo (the address cannot be bound).
  [[nodiscard]] static trainer::Result<std::unique_ptr<MetricsServer>> start(
      MetricsServerOptions options);
  ~MetricsServer();  ///< stops serving and joins the thread
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// The bound port (the chosen one when the address asked for 0).
  [[nodiscard]] std::uint16_t port() const;

  struct Impl;

 private:
  explicit MetricsServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Splits `HOST:PORT` and checks that HOST is a loopback address; the error text when not.
[[nodiscard]] trainer::Result<std::pair<std::string, std::uint16_t>> parse_loopback_address(
    const std::string& address);

}  // namespace trainerctl
