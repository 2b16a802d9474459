// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's local-run section (include <trainer.hpp>, which includes this): abi::Run executes
// the objects rendered for one TrainJob on this machine, one process per pod, over the C ABI of
// trainer/local.h (docs/local.md: the pod model, the run folder, the lifecycle).
#pragma once

#include "trainer/abi_base.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace trainer::abi {

/// How pods are isolated (TRAINER_ISOLATION_*).
enum class Isolation : std::int32_t {
  kAuto = TRAINER_ISOLATION_AUTO,              ///< namespaces when permitted, else kHost
  kNamespaces = TRAINER_ISOLATION_NAMESPACES,  ///< own mount/UTS/PID namespaces, or kUnsupported
  kHost = TRAINER_ISOLATION_HOST,              ///< no namespaces; hostnames mean 127.0.0.1
};

/// Phases of a run (TRAINER_RUN_*); kSuspended, kComplete and kFailed are terminal.
enum class RunPhase : std::int32_t {
  kPending = TRAINER_RUN_PENDING,
  kRunning = TRAINER_RUN_RUNNING,
  kSuspended = TRAINER_RUN_SUSPENDED,
  kComplete = TRAINER_RUN_COMPLETE,
  kFailed = TRAINER_RUN_FAILED,
};

/// "Pending", "Running", "Suspended", "Complete", "Failed" ("Unknown" for other values).
[[nodiscard]] inline std::string_view run_phase_name(RunPhase phase) noexcept {
  return trainer_run_phase_name(static_cast<std::int32_t>(phase));
}

/// One complete line a pod wrote; views valid during the callback only.
struct LogLine {
  std::string_view prefix;  ///< the terminal prefix without brackets (`node-0-0`)
  std::string_view pod;     ///< the pod's name
  bool is_stderr = false;
  std::string_view text;  ///< without its newline
};

