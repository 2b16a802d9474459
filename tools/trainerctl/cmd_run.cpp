// SPDX-License-Identifier: Apache-2.0
// `trainerctl run`: render, then execute here with trainer::local::Executor.
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"
#include "plugin_flags.hpp"
#include "render_context.hpp"
#include "run_tuning.hpp"

#include "trainer/local.hpp"
#include "trainer/local_progress.hpp"
#include "trainer/log_lines.hpp"
#include "trainer/render.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string_view>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

namespace trainerctl {
namespace {

constexpr int kExitSuspended = 3;

std::string default_run_dir(const std::vector<boost::json::value>& docs) {
  std::string name = "trainjob";
  for (const auto& d : docs) {
    const auto* o = d.if_object();
    if (o == nullptr || !o->contains("kind") || o->at("kind") != "TrainJob") continue;
    if (const auto* meta = o->if_contains("metadata"); meta != nullptr && meta->is_object()) {
      if (const auto* n = meta->get_object().if_contains("name"); n != nullptr && n->is_string()) {
        name = std::string(n->get_string());
      }
    }
  }
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "trainer-runs/" + name + "-" + stamp;
}

// The terminal: interleaved pod lines (as run.log has them: LogLineWriter) and, on a TTY, one
// live status line kept at the bottom. While a pod's line is open (a progress bar's redraw, a
// piece of a long line) the status line is not drawn, which would overwrite or split it.
class Console {
 public:
  Console() : tty_(isatty(STDERR_FILENO) == 1) {}
  void line(const trainer::local::LogLine& l) {
    std::lock_guard<std::mutex> lock(mu_);
    clear();
    // Each stream of a pod is a source of its own, as in run.log.
    out_.write(l.pod + (l.is_stderr ? "/2" : "/1"), "[" + l.prefix + "] ", l.text, l.end);
    std::fflush(stdout);
    redraw();
  }
  void status(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = s;
    redraw();
  }
  // A progress post: on a terminal part of the status line, otherwise a line of its own on
  // stderr whenever it changes.
  void progress(const std::string& p) {
    std::lock_guard<std::mutex> lock(mu_);
    if (p == progress_) return;
    progress_ = p;
    if (tty_) return;
    std::fprintf(stderr, "%s\n", p.c_str());
    std::fflush(stderr);
  }
  void done() {
    std::lock_guard<std::mutex> lock(mu_);
    clear();
    out_.finish();
    std::fflush(stdout);
    tty_ = false;
  }

