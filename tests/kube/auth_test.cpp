// SPDX-License-Identifier: Apache-2.0
//
// The Authenticator (lib/kube/client/auth.cpp) and the exec credential plugin runner, with
// small shell-script plugins written into a temp folder; no server needed.
#include "kube/client/auth.hpp"
#include "api/time_text.hpp"
#include "kube/client/exec_credential.hpp"
#include "temp_dir.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <unistd.h>
#include <atomic>
#include <thread>

using trainer::ErrorCode;
using trainer::kube::CancelToken;
using trainer::kube::ClientOptions;
using trainer::kube::Config;
using trainer::kube::ExecPlugin;
using trainer::kube::detail::Authenticator;
using trainer::kube::detail::Credentials;
using trainer::testing::read_text;
using trainer::testing::TempDir;

namespace {

constexpr const char* kV1 = "client.authentication.k8s.io/v1";

std::unique_ptr<Authenticator> make(const Config& config, ClientOptions options = {}) {
  auto a = Authenticator::create(config, options);
  REQUIRE(a);
  return std::move(*a);
}

Config exec_config(const std::string& command, const std::string& api_version = kV1) {
  Config c;
  c.server = "https://127.0.0.1:6443";
  c.user = "dev";
  c.context = "local";
  ExecPlugin p;
  p.api_version = api_version;
  p.command = command;
  p.interactive_mode = "Never";
  c.exec = p;
  return c;
}

// A plugin that counts its runs in `<dir>/runs` and prints `status_json` as its status.
std::string counting_plugin(const TempDir& dir, const std::string& status_json,
                            const std::string& api_version = kV1) {
  return dir.script("cred", "echo run >> '" + (dir / "runs") + "'\n" +
                                "printf '%s' '{\"apiVersion\":\"" + api_version +
                                "\",\"kind\":\"ExecCredential\",\"status\":" + status_json +
                                "}'\n");
}

std::size_t runs(const TempDir& dir) {
  const std::string text = read_text(dir / "runs");
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string failure(Authenticator& a) {
  auto r = a.current({});
  REQUIRE_FALSE(r);
  return r.error().message;
}

}  // namespace

TEST_CASE("static token and client certificate", "[kube][auth]") {
  Config c;
  c.user = "admin";
  c.context = "local";
  c.token = "secret-token";
  auto a = make(c);
  auto creds = a->current({});
  REQUIRE(creds);
  CHECK(creds->bearer_token == "secret-token");
  CHECK(creds->client_cert_pem.empty());
  CHECK_FALSE(a->invalidate(*creds));  // nothing to refresh: retrying cannot help
  CHECK(a->describe() == "user \"admin\" of context \"local\" (bearer token)");

  c.token.clear();
  c.client_cert_pem = "CERT";
  c.client_key_pem = "KEY";
  c.client_cert_file = "/etc/certs/admin.crt";
  auto b = make(c);
  auto cc = b->current({});
  REQUIRE(cc);
  CHECK(cc->bearer_token.empty());
  CHECK(cc->client_cert_pem == "CERT");
  CHECK(cc->client_key_pem == "KEY");
  CHECK(b->describe() ==
        "user \"admin\" of context \"local\" (client certificate /etc/certs/admin.crt)");

  c.client_key_pem.clear();
  auto bad = Authenticator::create(c, {});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("a token file is re-read, trimmed, and its last good value kept", "[kube][auth]") {
  TempDir dir;
  const auto file = dir.write("token", "first\n");
  Config c;
  c.user = "u";
  c.token = "first";
  c.token_file = file;
  auto a = make(c);
  auto one = a->current({});
  REQUIRE(one);
  CHECK(one->bearer_token == "first");
  CHECK(a->describe() == "user \"u\" (token file " + file + ")");

  dir.write("token", "  second  \n");
  // Within the minute the cached value is used...
  CHECK(a->current({})->bearer_token == "first");
  // ... a 401 drops it.
  CHECK(a->invalidate(*one));
  auto two = a->current({});
  REQUIRE(two);
  CHECK(two->bearer_token == "second");
  CHECK(two->generation != one->generation);
  // A 401 for credentials already replaced does not force another read.
  dir.write("token", "third");
  CHECK(a->invalidate(*one));
  CHECK(a->current({})->bearer_token == "second");

  // An empty or vanished file keeps the last good token.
  dir.write("token", " \n");
  CHECK(a->invalidate(*two));
  CHECK(a->current({})->bearer_token == "second");
  std::filesystem::remove(file);
  CHECK(a->invalidate(*a->current({})));
  CHECK(a->current({})->bearer_token == "second");
}

TEST_CASE("an exec plugin is skipped when the user has a token or a certificate", "[kube][auth]") {
  TempDir dir;
  auto c = exec_config(counting_plugin(dir, R"({"token":"from-plugin"})"));
  c.token = "static";
  auto a = make(c);
  CHECK(a->current({})->bearer_token == "static");
  CHECK(runs(dir) == 0);
  CHECK(a->describe() == "user \"dev\" of context \"local\" (bearer token)");
}

TEST_CASE("exec plugin: token, environment and KUBERNETES_EXEC_INFO", "[kube][auth]") {
  TempDir dir;
  const auto plugin = dir.script(
      "cred", "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + (dir / "info") + "'\n" +
                  "printf '%s|%s|%s|%s' \"$1\" \"$2\" \"$FROM_CONFIG\" \"$SHADOWED\" > '" +
                  (dir / "env") + "'\n" +
                  "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                  "\"ExecCredential\",\"status\":{\"token\":\"tok-1\"}}'\n");
  auto c = exec_config(plugin);
  c.exec->args = {"get", "token"};
  c.exec->env = {{"FROM_CONFIG", "yes"}, {"SHADOWED", "config"}};
  ::setenv("SHADOWED", "parent", 1);

  SECTION("without cluster info") {
    auto a = make(c);
    auto creds = a->current({});
    REQUIRE(creds);
    CHECK(creds->bearer_token == "tok-1");
    CHECK(read_text(dir / "info") ==
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
          R"("spec":{"interactive":false}})");
    CHECK(read_text(dir / "env") == "get|token|yes|config");
    CHECK(a->describe() == "user \"dev\" of context \"local\" (exec plugin \"" + plugin + "\")");
  }
  SECTION("provideClusterInfo") {
    c.exec->provide_cluster_info = true;
    c.exec->cluster_config = boost::json::value{{"audience", "abc"}};
    c.ca_pem = "PEM";
    c.tls_server_name = "api";
    c.proxy_url = "http://proxy:3128";
    c.disable_compression = true;
    auto a = make(c);
    REQUIRE(a->current({}));
    CHECK(read_text(dir / "info") ==
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
          R"("spec":{"cluster":{"server":"https://127.0.0.1:6443","tls-server-name":"api",)"
          R"("certificate-authority-data":"UEVN","proxy-url":"http://proxy:3128",)"
          R"("disable-compression":true,"config":{"audience":"abc"}},"interactive":false}})");
  }
  ::unsetenv("SHADOWED");
}

TEST_CASE("exec plugin output is cached until it expires", "[kube][auth]") {
  TempDir dir;
  SECTION("no expiry: one run for the authenticator's lifetime, a 401 runs it again") {
    auto a = make(exec_config(counting_plugin(dir, R"({"token":"t"})")));
    auto first = a->current({});
    REQUIRE(first);
    REQUIRE(a->current({}));
    CHECK(runs(dir) == 1);
    CHECK(a->invalidate(*first));
    auto second = a->current({});
    REQUIRE(second);
    CHECK(runs(dir) == 2);
    CHECK(second->generation != first->generation);
    // A second 401 for the replaced credentials keeps the new ones.
    CHECK(a->invalidate(*first));
    REQUIRE(a->current({}));
    CHECK(runs(dir) == 2);
  }
  SECTION("expirationTimestamp one second ahead") {
    const auto plugin = dir.script(
        "cred", "echo run >> '" + (dir / "runs") + "'\n" +
                    "exp=$(date -u -d \"@$(( $(date +%s) + 2 ))\" +%Y-%m-%dT%H:%M:%SZ)\n"
                    "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                    "\"ExecCredential\",\"status\":{\"token\":\"t\",\"expirationTimestamp\":"
                    "\"%s\"}}' \"$exp\"\n");
    auto a = make(exec_config(plugin));
    REQUIRE(a->current({}));
    REQUIRE(a->current({}));
    CHECK(runs(dir) == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    REQUIRE(a->current({}));
    CHECK(runs(dir) == 2);
  }
  SECTION("an expiry in the past: run for every request") {
    auto a = make(exec_config(
        counting_plugin(dir, R"({"token":"t","expirationTimestamp":"2001-01-01T00:00:00Z"})")));
    REQUIRE(a->current({}));
    REQUIRE(a->current({}));
    CHECK(runs(dir) == 2);
  }
  SECTION("certificate and key as plain PEM, v1beta1") {
    auto a = make(exec_config(
        counting_plugin(dir, R"({"clientCertificateData":"CERT","clientKeyData":"KEY"})",
                        "client.authentication.k8s.io/v1beta1"),
        "client.authentication.k8s.io/v1beta1"));
    auto creds = a->current({});
    REQUIRE(creds);
    CHECK(creds->client_cert_pem == "CERT");
    CHECK(creds->client_key_pem == "KEY");
    CHECK(creds->bearer_token.empty());
  }
}

TEST_CASE("concurrent requests share one plugin run", "[kube][auth]") {
  TempDir dir;
  const auto plugin =
      dir.script("cred", "echo run >> '" + (dir / "runs") + "'\nsleep 0.3\n" +
                             "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                             "\"ExecCredential\",\"status\":{\"token\":\"t\"}}'\n");
  auto a = make(exec_config(plugin));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (auto r = a->current({}); r && r->bearer_token == "t") ++ok;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == 4);
  CHECK(runs(dir) == 1);
}

TEST_CASE("exec plugin failures read as client-go's", "[kube][auth]") {
  TempDir dir;
  const auto with_status = [&](const std::string& body) {
    return make(exec_config(dir.script("cred", "printf '%s' '" + body + "'\n")));
  };
  SECTION("wrong apiVersion") {
    auto a = with_status(
        R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}})");
    auto r = a->current({});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kUnauthorized);
    CHECK(r.error().message ==
          "getting credentials: exec plugin is configured to use API version "
          "client.authentication.k8s.io/v1, plugin returned version "
          "client.authentication.k8s.io/v1beta1");
  }
  SECTION("no status") {
    auto a =
        with_status(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})");
    CHECK(failure(*a) == "getting credentials: exec plugin didn't return a status field");
  }
  SECTION("empty status") {
    auto a = with_status(
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})");
    CHECK(failure(*a) == "getting credentials: exec plugin didn't return a token or cert/key pair");
  }
  SECTION("certificate without key") {
    auto a = with_status(
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"C"}})");
    CHECK(failure(*a) ==
          "getting credentials: exec plugin returned only certificate or key, not both");
  }
  SECTION("not JSON, no kind, bad time") {
    CHECK(failure(*with_status("nonsense: [")).rfind("getting credentials: decoding stdout: ", 0) ==
          0);
    CHECK(failure(*with_status(R"({"apiVersion":"client.authentication.k8s.io/v1"})")) ==
          "getting credentials: decoding stdout: Object 'Kind' is missing");
    CHECK(
        failure(
            *with_status(
                R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"tomorrow"}})"))
            .find("parsing time \"tomorrow\"") != std::string::npos);
  }
  SECTION("non-zero exit, and no negative caching") {
    const auto plugin =
        dir.script("cred", "echo run >> '" + (dir / "runs") + "'\necho oops >&2\nexit 3\n");
    auto a = make(exec_config(plugin));
    CHECK(failure(*a) ==
          "getting credentials: exec: executable " + plugin + " failed with exit code 3");
    CHECK_FALSE(a->current({}));
    CHECK(runs(dir) == 2);
  }
  SECTION("missing binary, with the install hint") {
    auto c = exec_config(dir / "no-such-plugin");
    c.exec->install_hint = "\x1b[1mbrew install cred\x1b[0m";
    auto a = make(c);
    const auto message = failure(*a);
    CHECK(message.rfind("getting credentials: exec: executable " + (dir / "no-such-plugin") +
                            " not found\n\nIt looks like you are trying to use a client-go "
                            "credential plugin that is not installed.",
                        0) == 0);
    CHECK(message.size() > 25);
    CHECK(message.substr(message.size() - 19) == "\n\nbrew install cred");
  }
  SECTION("a bare name is looked up on PATH") {
    auto a = make(exec_config("trainer-no-such-credential-plugin"));
    CHECK(failure(*a).rfind(
              "getting credentials: exec: executable trainer-no-such-credential-plugin not found",
              0) == 0);
  }
  SECTION("a plugin that does not finish is killed at the timeout") {
    const auto plugin = dir.script("cred", "sleep 30\n");
    ClientOptions o;
    o.exec_timeout = std::chrono::milliseconds(300);
    auto a = make(exec_config(plugin), o);
    const auto start = std::chrono::steady_clock::now();
    auto r = a->current({});
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kTimeout);
    CHECK(r.error().message == "getting credentials: exec: executable " + plugin +
                                   " did not finish within 300ms and was killed");
    CHECK(took < std::chrono::seconds(5));
  }
  SECTION("cancellation stops a running plugin") {
    const auto plugin = dir.script("cred", "sleep 30\n");
    auto a = make(exec_config(plugin));
    CancelToken cancel;
    std::thread canceller([cancel] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cancel.cancel();
    });
    const auto start = std::chrono::steady_clock::now();
    auto r = a->current(cancel);
    canceller.join();
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kCancelled);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  }
  SECTION("too much output") {
    const auto plugin = dir.script("cred", "head -c 3000000 /dev/zero\n");
    auto a = make(exec_config(plugin));
    auto r = a->current({});
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ErrorCode::kUnauthorized);
    CHECK(r.error().message.find("bytes to standard output") != std::string::npos);
  }
  SECTION("interactiveMode Always needs a terminal") {
    if (::isatty(STDIN_FILENO) == 0) {
      auto c = exec_config(counting_plugin(dir, R"({"token":"t"})"));
      c.exec->interactive_mode = "Always";
      auto a = make(c);
      CHECK(failure(*a) ==
            "getting credentials: exec plugin cannot support interactive mode: "
            "standard input is not a terminal");
      CHECK(runs(dir) == 0);
    }
  }
}

TEST_CASE("RFC 3339 time stamps", "[kube][auth]") {
  using trainer::detail::parse_rfc3339;
  const auto epoch = [](std::string_view text) {
    auto t = parse_rfc3339(text);
    REQUIRE(t);
    return std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count();
  };
  CHECK(epoch("1970-01-01T00:00:00Z") == 0);
  CHECK(epoch("2018-03-05T17:30:20-08:00") == 1520299820000);
  CHECK(epoch("2018-03-06T01:30:20.250Z") == 1520299820250);
  CHECK_FALSE(parse_rfc3339("2018-03-06 01:30:20Z"));
  CHECK_FALSE(parse_rfc3339("2018-03-06T01:30:20"));
  CHECK_FALSE(parse_rfc3339("2018-13-06T01:30:20Z"));
  CHECK_FALSE(parse_rfc3339("2018-03-06T01:30:20+0100"));
}
