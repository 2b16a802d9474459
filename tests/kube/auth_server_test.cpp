// SPDX-License-Identifier: Apache-2.0
//
// Credentials against a real kube-apiserver (support/api_server.hpp): the admin kubeconfig's
// bearer token, a client certificate signed by the server's CA, exec plugins whose token
// expires or is wrong at first, in-cluster files, a wrong CA, and a user without rights.
#include "support/api_server.hpp"
#include "temp_dir.hpp"
#include "trainer/kube.hpp"

#include <catch2/catch.hpp>

#include <thread>

using trainer::ErrorCode;
using trainer::kube::Client;
using trainer::kube::Config;
using trainer::kube::LoadOptions;
using trainer::testing::ApiServer;
using trainer::testing::read_text;
using trainer::testing::TempDir;

namespace {

// Options that read nothing of the real environment.
LoadOptions isolated(const TempDir& dir) {
  LoadOptions o;
  o.kubeconfig_env = "";
  o.home = dir / "home";
  o.service_host = "";
  o.service_port = "";
  o.pod_namespace = "";
  o.service_account_dir = dir / "no-sa";
  return o;
}

// GET of the namespace `ns` with `config`: the object's name, or the error.
trainer::Result<std::string> get_namespace(const Config& config, const std::string& ns) {
  auto client = Client::create(config);
  if (!client) return tl::unexpected(client.error());
  trainer::kube::RawRequest request;
  request.path = "/api/v1/namespaces/" + ns;
  auto response = client->raw(request);
  if (!response) return tl::unexpected(response.error());
  return response->body;
}

// A kubeconfig for the test server with `user_yaml` as the user (CA from the server's file).
std::string kubeconfig(TempDir& dir, ApiServer& server, const std::string& user_yaml) {
  return dir.write("config",
                   "current-context: t\nclusters:\n- name: test\n  cluster:\n"
                   "    server: " +
                       server.url() + "\n    certificate-authority: " + server.ca_file() +
                       "\nusers:\n- name: u\n  user:\n" + user_yaml +
                       "contexts:\n- name: t\n  context: {cluster: test, user: u}\n");
}

trainer::Result<Config> load(TempDir& dir, const std::string& file) {
  auto o = isolated(dir);
  o.kubeconfig = file;
  return trainer::kube::load_config(o);
}

std::size_t runs(const TempDir& dir) {
  const std::string text = read_text(dir / "runs");
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string credential_json(const std::string& token_expr, const std::string& extra = "") {
  return "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
         "\"ExecCredential\",\"status\":{\"token\":\"%s\"" +
         extra + "}}' \"" + token_expr + "\"\n";
}

}  // namespace

TEST_CASE("the server's kubeconfig: a bearer token", "[kube][auth]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "auth-token");
  TempDir dir;
  auto config = load(dir, server.kubeconfig());
  REQUIRE(config);
  CHECK_FALSE(config->token.empty());
  auto got = get_namespace(*config, ns);
  REQUIRE(got);
  CHECK(got->find("\"name\":\"" + ns + "\"") != std::string::npos);
}

TEST_CASE("a client certificate signed by the server's CA", "[kube][auth]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "auth-cert");
  TempDir dir;
  const auto [cert, key] = server.issue_client_cert("cert-admin", {"system:masters"});
  auto config =
      load(dir, kubeconfig(dir, server,
                           "    client-certificate: " + cert + "\n    client-key: " + key + "\n"));
  REQUIRE(config);
  CHECK(config->token.empty());
  auto got = get_namespace(*config, ns);
  REQUIRE(got);
  CHECK(got->find("\"name\":\"" + ns + "\"") != std::string::npos);
}

TEST_CASE("an exec plugin's token is used until it expires", "[kube][auth]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "auth-exec");
  TempDir dir;
  dir.write("admin-token", server.token());
  dir.script("cred", "echo run >> '" + (dir / "runs") + "'\n" +
                         "exp=$(date -u -d \"@$(( $(date +%s) + 1 ))\" +%Y-%m-%dT%H:%M:%SZ)\n" +
                         credential_json("$(cat '" + (dir / "admin-token") + "')",
                                         ",\"expirationTimestamp\":\"'\"$exp\"'\""));
  auto config =
      load(dir, kubeconfig(dir, server,
                           "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: ./cred\n      interactiveMode: Never\n"));
  REQUIRE(config);
  auto client = Client::create(*config);
  REQUIRE(client);
  trainer::kube::RawRequest request;
  request.path = "/api/v1/namespaces/" + ns;
  REQUIRE(client->raw(request));
  REQUIRE(client->raw(request));
  const auto first_runs = runs(dir);
  CHECK(first_runs >= 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));
  REQUIRE(client->raw(request));
  CHECK(runs(dir) > first_runs);
}

