// SPDX-License-Identifier: Apache-2.0
//
// Local execution: runs the objects `render()` produced for one TrainJob (the JobSet and its
// ConfigMaps/Secrets) on this machine, one process per pod, with the env contract the cluster
// gives (PET_*, JAX_*, DMLC_*, OMPI_*, ranks from the job-completion index). See docs/local.md
// for the pod model (namespaces, /etc/hosts, volumes), the MPI rsh agent, the fallback without
// privileges and the run folder layout.
//
//   auto exec = trainer::local::Executor::start(rendered.objects, options);   // non-blocking
//   exec.value()->wait(std::nullopt);                                         // until finished
//   exec.value()->status();                                                   // JSON snapshot
#pragma once

#include "trainer/error.hpp"
#include "trainer/log_lines.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::local {

class ProgressServer;  // trainer/local_progress.hpp

/// How pods are isolated from each other.
enum class Isolation {
  /// Namespaces when this process may create them (CAP_SYS_ADMIN), else the host fallback with
  /// a warning.
  kAuto,
  /// Each pod in its own mount, UTS and PID namespace: hostname = pod hostname, volumes bound at
  /// their mountPath, a generated /etc/hosts mapping every pod hostname to its own 127.0.1.N.
  /// `start` fails with `kUnsupported` when namespaces cannot be created.
  kNamespaces,
  /// No namespaces: pod hostnames are rewritten to 127.0.0.1 in the env and args, volume
  /// mountPaths are not created (programs see the host's paths), hostnames are the host's.
  kHost,
};

/// The outcome of a run, as the TrainJob conditions say it.
enum class Phase {
  kPending,    ///< started, no pod has run yet
  kRunning,    ///< at least one pod started, no terminal condition yet
  kSuspended,  ///< the JobSet is suspended (`spec.suspend`): nothing runs; terminal locally
  kComplete,   ///< TrainJob condition `Complete` = True
  kFailed,     ///< TrainJob condition `Failed` = True (reason in the status)
};

/// "Pending", "Running", "Suspended", "Complete", "Failed".
[[nodiscard]] const char* to_string(Phase phase) noexcept;

/// One line a pod wrote, or a piece of one, as delivered to `ExecutorOptions::on_log`: a stream
/// is cut at `\n`, at a `\r` that is not part of `\r\n` (a progress bar's redraw) and after
/// kMaxLogLinePiece bytes of one line (trainer::LogLineSplitter), so an endless line neither
/// waits nor grows. `LogLineWriter` writes them as `trainerctl run` does.
struct LogLine {
  /// `<replicatedJob>-<jobIndex>-<podIndex>`, the terminal prefix without brackets.
  std::string prefix;
  /// The pod's name (`<jobset>-<replicatedJob>-<jobIndex>-<podIndex>-<attempt>`).
  std::string pod;
  bool is_stderr = false;
  /// The text without its terminator (a final unterminated line is delivered at pod exit).
  std::string text;
  /// How the piece ended: kNewline (a line), kCarriageReturn (a redraw), kNone (a line longer
  /// than kMaxLogLinePiece goes on in the next piece of the same pod and stream).
  LineEnd end = LineEnd::kNewline;
};

/// Options of `Executor::start`.
struct ExecutorOptions {
  /// The run folder (created when missing). It must not hold a previous run (`state.json`).
  /// Required.
  std::string run_dir;
  Isolation isolation = Isolation::kAuto;
  /// The `trainer-pod` helper executable that becomes each pod's init process and serves as the
  /// MPI rsh agent. Empty: `$TRAINER_POD_HELPER`, then `trainer-pod` beside the running
  /// executable, in the installed helper folder seen from it (`../libexec/libtrainer/`) or from
  /// libtrainer.so, then, for programs of a build tree only, that build tree's copy
  /// (docs/bindings.md, "Install layout").
  std::string pod_helper;
  /// Host environment variables a container gets when its spec does not set them (so host
  /// programs are found: the image is not pulled, the host's programs run).
  std::vector<std::string> host_env = {"PATH", "LD_LIBRARY_PATH"};
  /// Every line (or piece of one, see LogLine) of every pod, in arrival order. Called from the
  /// supervisor thread, never concurrently with itself, and never under the Executor's lock: it may
  /// call `status`, `phase` and `cancel`, but not `wait` (nor destroy the Executor).
  std::function<void(const LogLine&)> on_log;
  /// Warnings (the host fallback, unsupported fields ignored locally). Called from `start`'s
  /// thread or the supervisor thread, never concurrently with itself.
  std::function<void(std::string_view)> on_warning;
  /// Called from the supervisor thread after every status change with `Executor::status()`'s
  /// value (a progress post included); never concurrently with itself.
  std::function<void(const boost::json::value&)> on_status;
  /// The TrainJobStatus progress server (trainer/local_progress.hpp) whose `configure` the
  /// objects were rendered with; runs may share one. It issues the pods' projected tokens (one
  /// per pod attempt, ended with it), resolves its service name to 127.0.0.1 in every pod, and
  /// the TrainJob's posts become `status()`'s `trainerStatus`. Null: a projected
  /// `serviceAccountToken` is refused (`kUnsupported`, its field path).
  std::shared_ptr<ProgressServer> progress_server;
};

