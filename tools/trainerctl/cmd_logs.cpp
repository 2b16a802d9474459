// SPDX-License-Identifier: Apache-2.0
// `trainerctl logs RUN_DIR [POD]`: the logs of a local run; `trainerctl logs NAME`: the logs of
// a TrainJob's pods on a cluster (an argument that is an existing folder is a local run).
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "output.hpp"

#include "trainer/cluster.hpp"
#include "trainer/local.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>

namespace trainerctl {
namespace {

int run_local_logs(const Parsed& args) {
  const auto& positional = args.args();
  std::string path;
  if (positional.size() == 2) {
    auto found = trainer::local::pod_log_path(positional[0], positional[1]);
    if (!found) return report_error(found.error());
    path = *found;
  } else {
    if (auto state = trainer::local::read_status(positional[0]); !state) {
      return report_error(state.error());
    }
    path = trainer::local::combined_log_path(positional[0]);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    return kExitFailed;
  }
  std::cout << in.rdbuf();
  std::cout.flush();
  return kExitOk;
}

std::optional<long> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stol(text);
}

int usage(const std::string& message) {
  std::fprintf(stderr, "error: %s\nRun 'trainerctl logs --help' for usage.\n", message.c_str());
  return kExitUsage;
}

// Writes whole lines of each pod (several pods' streams arrive interleaved), optionally with
// kubectl's `[pod/<name>/<container>] ` prefix; what remains of a line is written at the end.
class LineWriter {
 public:
  LineWriter(bool prefix, std::string container)
      : prefix_(prefix), container_(std::move(container)) {}

  bool write(std::string_view pod, std::string_view data) {
    std::string& pending = pending_[std::string(pod)];
    pending.append(data.data(), data.size());
    std::size_t start = 0;
    for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n', start)) {
      emit(pod, std::string_view(pending).substr(start, end + 1 - start));
      start = end + 1;
    }
    pending.erase(0, start);
    std::fflush(stdout);
    return true;
  }

  void finish() {
    for (const auto& [pod, rest] : pending_) {
      if (!rest.empty()) emit(pod, rest + "\n");
    }
    std::fflush(stdout);
  }

 private:
  void emit(std::string_view pod, std::string_view line) {
    if (prefix_) {
      std::printf("[pod/%.*s/%s] ", static_cast<int>(pod.size()), pod.data(),
                  container_.empty() ? "node" : container_.c_str());
    }
    std::fwrite(line.data(), 1, line.size(), stdout);
  }

  bool prefix_;
  std::string container_;
  std::map<std::string, std::string, std::less<>> pending_;
};

int run_cluster_logs(const Parsed& args) {
  if (args.args().size() > 1)
    return usage("a TrainJob's logs take one NAME (POD is for run folders)");
  trainer::cluster::LogsOptions options;
  if (args.given("node")) {
    const auto node = parse_count(args.value("node"));
    if (!node) return usage("--node must be a node index (0, 1, ...)");
    options.node = static_cast<int>(*node);
  }
  if (args.given("tail")) {
    const auto tail = parse_count(args.value("tail"));
    if (!tail) return usage("--tail must be a number of lines");
    options.tail_lines = *tail;
  }
  options.container = args.value("container");
  options.replicated_job = args.value("replicated-job");
  options.all = args.enabled("all-pods");
  options.follow = args.enabled("follow");
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  LineWriter writer(args.enabled("prefix"), options.container);
  auto read = trainer::cluster::logs(
      *client, namespace_of(args, *client), args.args()[0], options,
      [&](const trainer::cluster::LogChunk& chunk) { return writer.write(chunk.pod, chunk.data); });
  writer.finish();
  if (!read) return report_cluster_error(read.error());
  return kExitOk;
}

int run_logs(const Parsed& args) {
  std::error_code ec;
  if (std::filesystem::is_directory(args.args()[0], ec)) return run_local_logs(args);
  return run_cluster_logs(args);
}

}  // namespace

const Command& logs_command() {
  static const Command command{
      "logs",
      "the logs of a local run folder, or of a TrainJob's pods on a cluster",
      "RUN_DIR (an existing folder): a local run. Without POD: every pod's lines with their\n"
      "[<replicatedJob>-<job>-<pod>] prefixes, in the order they arrived. POD: a pod name,\n"
      "hostname or prefix (node-0-0); its latest attempt's stdout and stderr as written.\n"
      "NAME: a TrainJob on the cluster: the logs of its trainer pods (container node), found by\n"
      "the JobSet's labels; --node N narrows them to node N, --replicated-job to another job\n"
      "(an initializer), --all-pods reads every pod. Several pods followed (-f) are read at once.",
      {{"NAME|RUN_DIR", true}, {"POD", false}},
      with_cluster_flags(
          {{"node", '\0', "N", "only the pod of trainer node N"},
           {"container", 'c', "NAME", "the container (default: node in trainer pods)"},
           {"replicated-job", '\0', "NAME", "the pods of this replicated job (default: node)"},
           {"all-pods", '\0', "", "the pods of every replicated job"},
           {"follow", 'f', "", "keep streaming new lines until the containers end"},
           {"tail", '\0', "N", "only the last N lines of each pod"},
           {"prefix", '\0', "", "start each line with [pod/<name>/<container>]"}}),
      run_logs};
  return command;
}

}  // namespace trainerctl
