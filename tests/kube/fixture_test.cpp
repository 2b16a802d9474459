// SPDX-License-Identifier: Apache-2.0
// The test API server itself: the shared one answers, a private one restarts on its data and
// compacts etcd (what the watch and pagination tests rely on).
#include "support/api_server.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {

using trainer::testing::ApiServer;
using trainer::testing::run_or_die;

std::string curl_admin(ApiServer& server, const std::string& path) {
  return run_or_die("curl -sf --max-time 20 --cacert '" + server.ca_file() +
                    "' -H 'Authorization: Bearer " + server.token() + "' '" + server.url() + path +
                    "'");
}

}  // namespace

TEST_CASE("the shared API server serves the Trainer CRDs") {
  auto& server = ApiServer::shared();
  const auto body = curl_admin(server, "/apis/trainer.kubeflow.org/v1alpha1");
  CHECK(body.find("\"trainjobs\"") != std::string::npos);
  const auto ns = trainer::testing::unique_namespace(server, "fixture");
  CHECK(curl_admin(server, "/api/v1/namespaces/" + ns).find(ns) != std::string::npos);
}

TEST_CASE("a private API server keeps its data across a restart and compacts") {
  auto server = ApiServer::start_private("--watch-cache=false");
  const auto ns = trainer::testing::unique_namespace(*server, "restart");
  server->stop();
  server->restart();
  CHECK(curl_admin(*server, "/api/v1/namespaces/" + ns).find(ns) != std::string::npos);
  server->compact();
  // A watch from a compacted version answers 410 Expired inside the stream.
  const auto events =
      curl_admin(*server, "/api/v1/namespaces?watch=1&resourceVersion=2&timeoutSeconds=2");
  CHECK(events.find("\"code\":410") != std::string::npos);
}