 private:
  void clear() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }
  void redraw() {
    if (!tty_ || status_.empty() || out_.line_open()) return;
    const std::string line = progress_.empty() ? status_ : status_ + "; " + progress_;
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  std::mutex mu_;
  bool tty_;
  bool shown_ = false;  // the status line is on the terminal
  std::string status_;
  std::string progress_;
  trainer::LogLineWriter out_{
      [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); }};
};

void print_final(const boost::json::value& status) {
  std::fprintf(stderr, "%s\n", trainer::local::summary_line(status).c_str());
  if (auto progress = trainer::local::progress_line(status); !progress.empty()) {
    std::fprintf(stderr, "%s\n", progress.c_str());
  }
  const auto& o = status.as_object();
  if (const auto* c = o.if_contains("conditions"); c != nullptr && c->is_array()) {
    for (const auto& cond : c->get_array()) {
      const auto& co = cond.as_object();
      std::fprintf(stderr, "condition %s=%s reason=%s: %s\n", co.at("type").as_string().c_str(),
                   co.at("status").as_string().c_str(), co.at("reason").as_string().c_str(),
                   co.at("message").as_string().c_str());
    }
  }
  std::fprintf(stderr, "run folder: %s\n", o.at("runDir").as_string().c_str());
}

int run_run(const Parsed& args) {
  const std::string run_dir = args.value("run-dir");
  const std::string isolation = args.value("isolation");
  trainer::local::ExecutorOptions options;
  if (isolation == "auto") {
    options.isolation = trainer::local::Isolation::kAuto;
  } else if (isolation == "namespaces") {
    options.isolation = trainer::local::Isolation::kNamespaces;
  } else {  // "host": the flag table admits nothing else
    options.isolation = trainer::local::Isolation::kHost;
  }
  options.pod_helper = args.value("pod-helper");

  const auto gates = feature_gates_flag(args);
  if (!gates) return gates.error();
  const auto framework = plugin_framework(args, *gates);
  if (!framework) return framework.error();
  auto docs = read_job_documents(args);
  if (!docs) return report_error(docs.error());
  auto ctx = make_render_context(args.value("uid"), std::nullopt);
  std::shared_ptr<const trainer::Framework> plugins = *framework;
  // With TrainJobStatus, the pods report progress to this process as they would to the
  // controller (docs/local.md, "Progress").
  if (gates->trainjob_status) {
    auto server = trainer::local::ProgressServer::start();
    if (!server) return report_error(server.error());
    plugins = std::make_shared<const trainer::Framework>((*server)->configure(ctx, *plugins));
    options.progress_server = std::move(*server);
  }
  // An OptimizationJob among the inputs: its trials run here instead (run_tuning.cpp).
  if (has_optimization_job(*docs)) {
    return run_tuning(args, std::move(*docs), plugins.get(), ctx, options);
  }
  trainer::RenderDocumentsOptions render_options;
  render_options.namespace_ = args.value("namespace");
  WarningPrinter warnings;
  render_options.on_warning = [&warnings](std::string_view w) { warnings.print(w); };
  render_options.strict_fields = args.enabled("strict");
  // The runtimes upstream installs by default ship with libtrainer; an input runtime wins.
  render_options.builtin_runtimes = true;
  render_options.framework = plugins.get();
  auto rendered = trainer::render_documents(*docs, ctx, render_options);
  if (!rendered) return report_error(rendered.error());
  if (!rendered->skipped_reason.empty()) {
    std::fprintf(stderr, "%s\n", rendered->skipped_reason.c_str());
    return kExitOk;
  }
  // The TrainJob itself carries what the JobSet does not: its name, activeDeadlineSeconds and
  // suspend.
  auto objects = rendered->objects;
  for (const auto& d : *docs) {
    const auto* o = d.if_object();
    if (o != nullptr && o->contains("kind") && o->at("kind") == "TrainJob") objects.push_back(d);
  }

  Console console;
  options.run_dir = run_dir.empty() ? default_run_dir(*docs) : run_dir;
  options.on_log = [&console](const trainer::local::LogLine& l) { console.line(l); };
  options.on_warning = print_warning;
  // The supervisor's final status (`finished`) wakes the loop below at once.
  const int finished_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  options.on_status = [&console, finished_fd](const boost::json::value& s) {
    if (auto progress = trainer::local::progress_line(s); !progress.empty()) {
      console.progress(progress);
    }
    console.status(trainer::local::summary_line(s));
    const auto* finished = s.as_object().if_contains("finished");
    if (finished != nullptr && finished->is_bool() && finished->get_bool() && finished_fd >= 0) {
      const std::uint64_t one = 1;
      (void)!write(finished_fd, &one, sizeof one);
    }
  };

  // Blocked before the executor's thread exists, so only the signalfd below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const int signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);

  auto executor = trainer::local::Executor::start(objects, std::move(options));
  if (!executor) return report_error(executor.error());
  auto& exec = **executor;
  for (;;) {
    if (exec.status().as_object().at("finished").as_bool()) break;
    // A tick of one second refreshes the status line's elapsed time.
    pollfd fds[] = {{signal_fd, POLLIN, 0}, {finished_fd, POLLIN, 0}};
    (void)poll(fds, 2, 1000);
    signalfd_siginfo si{};
    if (signal_fd >= 0 && read(signal_fd, &si, sizeof si) == sizeof si) {
      console.status("stopping every pod (signal " + std::to_string(si.ssi_signo) + ")");
      exec.cancel();
    } else {
      console.status(trainer::local::summary_line(exec.status()));
    }
  }
  for (const int fd : {signal_fd, finished_fd}) {
    if (fd >= 0) close(fd);
  }
  console.done();
  const auto status = exec.status();
  print_final(status);
  warnings.print_ignored_fields();
  switch (exec.phase()) {
    case trainer::local::Phase::kComplete: return kExitOk;
    case trainer::local::Phase::kSuspended: return kExitSuspended;
    default: return kExitFailed;
  }
}

}  // namespace

const Command& run_command() {
  static const Command command{
      "run",
      "render a TrainJob and run it on this machine (docs/local.md)",
      "Renders the one TrainJob among the inputs (as `trainerctl render --builtin-runtimes`\n"
      "does) and runs it on this machine: one process per pod, the host's programs (images are\n"
      "not pulled). Exit status: 0 Complete, 1 Failed (or the inputs were rejected), 3 Suspended\n"
      "(nothing ran). SIGINT/SIGTERM stop every pod (grace period, then SIGKILL); the run ends\n"
      "Failed. Training Operator v1 jobs among the inputs are converted first ('trainerctl\n"
      "convert'). An OptimizationJob among the inputs (with its trials' runtime) is tuned\n"
      "instead: its trial TrainJobs run here, parallelTrials at a time, each in\n"
      "<run-dir>/<trial>, with a table of the trials (a line per change when stderr is not a\n"
      "terminal), then the best trial; the table fits the terminal's width (-o wide: every\n"
      "value whole); <run-dir>/results.json holds every trial and the status (docs/tuning.md).\n"
      "Exit status then: 0 Complete, 1 Failed or stopped.",
      {},
      {kFilenameFlag,
       {"run-dir", '\0', "DIR",
        "the run folder (default: ./trainer-runs/<trainjob>-<time>); must be new"},
       kNamespaceFlag,
       {"uid", '\0', "UID", "TrainJob UID (default: a random UUID)"},
       {"isolation",
        '\0',
        "auto|namespaces|host",
        "auto: namespaces when root; host: no namespaces, pod hostnames become 127.0.0.1",
        {"auto", "namespaces", "host"},
        "auto"},
       {"pod-helper", '\0', "PATH",
        "the trainer-pod helper (default: beside trainerctl or the build tree's)"},
       {"output",
        'o',
        "wide",
        "wide: an OptimizationJob's trial table with every value whole, not fitted to the "
        "terminal",
        {"wide"}},
       kFeatureGatesFlag,
       kPluginFlag,
       kStrictFlag},
      run_run};
  return command;
}

}  // namespace trainerctl