/// The TrainJobStatus progress endpoint of local runs (trainer_progress_server, docs/local.md
/// "Progress"): render with it (RenderOptions::progress_server, with `TrainJobStatus=true`) and
/// run with it (RunOptions::progress_server); the pods' progress posts become the run's
/// `trainerStatus`. Move-only owner; runs started with it keep it serving until they are gone.
class ProgressServer {
 public:
  /// Listens on `bind_address` ("" : 127.0.0.1) and `port` (0: a free one). Errors:
  /// kInvalidArgument (a bad address), kIo (the port is taken), kInternal.
  [[nodiscard]] static Result<ProgressServer> start(const std::string& bind_address = {},
                                                    std::uint16_t port = 0) {
    trainer_progress_server* server = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_progress_server_start(detail::c_str(bind_address), port, &server, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return ProgressServer(server);
  }
  /// The port it listens on.
  [[nodiscard]] std::uint16_t port() const noexcept {
    return trainer_progress_server_port(server_.get());
  }
  /// Its CA certificate (PEM), valid while this object lives.
  [[nodiscard]] std::string_view ca_cert() const noexcept {
    return trainer_progress_server_ca_cert(server_.get());
  }
  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_progress_server* raw() const noexcept { return server_.get(); }

 private:
  explicit ProgressServer(trainer_progress_server* server) : server_(server) {}
  struct Deleter {
    void operator()(trainer_progress_server* s) const noexcept { trainer_progress_server_free(s); }
  };
  std::unique_ptr<trainer_progress_server, Deleter> server_;
};

/// Options of Run::start() (trainer_run_options).
struct RunOptions {
  std::string run_dir;  ///< required: the run folder (created; must not hold a run)
  Isolation isolation = Isolation::kAuto;
  std::string pod_helper;  ///< the `trainer-pod` helper [the installed one, docs/local.md]
  /// Receives every line the pods write, on the run's supervisor thread, one at a time. Return
  /// false to cancel the run. An exception it throws cancels the run too, and Run::wait()
  /// rethrows it once the run has finished. It may call Run::phase(), status() and cancel(),
  /// not wait() or the Run's destructor. Empty: lines only go to the run folder's log files.
  std::function<bool(const LogLine&)> on_log;
  /// The progress server the objects were rendered with, borrowed for the call [none].
  const ProgressServer* progress_server = nullptr;
};

namespace detail {

/// The log callback and what it threw; owned by the library (log_user_data), freed with the run.
struct LogSink {
  std::function<bool(const LogLine&)> fn;
  std::exception_ptr thrown;  // written on the supervisor thread before the run finishes
};

inline trainer_status log_trampoline(void* user, const char* prefix, const char* pod,
                                     std::int32_t is_stderr, const char* text,
                                     std::size_t len) noexcept {
  auto* sink = static_cast<LogSink*>(user);
  try {
    const LogLine line{prefix, pod, is_stderr != 0, std::string_view(text, len)};
    return sink->fn(line) ? TRAINER_OK : TRAINER_E_USER;
  } catch (...) {
    if (!sink->thrown) sink->thrown = std::current_exception();
    return TRAINER_E_USER;  // cancels the run
  }
}
inline void log_sink_free(void* user) noexcept {
  delete static_cast<LogSink*>(user);
}

}  // namespace detail

/// A local execution of rendered objects (trainer_run). Move-only owner; every method may be
/// called from any thread at once. The destructor cancels a run still going and waits until its
/// pod processes are gone (each pod's grace period, then SIGKILL).
class Run {
 public:
  /// Starts executing `objects` (YAML stream or JSON: the JobSet and its ConfigMaps and Secrets,
  /// as render() produces them) and returns at once. Errors (nothing started): kInvalidArgument
  /// (no run_dir, a folder that holds a run), kParse, kInvalid (with field paths), kNotFound (a
  /// referenced ConfigMap/Secret/key, the pod helper), kUnsupported, kIo.
  [[nodiscard]] static Result<Run> start(std::string_view objects, const RunOptions& options) {
    trainer_run_options opts = TRAINER_RUN_OPTIONS_INIT;
    opts.run_dir = detail::c_str(options.run_dir);
    opts.isolation = static_cast<std::int32_t>(options.isolation);
    opts.pod_helper = detail::c_str(options.pod_helper);
    opts.progress_server =
        options.progress_server == nullptr ? nullptr : options.progress_server->raw();
    detail::LogSink* sink = nullptr;
    if (options.on_log) {
      // Released by the library (log_sink_free) with the run, or at once when the start fails.
      sink = new detail::LogSink{options.on_log, nullptr};
      opts.on_log = detail::log_trampoline;
      opts.log_user_data = sink;
      opts.log_user_data_free = detail::log_sink_free;
    }
    trainer_run* run = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_run_start(objects.data(), objects.size(), &opts, &run, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Run(run, sink);
  }

  Run(Run&& other) noexcept
      : run_(std::move(other.run_)), sink_(std::exchange(other.sink_, nullptr)) {}
  Run& operator=(Run&& other) noexcept {
    run_ = std::move(other.run_);
    sink_ = std::exchange(other.sink_, nullptr);
    return *this;
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() = default;

  /// Waits until the run has finished (kSuspended, kComplete or kFailed) and every pod process
  /// is gone, for at most `timeout` (std::nullopt: no limit; a negative one counts as zero), and
  /// returns the phase then. ErrorCode::kTimeout when the time passed first (the run goes on).
  /// Rethrows what the log callback threw, once the run has finished.
  [[nodiscard]] Result<RunPhase> wait(std::optional<std::chrono::milliseconds> timeout) {
    const std::int64_t ms =
        timeout ? std::max<std::int64_t>(0, detail::millis(*timeout)) : std::int64_t{-1};
    std::int32_t phase = TRAINER_RUN_FAILED;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_run_wait(run_.get(), ms, &phase, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    if (sink_ != nullptr && sink_->thrown) std::rethrow_exception(sink_->thrown);
    return static_cast<RunPhase>(phase);
  }

  /// wait() for at most `timeout` of any unit, rounded up to whole milliseconds
  /// (`run.wait(std::chrono::seconds(30))`, `run.wait(500us)`).
  template <class Rep, class Period>
  [[nodiscard]] Result<RunPhase> wait(std::chrono::duration<Rep, Period> timeout) {
    return wait(std::optional<std::chrono::milliseconds>(
        std::chrono::ceil<std::chrono::milliseconds>(timeout)));
  }

  /// The current phase (never blocks long).
  [[nodiscard]] RunPhase phase() const noexcept {
    return static_cast<RunPhase>(trainer_run_phase(run_.get()));
  }

  /// The run's status document (JSON): TrainJob conditions, jobsStatus, restarts, every pod.
  [[nodiscard]] Result<std::string> status() const {
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_run_status(run_.get(), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// Stops every pod (SIGTERM, the grace period, SIGKILL); the run ends kFailed with reason
  /// `Cancelled` unless it had finished. Returns at once.
  void cancel() noexcept { trainer_run_cancel(run_.get()); }

  /// The status document of the run folder `run_dir`, written by any process, running or
  /// finished (trainer_run_read_status); a run whose executor died reads as Failed with reason
  /// `ExecutorLost`. Errors: kNotFound (no run there), kParse.
  [[nodiscard]] static Result<std::string> read_status(const std::string& run_dir) {
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_run_read_status(run_dir.c_str(), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_run* raw() const noexcept { return run_.get(); }

 private:
  Run(trainer_run* owned, detail::LogSink* sink) noexcept : run_(owned), sink_(sink) {}

  struct Deleter {
    void operator()(trainer_run* r) const noexcept { trainer_run_free(r); }
  };
  std::unique_ptr<trainer_run, Deleter> run_;
  detail::LogSink* sink_;  // owned by the run (log_user_data), valid while run_ is
};

}  // namespace trainer::abi
