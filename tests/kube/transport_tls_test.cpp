// SPDX-License-Identifier: Apache-2.0
//
// The transport's TLS against the real kube-apiserver of the test fixture: the configured CA,
// the system store (which does not know the test CA), tls-server-name through CONNECT_TO,
// insecure-skip-tls-verify and a client certificate.
#include "kube/client/auth.hpp"
#include "kube/client/transport.hpp"
#include "support/api_server.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

using trainer::ErrorCode;
using trainer::kube::CancelToken;
using trainer::kube::ClientOptions;
using trainer::kube::Config;
using trainer::kube::detail::Authenticator;
using trainer::kube::detail::Credentials;
using trainer::kube::detail::HttpRequest;
using trainer::kube::detail::Transport;
using trainer::testing::ApiServer;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The server with its CA and the admin token, as a kubeconfig would give them.
Config admin_config(ApiServer& server) {
  Config config;
  config.server = server.url();
  config.ca_file = server.ca_file();
  config.ca_pem = read_file(server.ca_file());
  config.token = server.token();
  return config;
}

// Presents a fixed client certificate and nothing else.
class CertAuthenticator final : public Authenticator {
 public:
  CertAuthenticator(std::string cert, std::string key) {
    credentials_.client_cert_pem = std::move(cert);
    credentials_.client_key_pem = std::move(key);
  }
  trainer::Result<Credentials> current(
      const CancelToken& /*cancel*/,
      std::optional<std::chrono::steady_clock::time_point> /*deadline*/) override {
    return credentials_;
  }
  bool invalidate(const Credentials& /*used*/) override { return false; }
  [[nodiscard]] std::string describe() const override { return "client certificate"; }

 private:
  Credentials credentials_;
};

HttpRequest get(std::string target) {
  HttpRequest request;
  request.target = std::move(target);
  request.idempotent = true;
  return request;
}

}  // namespace

TEST_CASE("GET /version over TLS with the configured CA and token", "[transport][tls]") {
  auto& server = ApiServer::shared();
  auto transport = Transport::create(admin_config(server), ClientOptions{});
  REQUIRE(transport.has_value());
  for (int i = 0; i < 2; ++i) {  // the second one on the kept connection
    auto response = (*transport)->send(get("/version"));
    REQUIRE(response.has_value());
    CHECK(response->status == 200);
    CHECK(response->http_version == 2);  // the API server offers HTTP/2 (ALPN h2)
    CHECK(response->body.find("\"gitVersion\"") != std::string::npos);
  }
  // The token is sent: listing namespaces needs it.
  auto response = (*transport)->send(get("/api/v1/namespaces?limit=1"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);
}

TEST_CASE("the system store does not trust the test CA: the error names store and server",
          "[transport][tls]") {
  auto& server = ApiServer::shared();
  Config config = admin_config(server);
  config.ca_pem.clear();
  config.ca_file.clear();
  auto transport = Transport::create(config, ClientOptions{});
  REQUIRE(transport.has_value());
  auto response = (*transport)->send(get("/version"));
  REQUIRE_FALSE(response.has_value());
  CHECK(response.error().code == ErrorCode::kIo);
  const std::string& message = response.error().message;
  INFO(message);
  CHECK(message.find("tls: failed to verify the certificate of " + server.url()) !=
        std::string::npos);
  CHECK(message.find("the system trust store") != std::string::npos);
}

TEST_CASE("tls-server-name: the certificate is checked against that name", "[transport][tls]") {
  auto& server = ApiServer::shared();
  Config config = admin_config(server);
  SECTION("a name in the certificate") {
    config.tls_server_name = "kubernetes.default";
    auto transport = Transport::create(config, ClientOptions{});
    REQUIRE(transport.has_value());
    auto response = (*transport)->send(get("/version"));
    REQUIRE(response.has_value());
    CHECK(response->status == 200);
  }
  SECTION("a name not in the certificate") {
    config.tls_server_name = "not-the-server.example";
    auto transport = Transport::create(config, ClientOptions{});
    REQUIRE(transport.has_value());
    auto response = (*transport)->send(get("/version"));
    REQUIRE_FALSE(response.has_value());
    CHECK(response.error().code == ErrorCode::kIo);
    INFO(response.error().message);
    CHECK(response.error().message.find("the CA file " + server.ca_file()) != std::string::npos);
  }
}

TEST_CASE("insecure-skip-tls-verify connects without a CA", "[transport][tls]") {
  auto& server = ApiServer::shared();
  Config config = admin_config(server);
  config.ca_pem.clear();
  config.ca_file.clear();
  config.insecure_skip_tls_verify = true;
  auto transport = Transport::create(config, ClientOptions{});
  REQUIRE(transport.has_value());
  auto response = (*transport)->send(get("/api/v1/namespaces?limit=1"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);  // and the token was still sent
}

TEST_CASE("a client certificate identifies the user", "[transport][tls]") {
  auto& server = ApiServer::shared();
  const auto [cert_file, key_file] = server.issue_client_cert("jane", {"devs"});
  Config config = admin_config(server);
  config.token.clear();
  auto transport = Transport::create(
      config, ClientOptions{},
      std::make_shared<CertAuthenticator>(read_file(cert_file), read_file(key_file)));
  REQUIRE(transport.has_value());
  auto response = (*transport)->send(get("/api/v1/namespaces"));
  REQUIRE(response.has_value());
  // Authenticated as jane (not anonymous), who may not list namespaces.
  CHECK(response->status == 403);
  CHECK(response->body.find("User \\\"jane\\\"") != std::string::npos);
}

TEST_CASE("an answer over 128 KiB comes gzipped and is decoded", "[transport][tls]") {
  auto& server = ApiServer::shared();
  const std::string ns = trainer::testing::unique_namespace(server, "gzip");
  auto transport = Transport::create(admin_config(server), ClientOptions{});
  REQUIRE(transport.has_value());
  // 24 ConfigMaps of 8 KiB each: the list is about 200 KiB, over the server's gzip threshold.
  const std::string data(8192, 'x');
  for (int i = 0; i < 24; ++i) {
    HttpRequest create;
    create.method = "POST";
    create.target = "/api/v1/namespaces/" + ns + "/configmaps";
    create.headers.emplace_back("Content-Type", "application/json");
    create.body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-)" +
                  std::to_string(i) + R"("},"data":{"blob":")" + data + "\"}}";
    auto created = (*transport)->send(create);
    REQUIRE(created.has_value());
    REQUIRE(created->status == 201);
  }
  auto response = (*transport)->send(get("/api/v1/namespaces/" + ns + "/configmaps"));
  REQUIRE(response.has_value());
  CHECK(response->status == 200);
  const std::string* encoding = response->header("content-encoding");
  REQUIRE(encoding != nullptr);
  CHECK(*encoding == "gzip");
  // The body is the decoded JSON: every ConfigMap with its data.
  CHECK(response->body.size() > 24 * data.size());
  CHECK(response->body.find("\"name\":\"cm-23\"") != std::string::npos);
}
