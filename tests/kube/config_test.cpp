// SPDX-License-Identifier: Apache-2.0
//
// kubeconfig loading and in-cluster configuration (lib/kube/client/kubeconfig*.cpp,
// in_cluster.cpp) against kubectl's rules and wording; no server needed.
#include "temp_dir.hpp"
#include "trainer/kube.hpp"

#include <catch2/catch.hpp>

using trainer::ErrorCode;
using trainer::kube::Config;
using trainer::kube::LoadOptions;
using trainer::testing::read_text;
using trainer::testing::TempDir;

namespace {

// Options that never read the real environment or home folder.
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

// base64 of "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"
const char* kCaPem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const char* kCaData =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

std::string simple(const std::string& cluster_body, const std::string& user_body,
                   const std::string& context_extra = "") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: ctx\nclusters:\n- name: c\n  cluster:\n" +
         cluster_body + "users:\n- name: u\n  user:\n" + user_body +
         "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n" + context_extra;
}

trainer::Result<Config> load_text(TempDir& dir, const std::string& text) {
  auto o = isolated(dir);
  o.kubeconfig = dir.write("config", text);
  return trainer::kube::load_config(o);
}

std::string error_of(const trainer::Result<Config>& r) {
  REQUIRE_FALSE(r.has_value());
  return r.error().message;
}

}  // namespace

TEST_CASE("KUBECONFIG files merge first-wins, whole entries by name", "[kube][config]") {
  TempDir dir;
  const auto a = dir.write("a/config", R"(
clusters:
- name: shared
  cluster:
    server: https://a.example:6443
contexts:
- name: ctx-a
  context: {cluster: shared, user: ua, namespace: team-a}
users:
- name: ua
  user: {token: token-a}
)");
  const auto b = dir.write("b/config", R"(
current-context: ctx-b
clusters:
- name: shared
  cluster:
    server: https://b.example:6443
    tls-server-name: from-b
- name: only-b
  cluster:
    server: https://only-b.example
contexts:
- name: ctx-a
  context: {cluster: only-b, user: ub}
- name: ctx-b
  context: {cluster: shared, user: ub}
users:
- name: ua
  user: {token: token-a-from-b}
- name: ub
  user: {token: token-b}
)");
  auto o = isolated(dir);
  o.kubeconfig_env = a + ":" + (dir / "missing") + "::" + b;

  SECTION("current-context from the first file that sets one") {
    auto c = trainer::kube::load_config(o);
    REQUIRE(c);
    CHECK(c->context == "ctx-b");
    // `shared` comes from a as a whole: b's tls-server-name is not merged into it.
    CHECK(c->server == "https://a.example:6443");
    CHECK(c->tls_server_name.empty());
    CHECK(c->token == "token-b");
    CHECK(c->namespace_ == "default");
    CHECK(c->source == "kubeconfig " + a + ":" + b);
  }
  SECTION("an entry defined in both files is the first file's") {
    o.context = "ctx-a";
    auto c = trainer::kube::load_config(o);
    REQUIRE(c);
    CHECK(c->cluster == "shared");
    CHECK(c->token == "token-a");
    CHECK(c->namespace_ == "team-a");
  }
  SECTION("the first non-empty current-context wins") {
    dir.write("a/config", read_text(a) + "current-context: ctx-a\n");
    auto c = trainer::kube::load_config(o);
    REQUIRE(c);
    CHECK(c->context == "ctx-a");
  }
  SECTION("-n overrides the context's namespace") {
    o.context = "ctx-a";
    o.namespace_ = "other";
    auto c = trainer::kube::load_config(o);
    REQUIRE(c);
    CHECK(c->namespace_ == "other");
  }
}

TEST_CASE("~/.kube/config is read when KUBECONFIG is unset", "[kube][config]") {
  TempDir dir;
  dir.write("home/.kube/config", simple("    server: https://home.example\n", "    token: t\n"));
  auto c = trainer::kube::load_config(isolated(dir));
  REQUIRE(c);
  CHECK(c->server == "https://home.example");
  CHECK(c->source == "kubeconfig " + (dir / "home/.kube/config"));
}

