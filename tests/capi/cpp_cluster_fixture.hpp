// SPDX-License-Identifier: Apache-2.0
//
// What the trainer.hpp tests against the API server share: the kube-apiserver of the CTest
// fixture `kube_apiserver` (TRAINER_TEST_APISERVER_DIR), a namespace of each test's own and a
// client whose namespace it is, admin requests with curl (playing the controller), and the small
// runtime and TrainJobs they apply. Cases that need the server exit 77 (skipped) without
// TRAINER_KUBE_TEST_ENV.
#pragma once

#include "trainer.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace cpp_cluster_fixture {

namespace abi = trainer::abi;

inline constexpr const char* kRuntime = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: torch-rt
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: pytorch:2.5
)";

inline std::string trainjob(const std::string& name, int procs) {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
         "\nspec:\n  runtimeRef:\n    name: torch-rt\n    kind: TrainingRuntime\n  trainer:\n"
         "    numNodes: 2\n    numProcPerNode: " +
         std::to_string(procs) + "\n";
}

struct Server {
  std::string dir, url, token;

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }

  /// The fixture's server; exits 77 (skipped) when there is none.
  static Server get() {
    const char* env = std::getenv("TRAINER_KUBE_TEST_ENV");
    const char* dir = std::getenv("TRAINER_TEST_APISERVER_DIR");
    if (env == nullptr || *env == '\0' || dir == nullptr || *dir == '\0') {
      std::printf(
          "SKIPPED: TRAINER_KUBE_TEST_ENV or TRAINER_TEST_APISERVER_DIR is not set "
          "(run under ctest with the kube_apiserver fixture)\n");
      std::exit(77);
    }
    return Server{dir, read(std::string(dir) + "/url"), read(std::string(dir) + "/token")};
  }

  void request(const std::string& method, const std::string& path, const std::string& content_type,
               const std::string& body) const {
    const std::string command = "curl -sSf -o /dev/null --max-time 30 --cacert '" + dir +
                                "/ca.crt' -H 'Authorization: Bearer " + token + "' -X " + method +
                                " -H 'Content-Type: " + content_type + "' --data '" + body + "' '" +
                                url + path + "'";
    REQUIRE(std::system(command.c_str()) == 0);
  }

  /// The body of a GET of `path` (an admin read, e.g. a JobSet the controller made);
  /// std::nullopt when the server does not answer 2xx.
  std::optional<std::string> get(const std::string& path) const {
    const std::string command = "curl -sSf --max-time 30 --cacert '" + dir +
                                "/ca.crt' -H 'Authorization: Bearer " + token + "' '" + url + path +
                                "' 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string body;
    char chunk[4096];
    std::size_t n = 0;
    while ((n = std::fread(chunk, 1, sizeof chunk, pipe)) > 0) body.append(chunk, n);
    if (pclose(pipe) != 0) return std::nullopt;
    return body;
  }

  /// A fresh namespace and a client whose default namespace it is.
  abi::Client client(const std::string& prefix, std::string& ns) const {
    static std::atomic<int> n{0};
    ns = prefix + "-" +
         std::to_string(std::chrono::steady_clock::now().time_since_epoch().count() % 1000000) +
         "-" + std::to_string(n++);
    request("POST", "/api/v1/namespaces", "application/json",
            R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})");
    abi::ClientOptions options;
    options.kubeconfig = dir + "/kubeconfig";
    options.namespace_ = ns;
    options.qps = -1;
    auto client = abi::Client::create(options);
    REQUIRE(client.has_value());
    REQUIRE(client->namespace_() == ns);
    return std::move(*client);
  }
};

}  // namespace cpp_cluster_fixture