TEST_CASE("a 401 runs the exec plugin again and the request succeeds", "[kube][auth]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "auth-401");
  TempDir dir;
  dir.write("admin-token", server.token());
  // The first run hands out a token the server does not know.
  dir.script("cred", "echo run >> '" + (dir / "runs") + "'\n" + "if [ \"$(wc -l < '" +
                         (dir / "runs") + "')\" -eq 1 ]; then\n  " +
                         credential_json("wrong-token") + "else\n  " +
                         credential_json("$(cat '" + (dir / "admin-token") + "')") + "fi\n");
  auto config =
      load(dir, kubeconfig(dir, server,
                           "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: ./cred\n      interactiveMode: Never\n"));
  REQUIRE(config);
  auto got = get_namespace(*config, ns);
  REQUIRE(got);
  CHECK(got->find("\"name\":\"" + ns + "\"") != std::string::npos);
  CHECK(runs(dir) == 2);
}

TEST_CASE("in-cluster files", "[kube][auth]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "auth-incluster");
  TempDir dir;
  dir.write("sa/token", server.token() + "\n");
  dir.write("sa/ca.crt", read_text(server.ca_file()));
  dir.write("sa/namespace", ns + "\n");
  // https://127.0.0.1:<port>
  const std::string url = server.url();
  const auto colon = url.rfind(':');
  auto o = isolated(dir);
  o.service_host = url.substr(8, colon - 8);
  o.service_port = url.substr(colon + 1);
  o.service_account_dir = dir / "sa";
  auto config = trainer::kube::load_config(o);  // no kubeconfig anywhere: in-cluster
  REQUIRE(config);
  CHECK(config->source == "in-cluster");
  CHECK(config->namespace_ == ns);
  auto got = get_namespace(*config, ns);
  REQUIRE(got);
  CHECK(got->find("\"name\":\"" + ns + "\"") != std::string::npos);
}

TEST_CASE("a server certificate from another CA is refused, naming the CA", "[kube][auth]") {
  auto& server = ApiServer::shared();
  TempDir dir;
  trainer::testing::run_or_die(
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other-ca -keyout '" +
      (dir / "other.key") + "' -out '" + (dir / "other.crt") + "' >/dev/null 2>&1");
  auto config = load(dir, server.kubeconfig());
  REQUIRE(config);
  config->ca_pem = read_text(dir / "other.crt");
  config->ca_file = dir / "other.crt";
  auto got = get_namespace(*config, "default");
  REQUIRE_FALSE(got);
  CHECK(got.error().code == ErrorCode::kIo);
  CHECK(got.error().message.find(dir / "other.crt") != std::string::npos);
}

TEST_CASE("a user without rights gets kubectl's 403", "[kube][auth]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "auth-403");
  TempDir dir;
  const auto [cert, key] = server.issue_client_cert("nobody");
  auto config =
      load(dir, kubeconfig(dir, server,
                           "    client-certificate: " + cert + "\n    client-key: " + key + "\n"));
  REQUIRE(config);
  auto client = Client::create(*config);
  REQUIRE(client);
  trainer::kube::RawRequest request;
  request.path = "/api/v1/namespaces/" + ns + "/pods";
  auto r = client->raw(request);
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kForbidden);
  CHECK(r.error().http_status == 403);
  CHECK(r.error().message.rfind("pods is forbidden: User \"nobody\" cannot list resource "
                                "\"pods\" in API group \"\" in the namespace \"" +
                                    ns + "\"",
                                0) == 0);
}