TEST_CASE("an explicit --kubeconfig must exist and is never merged", "[kube][config]") {
  TempDir dir;
  dir.write("home/.kube/config", simple("    server: https://home.example\n", "    token: t\n"));
  auto o = isolated(dir);
  o.kubeconfig = dir / "nope";
  auto c = trainer::kube::load_config(o);
  REQUIRE_FALSE(c);
  CHECK(c.error().code == ErrorCode::kIo);
  CHECK(c.error().message == "stat " + (dir / "nope") + ": no such file or directory");
}

TEST_CASE("no kubeconfig at all: in-cluster, else kubectl's empty-config error", "[kube][config]") {
  TempDir dir;
  auto o = isolated(dir);
  o.kubeconfig_env = (dir / "missing1") + ":" + (dir / "missing2");
  auto none = trainer::kube::load_config(o);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ErrorCode::kNotFound);
  CHECK(none.error().message ==
        "invalid configuration: no configuration has been provided, try setting "
        "KUBERNETES_MASTER environment variable");

  dir.write("sa/token", "sa-token\n");
  dir.write("sa/ca.crt", kCaPem);
  dir.write("sa/namespace", "ns-from-file\n");
  o.service_account_dir = dir / "sa";
  o.service_host = "10.0.0.1";
  o.service_port = "443";
  auto in = trainer::kube::load_config(o);
  REQUIRE(in);
  CHECK(in->source == "in-cluster");
  CHECK(in->server == "https://10.0.0.1:443");
  CHECK(in->namespace_ == "ns-from-file");

  // An empty kubeconfig counts as none too.
  o.kubeconfig_env = dir.write("empty", "");
  auto from_empty = trainer::kube::load_config(o);
  REQUIRE(from_empty);
  CHECK(from_empty->source == "in-cluster");
}

TEST_CASE("in-cluster configuration", "[kube][config]") {
  TempDir dir;
  auto o = isolated(dir);
  o.service_account_dir = dir / "sa";
  dir.write("sa/token", "  the-token \n");
  dir.write("sa/ca.crt", kCaPem);
  dir.write("sa/namespace", "from-file");

  SECTION("outside a cluster") {
    auto c = trainer::kube::in_cluster_config(o);
    REQUIRE_FALSE(c);
    CHECK(c.error().code == ErrorCode::kNotFound);
    CHECK(c.error().message ==
          "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
          "KUBERNETES_SERVICE_PORT must be defined");
  }
  o.service_host = "fd00::1";
  o.service_port = "6443";
  SECTION("files, IPv6 host, token kept as a file") {
    auto c = trainer::kube::in_cluster_config(o);
    REQUIRE(c);
    CHECK(c->server == "https://[fd00::1]:6443");
    CHECK(c->token == "the-token");
    CHECK(c->token_file == dir / "sa/token");
    CHECK(c->ca_pem == kCaPem);
    CHECK(c->ca_file == dir / "sa/ca.crt");
    CHECK(c->namespace_ == "from-file");
    CHECK(c->warnings.empty());
  }
  SECTION("POD_NAMESPACE wins over the file, -n over both") {
    o.pod_namespace = "from-env";
    CHECK(trainer::kube::in_cluster_config(o)->namespace_ == "from-env");
    o.namespace_ = "flag";
    CHECK(trainer::kube::in_cluster_config(o)->namespace_ == "flag");
  }
  SECTION("no namespace file: default; no CA: a warning and the system roots") {
    std::filesystem::remove(dir / "sa/namespace");
    std::filesystem::remove(dir / "sa/ca.crt");
    auto c = trainer::kube::in_cluster_config(o);
    REQUIRE(c);
    CHECK(c->namespace_ == "default");
    CHECK(c->ca_pem.empty());
    REQUIRE(c->warnings.size() == 1);
    CHECK(c->warnings[0].find(dir / "sa/ca.crt") != std::string::npos);
  }
  SECTION("no token file") {
    std::filesystem::remove(dir / "sa/token");
    auto c = trainer::kube::in_cluster_config(o);
    REQUIRE_FALSE(c);
    CHECK(c.error().code == ErrorCode::kIo);
    CHECK(c.error().message == "open " + (dir / "sa/token") + ": no such file or directory");
  }
}

