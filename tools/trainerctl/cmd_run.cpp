// SPDX-License-Identifier: Apache-2.0
// `trainerctl run`: render, then execute here with trainer::local::Executor.
#include "commands.hpp"
#include "input_files.hpp"
#include "output.hpp"
#include "render_context.hpp"

#include "trainer/local.hpp"
#include "trainer/render.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string_view>

#include <unistd.h>

namespace trainerctl {
namespace {

constexpr std::string_view kUsage =
    "usage: trainerctl run -f FILE [-f FILE ...] [--run-dir DIR] [--namespace NS] [--uid UID]\n"
    "                      [--isolation auto|namespaces|host] [--pod-helper PATH]\n"
    "  Renders the one TrainJob among the inputs (as `trainerctl render` does) and runs it on\n"
    "  this machine: one process per pod, the host's programs (images are not pulled).\n"
    "  --run-dir     the run folder (default: ./trainer-runs/<trainjob>-<time>); must be new\n"
    "  --isolation   auto (default: namespaces when root), namespaces, or host (no namespaces;\n"
    "                pod hostnames become 127.0.0.1)\n"
    "  --pod-helper  the trainer-pod helper (default: beside trainerctl or the build tree's)\n"
    "  Exit status: 0 Complete, 1 Failed (or the inputs were rejected), 3 Suspended (nothing\n"
    "  ran). SIGINT/SIGTERM stop every pod (grace period, then SIGKILL); the run ends Failed.\n";

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

// The terminal: interleaved pod lines and, on a TTY, one live status line kept at the bottom.
class Console {
 public:
  Console() : tty_(isatty(STDERR_FILENO) == 1) {}
  void line(const trainer::local::LogLine& l) {
    std::lock_guard<std::mutex> lock(mu_);
    clear();
    std::fprintf(stdout, "[%s] %s\n", l.prefix.c_str(), l.text.c_str());
    std::fflush(stdout);
    redraw();
  }
  void status(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = s;
    redraw();
  }
  void done() {
    std::lock_guard<std::mutex> lock(mu_);
    clear();
    tty_ = false;
  }

 private:
  void clear() {
    if (tty_ && !status_.empty()) std::fputs("\r\033[K", stderr);
  }
  void redraw() {
    if (!tty_ || status_.empty()) return;
    std::fprintf(stderr, "\r\033[K%s", status_.c_str());
    std::fflush(stderr);
  }
  std::mutex mu_;
  bool tty_;
  std::string status_;
};

void print_final(const boost::json::value& status) {
  std::fprintf(stderr, "%s\n", trainer::local::summary_line(status).c_str());
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

}  // namespace

int cmd_run(const Args& args) {
  std::vector<std::string> files;
  std::string run_dir, uid, ns, isolation = "auto", helper;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    const bool has_value = i + 1 < args.size();
    if ((a == "-f" || a == "--filename") && has_value) {
      files.push_back(args[++i]);
    } else if (a == "--run-dir" && has_value) {
      run_dir = args[++i];
    } else if (a == "--uid" && has_value) {
      uid = args[++i];
    } else if ((a == "--namespace" || a == "-n") && has_value) {
      ns = args[++i];
    } else if (a == "--isolation" && has_value) {
      isolation = args[++i];
    } else if (a == "--pod-helper" && has_value) {
      helper = args[++i];
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage.data(), stdout);
      return kExitOk;
    } else {
      std::fprintf(stderr, "error: unexpected argument \"%s\"\n%s", a.c_str(), kUsage.data());
      return kExitUsage;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "error: at least one -f FILE is required\n%s", kUsage.data());
    return kExitUsage;
  }
  trainer::local::ExecutorOptions options;
  if (isolation == "auto") {
    options.isolation = trainer::local::Isolation::kAuto;
  } else if (isolation == "namespaces") {
    options.isolation = trainer::local::Isolation::kNamespaces;
  } else if (isolation == "host") {
    options.isolation = trainer::local::Isolation::kHost;
  } else {
    std::fprintf(stderr, "error: --isolation must be auto, namespaces or host, not \"%s\"\n",
                 isolation.c_str());
    return kExitUsage;
  }

  auto docs = read_documents(files);
  if (!docs) return report_error(docs.error());
  const auto ctx = make_render_context(uid, std::nullopt);
  trainer::RenderDocumentsOptions render_options;
  render_options.namespace_ = ns;
  render_options.on_warning = print_warning;
  // The runtimes upstream installs by default ship with libtrainer; an input runtime wins.
  render_options.builtin_runtimes = true;
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
  options.pod_helper = helper;
  options.on_log = [&console](const trainer::local::LogLine& l) { console.line(l); };
  options.on_warning = print_warning;
  options.on_status = [&console](const boost::json::value& s) {
    console.status(trainer::local::summary_line(s));
  };

  // Blocked before the executor's thread exists, so only sigtimedwait below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto executor = trainer::local::Executor::start(objects, std::move(options));
  if (!executor) return report_error(executor.error());
  auto& exec = **executor;
  const timespec tick{1, 0};
  for (;;) {
    if (exec.status().as_object().at("finished").as_bool()) break;
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      console.status("stopping every pod (signal " + std::to_string(sig) + ")");
      exec.cancel();
    } else {
      console.status(trainer::local::summary_line(exec.status()));
    }
  }
  console.done();
  const auto status = exec.status();
  print_final(status);
  switch (exec.phase()) {
    case trainer::local::Phase::kComplete: return kExitOk;
    case trainer::local::Phase::kSuspended: return kExitSuspended;
    default: return kExitFailed;
  }
}

}  // namespace trainerctl
