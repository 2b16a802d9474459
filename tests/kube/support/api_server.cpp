// SPDX-License-Identifier: Apache-2.0
#include "support/api_server.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace trainer::testing {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

// Single-quoted for /bin/sh.
std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string random_suffix() {
  std::random_device rd;
  std::mt19937_64 gen(rd());
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s;
  for (int i = 0; i < 8; ++i) s += kAlphabet[gen() % 36];
  return s;
}

}  // namespace

std::string run_or_die(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("popen failed: " + command);
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int rc = ::pclose(p);
  if (rc != 0) {
    throw std::runtime_error("command failed (" + std::to_string(rc) + "): " + command + "\n" +
                             out);
  }
  return out;
}

void require_kube_test_env() {
  if (!env_or_empty("TRAINER_KUBE_TEST_ENV").empty()) return;
  std::cout << "SKIPPED: this test needs a real kube-apiserver; set TRAINER_KUBE_TEST_ENV to "
               "kube-test-env.tar.xz or its unpacked folder (.ci/run sets it)\n";
  std::cout.flush();
  std::_Exit(77);
}

namespace {

// Unpacks `tarball` once per (path, size, mtime) under $TMPDIR, under an flock so that parallel
// test processes share one copy.
std::string unpack(const std::string& tarball, const struct stat& st) {
  std::string tmp = env_or_empty("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  const std::string key = std::to_string(std::hash<std::string>{}(tarball)) + "-" +
                          std::to_string(st.st_size) + "-" + std::to_string(st.st_mtime);
  const std::string dest = tmp + "/trainer-kube-test-env-" + key;
  if (::access((dest + "/kube-test-env/start-apiserver").c_str(), X_OK) == 0) {
    return dest + "/kube-test-env";
  }
  const std::string staging = dest + ".tmp.$$";
  const std::string script = "test -x " + q(dest + "/kube-test-env/start-apiserver") +
                             " || { mkdir -p " + staging + " && tar -xJf " + q(tarball) + " -C " +
                             staging + " && rm -rf " + q(dest) + " && mv " + staging + " " +
                             q(dest) + "; }";
  run_or_die("flock " + q(dest + ".lock") + " sh -c " + q(script));
  return dest + "/kube-test-env";
}

}  // namespace

std::string kube_test_env_dir() {
  require_kube_test_env();
  const std::string bundle = env_or_empty("TRAINER_KUBE_TEST_ENV");
  struct stat st {};
  if (::stat(bundle.c_str(), &st) != 0) {
    throw std::runtime_error("TRAINER_KUBE_TEST_ENV=" + bundle + " does not exist");
  }
  if (!S_ISDIR(st.st_mode)) return unpack(bundle, st);
  // The unpacked bundle, or the folder that holds the tarball (../shared/kube-test-env/).
  if (::access((bundle + "/start-apiserver").c_str(), X_OK) == 0) return bundle;
  if (::access((bundle + "/kube-test-env/start-apiserver").c_str(), X_OK) == 0) {
    return bundle + "/kube-test-env";
  }
  const std::string tarball = bundle + "/kube-test-env.tar.xz";
  struct stat tst {};
  if (::stat(tarball.c_str(), &tst) != 0) {
    throw std::runtime_error("TRAINER_KUBE_TEST_ENV=" + bundle +
                             " holds neither start-apiserver nor kube-test-env.tar.xz");
  }
  return unpack(tarball, tst);
}

ApiServer::ApiServer(std::string dir, bool owned, std::string extra_args)
    : dir_(std::move(dir)), owned_(owned), extra_args_(std::move(extra_args)) {}

ApiServer& ApiServer::shared() {
  require_kube_test_env();
  static std::unique_ptr<ApiServer> server = [] {
    const std::string dir = env_or_empty("TRAINER_TEST_APISERVER_DIR");
    if (!dir.empty() && ::access((dir + "/env").c_str(), R_OK) == 0) {
      return std::unique_ptr<ApiServer>(new ApiServer(dir, false, ""));
    }
    return start_private();
  }();
  return *server;
}

std::unique_ptr<ApiServer> ApiServer::start_private(const std::string& extra_args) {
  require_kube_test_env();
  std::string tmp = env_or_empty("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  std::string templ = tmp + "/trainer-apiserver-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  std::unique_ptr<ApiServer> server(new ApiServer(templ, true, extra_args));
  server->start();
  // The destructor stops the server; a watchdog stops it too when this process dies without
  // running destructors (killed by a CTest timeout), so no server outlives its test.
  const std::string stop = q(kube_test_env_dir() + "/stop-apiserver") + " " + q(templ) + " --purge";
  run_or_die("setsid sh -c " +
             q("while kill -0 " + std::to_string(::getpid()) + " 2>/dev/null; do sleep 1; done; " +
               "[ -d " + q(templ) + " ] && " + stop) +
             " </dev/null >/dev/null 2>&1 &");
  return server;
}

void ApiServer::start() {
  const std::string bin = kube_test_env_dir();
  run_or_die("APISERVER_EXTRA_ARGS=" + q(extra_args_) + " " + q(bin + "/start-apiserver") + " " +
             q(dir_) + " >/dev/null 2>" + q(dir_ + "/start.log") + " || { cat " +
             q(dir_ + "/start.log") + " >&2; exit 1; }");
}

ApiServer::~ApiServer() {
  if (!owned_) return;
  try {
    run_or_die(q(kube_test_env_dir() + "/stop-apiserver") + " " + q(dir_) +
               " --purge >/dev/null 2>&1 || true");
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
  }
}

std::string ApiServer::url() const {
  return trim(read_file(dir_ + "/url"));
}
std::string ApiServer::token() const {
  return trim(read_file(dir_ + "/token"));
}
std::string ApiServer::ca_file() const {
  return dir_ + "/ca.crt";
}
std::string ApiServer::ca_key_file() const {
  return dir_ + "/ca.key";
}
std::string ApiServer::kubeconfig() const {
  return dir_ + "/kubeconfig";
}

void ApiServer::stop() {
  if (!owned_) throw std::runtime_error("the shared API server cannot be stopped by a test");
  run_or_die(q(kube_test_env_dir() + "/stop-apiserver") + " " + q(dir_) + " >/dev/null 2>&1");
}

void ApiServer::restart() {
  if (!owned_) throw std::runtime_error("the shared API server cannot be restarted by a test");
  start();
}

void ApiServer::compact() {
  // etcd's client URL is on its command line; its v3 JSON gateway takes the compaction.
  const std::string pid = trim(read_file(dir_ + "/etcd.pid"));
  const std::string url =
      trim(run_or_die("tr '\\0' '\\n' < /proc/" + pid +
                      "/cmdline | sed -n 's/^--listen-client-urls=//p' | head -1"));
  const std::string range = run_or_die("curl -sf --max-time 10 -X POST " + q(url + "/v3/kv/range") +
                                       " -d '{\"key\":\"AA==\"}'");
  const auto at = range.find("\"revision\":\"");
  if (at == std::string::npos) throw std::runtime_error("etcd range answer: " + range);
  const auto start = at + 12;
  const std::string revision = range.substr(start, range.find('"', start) - start);
  run_or_die("curl -sf --max-time 30 -X POST " + q(url + "/v3/kv/compaction") +
             " -d '{\"revision\":\"" + revision + "\",\"physical\":true}' >/dev/null");
}

std::pair<std::string, std::string> ApiServer::issue_client_cert(
    const std::string& user, const std::vector<std::string>& groups) {
  std::string subject = "/CN=" + user;
  for (const auto& g : groups) subject += "/O=" + g;
  const std::string base = dir_ + "/client-" + user + "-" + random_suffix();
  run_or_die("cd " + q(dir_) + " && openssl req -newkey rsa:2048 -nodes -keyout " +
             q(base + ".key") + " -out " + q(base + ".csr") + " -subj " + q(subject) +
             " >/dev/null 2>&1 && openssl x509 -req -in " + q(base + ".csr") + " -CA ca.crt" +
             " -CAkey ca.key -CAcreateserial -CAserial " + q(base + ".srl") + " -out " +
             q(base + ".crt") + " -days 2 >/dev/null 2>&1 && chmod 644 " + q(base + ".key"));
  return {base + ".crt", base + ".key"};
}

std::string unique_namespace(ApiServer& server, const std::string& prefix) {
  const std::string name = prefix + "-" + random_suffix();
  run_or_die(
      "curl -sf --max-time 30 --cacert " + q(server.ca_file()) + " -H " +
      q("Authorization: Bearer " + server.token()) +
      " -H 'Content-Type: application/json' -X POST " + q(server.url() + "/api/v1/namespaces") +
      " -d " +
      q("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" + name + "\"}}") +
      " >/dev/null");
  return name;
}

}  // namespace trainer::testing