TEST_CASE("cluster fields", "[kube][config]") {
  TempDir dir;
  SECTION("server keeps its path as a prefix, drops query and trailing slash") {
    auto c = load_text(dir, simple("    server: https://h:6443/k8s/clusters/x/?a=b\n", ""));
    REQUIRE(c);
    CHECK(c->server == "https://h:6443/k8s/clusters/x");
    CHECK(c->ca_pem.empty());
    CHECK(c->warnings.empty());
    CHECK(c->namespace_ == "default");
  }
  SECTION("certificate-authority-data is base64 of the PEM") {
    auto c = load_text(
        dir,
        simple(std::string("    server: https://h\n    certificate-authority-data: ") + kCaData +
                   "\n    tls-server-name: api.internal\n"
                   "    proxy-url: socks5://proxy:1080\n"
                   "    disable-compression: true\n",
               ""));
    REQUIRE(c);
    CHECK(c->ca_pem == kCaPem);
    CHECK(c->ca_file.empty());
    CHECK(c->tls_server_name == "api.internal");
    CHECK(c->proxy_url == "socks5://proxy:1080");
    CHECK(c->disable_compression);
  }
  SECTION("insecure-skip-tls-verify is allowed alone, with a warning") {
    auto c =
        load_text(dir, simple("    server: https://h\n    insecure-skip-tls-verify: true\n", ""));
    REQUIRE(c);
    CHECK(c->insecure_skip_tls_verify);
    REQUIRE(c->warnings.size() == 1);
    CHECK(c->warnings[0].find("insecure-skip-tls-verify") != std::string::npos);
  }
  SECTION("the exec extension becomes the plugin's cluster config") {
    auto c = load_text(dir, simple("    server: https://h\n    extensions:\n"
                                   "    - name: other\n      extension: {x: 1}\n"
                                   "    - name: client.authentication.k8s.io/exec\n"
                                   "      extension: {audience: abc}\n",
                                   "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                   "      command: cred\n      interactiveMode: Never\n"));
    REQUIRE(c);
    REQUIRE(c->exec);
    CHECK(c->exec->cluster_config == boost::json::value{{"audience", "abc"}});
  }
}

TEST_CASE("relative paths resolve against the file that defined the entry", "[kube][config]") {
  TempDir dir;
  dir.write("one/ca.pem", kCaPem);
  dir.write("two/certs/client.crt", "CERT");
  dir.write("two/certs/client.key", "KEY");
  dir.write("two/token", "file-token\n");
  const auto one = dir.write("one/config", R"(
current-context: ctx
clusters:
- name: c
  cluster: {server: "https://h", certificate-authority: ca.pem}
contexts:
- name: ctx
  context: {cluster: c, user: u}
- name: exec-ctx
  context: {cluster: c, user: exec-user}
- name: bare-ctx
  context: {cluster: c, user: bare-user}
)");
  const auto two = dir.write("two/config", R"(
users:
- name: u
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
    tokenFile: token
- name: exec-user
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/cred, interactiveMode: Never}
- name: bare-user
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: cred}
)");
  auto o = isolated(dir);
  o.kubeconfig_env = one + ":" + two;
  auto c = trainer::kube::load_config(o);
  REQUIRE(c);
  CHECK(c->ca_file == dir / "one/ca.pem");
  CHECK(c->ca_pem == kCaPem);
  CHECK(c->client_cert_file == dir / "two/certs/client.crt");
  CHECK(c->client_cert_pem == "CERT");
  CHECK(c->client_key_pem == "KEY");
  CHECK(c->token_file == dir / "two/token");
  CHECK(c->token == "file-token");

  o.context = "exec-ctx";
  auto e = trainer::kube::load_config(o);
  REQUIRE(e);
  REQUIRE(e->exec);
  CHECK(e->exec->command == dir / "two/./bin/cred");
  CHECK(e->exec->interactive_mode == "Never");

  o.context = "bare-ctx";
  auto b = trainer::kube::load_config(o);
  REQUIRE(b);
  REQUIRE(b->exec);
  CHECK(b->exec->command == "cred");                  // looked up on PATH when run
  CHECK(b->exec->interactive_mode == "IfAvailable");  // v1beta1's default
}

