// SPDX-License-Identifier: Apache-2.0
//
// What the API server says it served: `apiserver_request_total` of its /metrics, summed by verb
// over the requests for resources (not /metrics, /healthz or discovery) of clients other than the
// API server's own loopback ones (`system_client` empty). Counted at the end of each request, so
// a watch shows when it ends. The server's count needs nothing from the client it measures: the
// same figure for this build's controller and for any other build's trainerctl.
#pragma once

#include "trainer/kube.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace bench {

/// Served requests by verb (`GET`, `LIST`, `WATCH`, `APPLY`, `PATCH`, `POST`, ...).
struct ServerRequests {
  std::map<std::string, std::uint64_t> by_verb;
  [[nodiscard]] std::uint64_t total() const;
  /// `*this - before`, verb by verb.
  [[nodiscard]] ServerRequests since(const ServerRequests& before) const;
  /// `APPLY 3000, PATCH 1000, ...`, largest first.
  [[nodiscard]] std::string text() const;
};

/// Parses the Prometheus text of the API server's /metrics.
[[nodiscard]] ServerRequests parse_server_requests(std::string_view metrics_text);

/// GET /metrics through `client` (one request, not counted: it is no resource request).
[[nodiscard]] ServerRequests server_requests(trainer::kube::Client& client);

}  // namespace bench