/// A running TrainJob. Created by `start`; every member function is thread-safe. Destroying an
/// Executor cancels the run and waits until every pod process is gone.
class Executor {
 public:
  /// Validates the objects (exactly one JobSet; ConfigMaps/Secrets it references; the fields
  /// the executor needs), prepares the run folder (volumes, hosts file, state.json) and starts
  /// the supervisor thread, which starts pods in `dependsOn` order. Returns at once.
  /// Errors: `kInvalidArgument` (no run_dir; run_dir holds a previous run), `kInvalid` (the
  /// objects, with field paths such as `JobSet.spec.replicatedJobs[0].template...`), `kNotFound`
  /// (a referenced ConfigMap/Secret/key not among the objects, or the pod helper), `kUnsupported`
  /// (env sources or volumes that have no local meaning; namespaces required but unavailable),
  /// `kIo` (the run folder).
  [[nodiscard]] static Result<std::unique_ptr<Executor>> start(
      const std::vector<boost::json::value>& objects, ExecutorOptions options);

  /// Waits until the run has finished (Complete, Failed or Suspended) and every pod process is
  /// gone, or until `timeout` (none: no limit). Returns the phase then (a non-terminal phase
  /// when the timeout passed first).
  Phase wait(std::optional<std::chrono::milliseconds> timeout);

  /// A snapshot of the run: the document `state.json` holds (see docs/local.md): TrainJob name,
  /// `phase`, `conditions` (TrainJob conditions: type, status, reason, message,
  /// lastTransitionTime), `jobsStatus`, `trainerStatus` (the latest progress post, when one
  /// came), `restarts`, counts, every pod with its hostname,
  /// address, pid, phase, exit code, termination `reason` (`Completed`, `Error`, `StartError`)
  /// and `message`, and log file, and `executor` (the process running the run: pid, start time,
  /// boot id, PID namespace; see `read_status`).
  [[nodiscard]] boost::json::value status() const;

  /// The current phase (cheaper than `status()`).
  [[nodiscard]] Phase phase() const;

  /// Stops every pod (SIGTERM, the pod's grace period, then SIGKILL) and ends the run as Failed
  /// with reason `Cancelled` unless it already finished. Returns at once; `wait` observes the
  /// end. Safe to call more than once and from a signal-watching thread.
  void cancel();

  /// The run folder (absolute).
  [[nodiscard]] const std::string& run_dir() const noexcept;

  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  Executor(Executor&&) = delete;
  Executor& operator=(Executor&&) = delete;
  ~Executor();

  class Impl;

 private:
  explicit Executor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads `<run_dir>/state.json` (written by a running or finished Executor, possibly of another
/// process). A run whose executor process is gone without finishing it (killed; a later process
/// with the same pid is told apart by its start time) reads as `Failed` with the condition reason
/// `ExecutorLost`, its unfinished pods `Failed` with reason `ExecutorLost`, and
/// `executorLost: true`; the file is not changed. Errors: `kNotFound` (no run there), `kParse`
/// (unreadable state).
[[nodiscard]] Result<boost::json::value> read_status(const std::string& run_dir);

/// The path of a pod's log file in a run folder. `pod` is a pod name, a pod hostname or a
/// terminal prefix (`node-0-0`); for the latter two, the latest attempt. Errors: `kNotFound`.
[[nodiscard]] Result<std::string> pod_log_path(const std::string& run_dir, std::string_view pod);

/// The path of the run's combined log (every pod's lines with their prefixes, in arrival order).
[[nodiscard]] std::string combined_log_path(const std::string& run_dir);

/// One line of status for terminals: `pods: 1 pending, 2 running, 0 succeeded, 0 failed;
/// restarts: 0; 12s`, computed from a `status()` document.
[[nodiscard]] std::string summary_line(const boost::json::value& status);

/// The latest progress post of a `status()` document for terminals: `progress: 40%, 1m30s left,
/// loss=0.25 accuracy=0.9` (the parts the post had); empty when none came.
[[nodiscard]] std::string progress_line(const boost::json::value& status);

}  // namespace trainer::local