TEST_CASE("user fields", "[kube][config]") {
  TempDir dir;
  auto c = load_text(dir, simple("    server: https://h\n",
                                 "    token: tok\n    as: alice\n    as-groups: [g1, g2]\n"
                                 "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                 "      command: /bin/cred\n      args: [get, token]\n"
                                 "      env:\n      - {name: A, value: '1'}\n"
                                 "      interactiveMode: Always\n      provideClusterInfo: true\n"
                                 "      installHint: install it\n",
                                 "    namespace: team-x\n"));
  REQUIRE(c);
  CHECK(c->token == "tok");
  CHECK(c->impersonate_user == "alice");
  CHECK(c->impersonate_groups == std::vector<std::string>{"g1", "g2"});
  CHECK(c->namespace_ == "team-x");
  CHECK(c->context == "ctx");
  CHECK(c->cluster == "c");
  CHECK(c->user == "u");
  REQUIRE(c->exec);
  CHECK(c->exec->args == std::vector<std::string>{"get", "token"});
  CHECK(c->exec->env == std::vector<std::pair<std::string, std::string>>{{"A", "1"}});
  CHECK(c->exec->provide_cluster_info);
  CHECK(c->exec->install_hint == "install it");
}

TEST_CASE("configuration errors read as kubectl's", "[kube][config]") {
  TempDir dir;
  const std::string server = "    server: https://h\n";
  const auto invalid = [&](const std::string& text) {
    auto r = load_text(dir, text);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    return r.error().message;
  };
  SECTION("context selection") {
    auto o = isolated(dir);
    o.kubeconfig = dir.write("config", simple(server, ""));
    o.context = "x";
    CHECK(error_of(trainer::kube::load_config(o)) == "context \"x\" does not exist");
    CHECK(invalid("current-context: gone\ncontexts: []\nclusters: []\n") ==
          "invalid configuration: context was not found for specified context: gone");
    CHECK(invalid("clusters:\n- name: c\n  cluster: {server: https://h}\n") ==
          "invalid configuration: no configuration has been provided, try setting "
          "KUBERNETES_MASTER environment variable");
  }
  SECTION("references") {
    CHECK(invalid("current-context: ctx\ncontexts:\n- name: ctx\n  context: {cluster: c}\n") ==
          "cluster \"c\" was not found for context \"ctx\"");
    CHECK(invalid("current-context: ctx\ncontexts:\n- name: ctx\n  context: {}\n") ==
          "cluster was not specified for context \"ctx\"");
    CHECK(invalid("current-context: ctx\nclusters:\n- name: c\n  cluster: {server: https://h}\n"
                  "contexts:\n- name: ctx\n  context: {cluster: c, user: u}\n") ==
          "user \"u\" was not found for context \"ctx\"");
    CHECK(invalid(simple("    tls-server-name: x\n", "")) == "no server found for cluster \"c\"");
    CHECK(invalid(simple(server, "", "    namespace: Not_A_Label\n")) ==
          "namespace \"Not_A_Label\" for context \"ctx\" does not conform to the kubernetes "
          "DNS_LABEL rules");
  }
  SECTION("several problems at once: client-go's aggregate") {
    CHECK(invalid(simple("    tls-server-name: x\n", "    as-groups: [g]\n")) ==
          "invalid configuration: [no server found for cluster \"c\", requesting groups or "
          "user-extra for u without impersonating a user]");
  }
  SECTION("certificate authority") {
    dir.write("ca.pem", kCaPem);
    CHECK(invalid(simple(server +
                             "    certificate-authority: ca.pem\n"
                             "    certificate-authority-data: " +
                             kCaData + "\n",
                         "")) ==
          "certificate-authority-data and certificate-authority are both specified for c. "
          "certificate-authority-data will override.");
    CHECK(invalid(simple(server + "    certificate-authority: nope.pem\n", "")) ==
          "unable to read certificate-authority " + (dir / "nope.pem") + " for c due to open " +
              (dir / "nope.pem") + ": no such file or directory");
    CHECK(invalid(simple(server + "    certificate-authority: ca.pem\n"
                                  "    insecure-skip-tls-verify: true\n",
                         "")) ==
          "specifying a root certificates file with the insecure flag is not allowed");
    CHECK(invalid(simple(server + "    proxy-url: ftp://p\n", "")) ==
          "invalid 'proxy-url' \"ftp://p\" for cluster \"c\": unsupported scheme \"ftp\", must "
          "be http, https, or socks5");
  }
  SECTION("client certificate") {
    dir.write("c.crt", "CERT");
    CHECK(invalid(simple(server, "    client-certificate: c.crt\n")) ==
          "client-key-data or client-key must be specified for u to use the clientCert "
          "authentication method.");
    CHECK(invalid(simple(server,
                         "    client-certificate: c.crt\n    client-certificate-data: "
                         "Q0VSVA==\n    client-key-data: S0VZ\n")) ==
          "client-cert-data and client-cert are both specified for u. client-cert-data will "
          "override.");
    CHECK(invalid(simple(server, "    client-certificate: c.crt\n    client-key: no.key\n")) ==
          "unable to read client-key " + (dir / "no.key") + " for u due to open " +
              (dir / "no.key") + ": no such file or directory");
    auto both_data = load_text(dir, simple(server,
                                           "    client-certificate-data: Q0VSVA==\n"
                                           "    client-key-data: S0VZ\n"));
    REQUIRE(both_data);
    CHECK(both_data->client_cert_pem == "CERT");
    CHECK(both_data->client_key_pem == "KEY");
  }
  SECTION("token file unreadable at load") {
    CHECK(invalid(simple(server, "    tokenFile: no-token\n")) ==
          "open " + (dir / "no-token") + ": no such file or directory");
  }
  SECTION("exec plugin") {
    const std::string v1 = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n";
    CHECK(invalid(simple(server, v1 + "      command: cred\n")) ==
          "interactiveMode must be specified for u to use exec authentication plugin");
    CHECK(invalid(simple(server, v1 + "      command: cred\n      interactiveMode: Sometimes\n")) ==
          "invalid interactiveMode for u: \"Sometimes\"");
    CHECK(invalid(simple(server, v1 + "      interactiveMode: Never\n")) ==
          "command must be specified for u to use exec authentication plugin");
    CHECK(invalid(simple(server,
                         "    exec:\n      apiVersion: client.authentication.k8s.io/"
                         "v1alpha1\n      command: cred\n      interactiveMode: Never\n")) ==
          "exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\"");
    CHECK(invalid(simple(server, v1 + "      command: cred\n      interactiveMode: Never\n"
                                      "      env:\n      - {value: x}\n")) ==
          "env variable name must be specified for u to use exec authentication plugin");
    CHECK(invalid(simple(server, "    auth-provider: {name: gcp}\n")) ==
          "no Auth Provider found for name \"gcp\"");
  }
}

