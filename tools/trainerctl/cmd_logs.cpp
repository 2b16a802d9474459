// SPDX-License-Identifier: Apache-2.0
// `trainerctl logs RUN_DIR [POD]`: the logs of a local run; `trainerctl logs NAME`: the logs of
// a TrainJob's pods on a cluster (an argument that is an existing folder is a local run).
#include "cluster_flags.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "resource_args.hpp"

#include "trainer/cluster.hpp"
#include "trainer/local.hpp"
#include "trainer/log_lines.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <thread>

namespace trainerctl {
namespace {

// Whether the run's executor is done with its log files: finished, or gone (read_status).
bool run_finished(const std::string& run_dir) {
  const auto state = trainer::local::read_status(run_dir);
  if (!state) return true;
  const auto* finished = state->get_object().if_contains("finished");
  return finished != nullptr && finished->is_bool() && finished->get_bool();
}

std::optional<long> parse_count(const std::string& text);
// How long `logs -f` waits for the state of a run folder that exists but holds no run yet.
constexpr std::chrono::seconds kStateWait{10};

// Where the last `lines` lines of `in` start (kubectl's --tail): the file is read backwards in
// blocks, so a large log is not read whole. A last line without its `\n` counts as a line.
std::streamoff tail_start(std::ifstream& in, long lines) {
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size <= 0) return 0;
  if (lines == 0) return size;
  char buf[65536];
  std::streamoff end = size;
  long seen = 0;
  bool last_byte = true;  // the file's last byte: its `\n` ends the last line, starts none
  while (end > 0) {
    const std::streamoff begin = std::max<std::streamoff>(0, end - std::streamoff(sizeof buf));
    in.seekg(begin);
    in.read(buf, end - begin);
    for (std::streamoff i = end - begin; i-- > 0;) {
      if (buf[i] == '\n' && !last_byte && ++seen == lines) return begin + i + 1;
      last_byte = false;
    }
    end = begin;
  }
  return 0;
}

int run_local_logs(const Parsed& args) {
  const auto& positional = args.args();
  std::optional<long> tail;
  if (args.given("tail")) {
    tail = parse_count(args.value("tail"));
    if (!tail) return usage_error("logs", "--tail must be a number of lines");
  }
  const std::string& run_dir = positional[0];
  const bool follow = args.enabled("follow");
  const auto locate = [&]() -> trainer::Result<std::string> {
    if (positional.size() == 2) return trainer::local::pod_log_path(run_dir, positional[1]);
    if (auto state = trainer::local::read_status(run_dir); !state) {
      return tl::unexpected(state.error());
    }
    const std::string path = trainer::local::combined_log_path(run_dir);
    if (std::filesystem::exists(path)) return path;
    return trainer::fail(trainer::ErrorCode::kNotFound, "cannot read " + path);
  };
  auto path = locate();
  // -f on a run that is starting (`trainerctl run --run-dir DIR &` a moment ago): its executor
  // writes state.json, then run.log and each pod's log, shortly after the folder exists. They
  // are waited for, the state at most kStateWait, a log while the run goes on.
  const auto state_deadline = std::chrono::steady_clock::now() + kStateWait;
  while (follow && !path && path.error().code == trainer::ErrorCode::kNotFound) {
    const bool have_state = trainer::local::read_status(run_dir).has_value();
    if (have_state ? run_finished(run_dir) : std::chrono::steady_clock::now() >= state_deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    path = locate();
  }
  if (!path) return report_error(path.error());
  std::ifstream in(*path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s\n", path->c_str());
    return kExitFailed;
  }
  if (tail) {
    const std::streamoff start = tail_start(in, *tail);
    in.clear();
    in.seekg(start);
  }
  // The files hold what the pods wrote as it came (run.log in pieces, see docs/local.md): they
  // are copied as bytes, and followed (-f) until the run has finished and nothing is left.
  bool last_round = !follow;
  char buf[65536];
  for (;;) {
    in.read(buf, sizeof buf);
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n > 0) {
      std::fwrite(buf, 1, n, stdout);
      std::fflush(stdout);
      continue;
    }
    if (last_round) break;
    in.clear();
    // Finished means the executor wrote its last byte before saying so: one more pass reads it.
    if (run_finished(run_dir)) {
      last_round = true;
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return kExitOk;
}

std::optional<long> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 9 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stol(text);
}

// Several pods' streams arrive interleaved: each is cut into lines and the pieces a redraw or an
// endless line gives (trainer::LogLineSplitter, at most kMaxLogLinePiece bytes held per pod), and
// written with kubectl's `[pod/<name>/<container>] ` prefix when asked for, pods never sharing a
// line (trainer::LogLineWriter).
class PodLines {
 public:
  PodLines(bool prefix, std::string container)
      : prefix_(prefix), container_(container.empty() ? "node" : std::move(container)) {}

  bool write(std::string_view pod, std::string_view data) {
    auto found = lines_.find(pod);
    if (found == lines_.end()) found = lines_.emplace(std::string(pod), LogLineSplitter()).first;
    found->second.feed(data, [&](std::string_view text, trainer::LineEnd end) {
      out_.write(pod, prefix_of(pod), text, end);
    });
    std::fflush(stdout);
    return true;
  }

  void finish() {
    for (auto& [pod, lines] : lines_) {
      lines.finish([&, name = std::string_view(pod)](std::string_view text, trainer::LineEnd end) {
        out_.write(name, prefix_of(name), text, end);
      });
    }
    out_.finish();
    std::fflush(stdout);
  }

 private:
  using LogLineSplitter = trainer::LogLineSplitter;

  std::string prefix_of(std::string_view pod) const {
    if (!prefix_) return {};
    return "[pod/" + std::string(pod) + "/" + container_ + "] ";
  }

  bool prefix_;
  std::string container_;
  std::map<std::string, LogLineSplitter, std::less<>> lines_;
  trainer::LogLineWriter out_{
      [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); }};
};

int run_cluster_logs(const Parsed& args) {
  if (args.args().size() > 1)
    return usage_error("logs", "a TrainJob's logs take one NAME (POD is for run folders)");
  trainer::cluster::LogsOptions options;
  if (args.given("node")) {
    const auto node = parse_count(args.value("node"));
    if (!node) return usage_error("logs", "--node must be a node index (0, 1, ...)");
    options.node = static_cast<int>(*node);
  }
  if (args.given("tail")) {
    const auto tail = parse_count(args.value("tail"));
    if (!tail) return usage_error("logs", "--tail must be a number of lines");
    options.tail_lines = *tail;
  }
  options.container = args.value("container");
  options.replicated_job = args.value("replicated-job");
  options.all = args.enabled("all-pods");
  options.follow = args.enabled("follow");
  auto client = connect(args);
  if (!client) return report_cluster_error(client.error());
  // NAME, or TYPE/NAME read as every cluster command reads it, whose TYPE must be a TrainJob's.
  std::string name = args.args()[0];
  if (name.find('/') != std::string::npos) {
    auto target = parse_resource_args({name}, "logs");
    if (!target) return usage_error("logs", target.error().message);
    auto resource = resolve(*client, *target);
    if (!resource) return report_cluster_error(resource.error());
    if (!is_trainjob(resource->front())) {
      return usage_error("logs", "logs reads a TrainJob's pods: trainjob/NAME or NAME, not " +
                                     resource->front().resource);
    }
    name = target->front().name;
  }
  PodLines writer(args.enabled("prefix"), options.container);
  auto read = trainer::cluster::logs(
      *client, namespace_of(args, *client), name, options,
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
      "(an initializer), --all-pods reads every pod. Several pods followed (-f) are read at once.\n"
      "trainjob/NAME (kubectl's TYPE/NAME) is the same TrainJob.\n"
      "Lines show as they arrive: a `\\r` redraw (a progress bar) at once, a line longer than\n"
      "64 KiB in pieces (docs/local.md, \"Logs\"). -f on RUN_DIR follows until the run ends.",
      {{"NAME|RUN_DIR", true}, {"POD", false}},
      with_cluster_flags(
          {{"node", '\0', "N", "only the pod of trainer node N"},
           {"container", 'c', "NAME", "the container (default: node in trainer pods)"},
           {"replicated-job", '\0', "NAME", "the pods of this replicated job (default: node)"},
           {"all-pods", '\0', "", "the pods of every replicated job"},
           {"follow", 'f', "", "keep streaming new lines until the containers (the local run) end"},
           {"tail", '\0', "N", "only the last N lines of each pod"},
           {"prefix", '\0', "", "start each line with [pod/<name>/<container>]"}}),
      run_logs};
  return command;
}

}  // namespace trainerctl
