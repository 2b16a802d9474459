// SPDX-License-Identifier: Apache-2.0
//
// A pod's log stream for logs_stream_test.sh: the API server of the tests has no kubelet, so this
// serves what `trainerctl logs mnist -n ns -f` reads (discovery, the JobSet's one trainer pod,
// its followed log) on loopback with the fault server of tests/kube.
//
//   log_stream_server progress|endless KUBECONFIG_OUT
//
// `progress`: 50 redraws `\rstep N`, 20 ms apart, no newline; `endless`: 64 MiB without a
// newline. Either stream is then held open. Writes a kubeconfig for the server, prints `ready`,
// and serves until its stdin ends (at most 120 s).
#include "support/fault_server.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include <poll.h>
#include <unistd.h>

namespace {

using trainer::testing::FaultResponse;
using trainer::testing::FaultServer;
using namespace std::chrono_literals;

const std::string kAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

FaultResponse json_answer(const std::string& match, const std::string& content_type,
                          std::string body) {
  FaultResponse response(200, {{"Content-Type", content_type}}, std::move(body));
  response.match = match;
  return response;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc == 3 ? argv[1] : "";
  if (scenario != "progress" && scenario != "endless") {
    std::fprintf(stderr, "usage: log_stream_server progress|endless KUBECONFIG_OUT\n");
    return 2;
  }
  FaultServer fault;
  // `/apis` first: a response's match is a prefix of the target, and `/api` is one of `/apis`.
  fault.push(json_answer(
      "/apis", kAggregated,
      R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[]})"));
  fault.push(json_answer(
      "/api", kAggregated,
      R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[)"
      R"({"metadata":{"name":""},"versions":[{"version":"v1","resources":[)"
      R"({"resource":"pods","responseKind":{"group":"","version":"v1","kind":"Pod"},)"
      R"("scope":"Namespaced","singularResource":"pod","verbs":["get","list"]}]}]}]})"));
  fault.push(json_answer(
      "/api/v1/namespaces/ns/pods?", "application/json",
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[)"
      R"({"metadata":{"name":"mnist-node-0-0","namespace":"ns","labels":{)"
      R"("jobset.sigs.k8s.io/jobset-name":"mnist","jobset.sigs.k8s.io/replicatedjob-name":"node",)"
      R"("jobset.sigs.k8s.io/job-index":"0","batch.kubernetes.io/job-completion-index":"0"}},)"
      R"("spec":{"containers":[{"name":"node"}]}}]})"));

  FaultResponse log;
  log.match = "/api/v1/namespaces/ns/pods/mnist-node-0-0/log";
  log.headers = {{"Content-Type", "text/plain"}};
  if (scenario == "progress") {
    for (int i = 0; i < 50; ++i) log.chunks.push_back({20ms, "\rstep " + std::to_string(i)});
  } else {
    const std::string piece(64 * 1024, 'x');
    for (int i = 0; i < 1024; ++i) log.chunks.push_back({0ms, piece});
  }
  log.hold = true;
  log.hold_limit = 120s;
  fault.push(log);

  std::ofstream config(argv[2]);
  config << "apiVersion: v1\nkind: Config\nclusters:\n- name: fault\n  cluster:\n    server: "
         << fault.url()
         << "\nusers:\n- name: test\n  user:\n    token: t\ncontexts:\n- name: fault\n  context:\n"
            "    cluster: fault\n    user: test\n    namespace: ns\ncurrent-context: fault\n";
  config.close();
  if (!config) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  std::printf("ready\n");
  std::fflush(stdout);
  pollfd in{STDIN_FILENO, POLLIN, 0};
  (void)poll(&in, 1, 120000);
  return 0;
}