TEST_CASE("undecodable kubeconfigs", "[kube][config]") {
  TempDir dir;
  SECTION("duplicate names inside one file") {
    auto r = load_text(dir,
                       "clusters:\n- name: c\n  cluster: {server: https://a}\n"
                       "- name: c\n  cluster: {server: https://b}\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kInvalidArgument);
    CHECK(r.error().message == "error loading config file \"" + (dir / "config") +
                                   "\": error converting *[]NamedCluster into "
                                   "*map[string]*api.Cluster: duplicate name \"c\" in list");
  }
  SECTION("the same name in two files is not a duplicate") {
    auto o = isolated(dir);
    o.kubeconfig_env = dir.write("a", simple("    server: https://a\n", "")) + ":" +
                       dir.write("b", simple("    server: https://b\n", ""));
    auto c = trainer::kube::load_config(o);
    REQUIRE(c);
    CHECK(c->server == "https://a");
  }
  SECTION("not YAML") {
    auto r = load_text(dir, "clusters: [\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK(r.error().message.rfind("error loading config file \"" + (dir / "config") + "\": ", 0) ==
          0);
  }
  SECTION("wrong shapes") {
    auto r = load_text(dir, "clusters: {c: 1}\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kParse);
    auto t = load_text(dir, simple("    server: 42\n", ""));
    REQUIRE_FALSE(t);
    CHECK(t.error().code == ErrorCode::kParse);
    CHECK(t.error().message.find("clusters[c].cluster.server") != std::string::npos);
  }
  SECTION("bad base64") {
    auto r =
        load_text(dir, simple("    server: https://h\n    certificate-authority-data: '*'\n", ""));
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kParse);
    CHECK(r.error().message.find("illegal base64 data") != std::string::npos);
  }
  SECTION("a KUBECONFIG entry that is a folder") {
    auto o = isolated(dir);
    std::filesystem::create_directories(dir / "folder");
    o.kubeconfig_env = dir / "folder";
    auto r = trainer::kube::load_config(o);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kIo);
    CHECK(r.error().message == "error loading config file \"" + (dir / "folder") + "\": read " +
                                   (dir / "folder") + ": is a directory");
  }
}
