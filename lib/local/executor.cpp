// SPDX-License-Identifier: Apache-2.0
//
// The supervisor: one thread per run that carries out the lifecycle's actions. Pods are
// `trainer-pod init` processes (forked here, exec'd at once, so nothing but syscalls runs in a
// child of this possibly multi-threaded process); their exits arrive on pidfds, their output on
// pipes, cancellation on an eventfd, deadlines as poll timeouts: no busy loop.
#include "trainer/local.hpp"

#include "trainer/log_lines.hpp"

#include "local/env.hpp"
#include "local/lifecycle.hpp"
#include "local/liveness.hpp"
#include "local/plan.hpp"
#include "local/pod_launch.hpp"
#include "local/progress_registry.hpp"
#include "local/run_folder.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace trainer::local {
namespace json = boost::json;
using detail::Clock;

namespace {

// The longest a state change waits for its state.json write while the supervisor is kept busy.
constexpr std::chrono::milliseconds kStateDelay{100};

struct Stream {
  int fd = -1;
  LogLineSplitter lines;  // a line's unfinished end, at most kMaxLogLinePiece bytes
  bool is_stderr = false;
};

struct Proc {
  pid_t pid = -1;
  int pidfd = -1;
  int log_fd = -1;
  Stream out, err;
  int ready_fd = -1;
  std::string ready_buf;
  pid_t group = -1;  ///< the container's process group (host isolation), from the pod's report
  std::optional<std::chrono::steady_clock::time_point> kill_at;
};

}  // namespace

class Executor::Impl {
 public:
  Impl(ExecutorOptions options, detail::LaunchConfig config, detail::Plan plan)
      : options_(std::move(options)),
        config_(std::move(config)),
        lifecycle_(std::move(plan), Clock::now()) {}

  ~Impl() {
    detach_progress();
    for (auto& [i, p] : procs_) close_proc(p);
    if (wake_fd_ >= 0) close(wake_fd_);
    if (run_log_fd_ >= 0) close(run_log_fd_);
  }

  Result<void> init() {
    wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd_ < 0) return fail(ErrorCode::kIo, std::string("eventfd: ") + std::strerror(errno));
    run_log_fd_ = openat(config_.run_folder.get(), detail::kRunLogName,
                         O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (run_log_fd_ < 0) {
      return fail(ErrorCode::kIo, combined_log_path(config_.run_dir) + ": " + std::strerror(errno));
    }
    if (config_.progress) {
      const auto& plan = lifecycle_.plan();
      auto attached = config_.progress->impl().attach(plan.namespace_, plan.train_job,
                                                      [this](const json::object& trainer_status) {
                                                        {
                                                          std::lock_guard<std::mutex> lock(mu_);
                                                          trainer_status_ = trainer_status;
                                                        }
                                                        progress_pending_.store(true);
                                                        const std::uint64_t one = 1;
                                                        (void)!write(wake_fd_, &one, sizeof one);
                                                      });
      if (!attached) return tl::unexpected(std::move(attached.error()));
      attached_ = true;
    }
    publish();
    return {};
  }

  // Posts that come after the run ended are answered 404, as for a deleted TrainJob.
  void detach_progress() {
    if (!attached_) return;
    const auto& plan = lifecycle_.plan();
    config_.progress->impl().detach(plan.namespace_, plan.train_job);
    config_.progress->impl().revoke(config_.run_dir);
    attached_ = false;
  }

  // Threads count as processes (RLIMIT_NPROC, a cgroup's pids.max): a process out of them gets
  // an error value, and the run folder says that the run failed rather than pending for ever.
  Result<void> start_thread() {
    try {
      thread_ = std::thread([this] { run(); });
      return {};
    } catch (const std::system_error& e) {
      const std::string why = "starting the supervisor thread: " + e.code().message();
      {
        std::lock_guard<std::mutex> lock(mu_);
        lifecycle_.fail_to_start(why, Clock::now());
        done_ = true;
      }
      publish();
      return fail(ErrorCode::kIo, why);
    }
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  // Takes no lock: callable from the executor's own callbacks and from a thread that holds a
  // lock those callbacks take (the C ABI's log sink) without a lock-order inversion.
  void cancel() {
    cancel_requested_.store(true);
    const std::uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof one);
  }

  Phase wait(std::optional<std::chrono::milliseconds> timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    if (timeout) {
      cv_.wait_for(lock, *timeout, [this] { return done_; });
    } else {
      cv_.wait(lock, [this] { return done_; });
    }
    return lifecycle_.phase();
  }

  json::value status() const {
    std::lock_guard<std::mutex> lock(mu_);
    return snapshot_locked();
  }

  Phase phase() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lifecycle_.phase();
  }

  const std::string& run_dir() const { return config_.run_dir; }

 private:
  json::value snapshot_locked() const {
    auto s = lifecycle_.status(Clock::now());
    auto& o = s.as_object();
    o["runDir"] = config_.run_dir;
    o["isolation"] = config_.namespaces ? "namespaces" : "host";
    o["finished"] = done_;
    if (!trainer_status_.empty()) o["trainerStatus"] = trainer_status_;
    // Who runs the run: a reader of state.json tells a dead executor from a live one by this.
    o["executor"] = identity_;
    return s;
  }

  void publish() {
    json::value snapshot;
    {
      std::lock_guard<std::mutex> lock(mu_);
      snapshot = snapshot_locked();
    }
    // state.json is what `trainerctl status` and the rsh agent read; a failure to write it is
    // reported once, the run goes on.
    if (auto w = detail::write_state(config_.run_folder.get(), config_.run_dir, snapshot);
        !w && !state_write_failed_) {
      state_write_failed_ = true;
      warn(w.error().message);
    }
    deliver();
    if (options_.on_status) options_.on_status(snapshot);
  }

  // Callbacks never run under mu_ (they may call status() or cancel()): lines and warnings are
  // queued (supervisor thread only) and delivered by deliver() once the lock is released.
  void warn(std::string text) { outbox_.push_back(Outgoing{std::nullopt, std::move(text)}); }

  void deliver() {
    for (auto& out : outbox_) {
      if (out.line && options_.on_log) options_.on_log(*out.line);
      if (!out.line && options_.on_warning) options_.on_warning(out.warning);
    }
    outbox_.clear();
  }

  void close_proc(Proc& p) {
    for (int* fd : {&p.pidfd, &p.log_fd, &p.out.fd, &p.err.fd, &p.ready_fd}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }

  // One piece of a pod's line to run.log (the text of a whole read goes out in one write, see
  // flush_run_log) and to on_log.
  void emit(std::size_t pod, bool is_stderr, std::string_view text, LineEnd end) {
    const auto& pp = lifecycle_.plan().pods[pod];
    const auto& name = lifecycle_.pod(pod).name;
    // Each stream is a source of its own: stdout's unfinished line never takes stderr's text.
    const std::string source = name + (is_stderr ? "/2" : "/1");
    run_log_.write(source, "[" + pp.prefix + "] ", text, end);
    if (options_.on_log) {
      outbox_.push_back(Outgoing{LogLine{pp.prefix, name, is_stderr, std::string(text), end}, {}});
    }
  }

  void flush_run_log() {
    if (run_log_text_.empty()) return;
    (void)!write(run_log_fd_, run_log_text_.data(), run_log_text_.size());
    run_log_text_.clear();
  }

  // Reads what is there; returns false at EOF.
  bool drain(std::size_t pod, Proc& p, Stream& s) {
    char buf[16384];
    const ssize_t n = read(s.fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    const auto piece = [&](std::string_view text, LineEnd end) {
      emit(pod, s.is_stderr, text, end);
    };
    if (n <= 0) {
      s.lines.finish(piece);
      flush_run_log();
      close(s.fd);
      s.fd = -1;
      return false;
    }
    const std::string_view chunk(buf, static_cast<std::size_t>(n));
    if (p.log_fd >= 0) (void)!write(p.log_fd, chunk.data(), chunk.size());
    s.lines.feed(chunk, piece);
    flush_run_log();
    return true;
  }

  // Reads the pod's readiness pipe (non-blocking), one line per report: `pgid N` (host
  // isolation: the container's process group), `ok` (the container started) or `error: WHY`
  // (it cannot start; the exit follows). Closes it at end of file or when nothing is left to
  // read. Returns whether the pod's state changed.
  bool read_ready(std::size_t i, Proc& p, Clock::time_point now) {
    char buf[512];
    const ssize_t n = read(p.ready_fd, buf, sizeof buf);
    if (n > 0) {
      p.ready_buf.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      close(p.ready_fd);
      p.ready_fd = -1;
    }
    bool changed = false;
    for (auto nl = p.ready_buf.find('\n'); nl != std::string::npos; nl = p.ready_buf.find('\n')) {
      const std::string line = p.ready_buf.substr(0, nl);
      p.ready_buf.erase(0, nl + 1);
      if (line == "ok") {
        lifecycle_.pod_running(i, now);
        changed = true;
      } else if (line.rfind("error: ", 0) == 0) {
        // The pod's own stderr (its log) already has the line; the pod's status gets it as the
        // reason its container did not start.
        lifecycle_.pod_setup_failed(i, line.substr(7));
      } else if (line.rfind("pgid ", 0) == 0) {
        const long group = std::strtol(line.c_str() + 5, nullptr, 10);
        if (group > 1) p.group = static_cast<pid_t>(group);
      }
    }
    return changed;
  }

  // Creates the pods `starts`: every attempt's files first, then the helpers in a row. Returns
  // false when one could not be created (it then counts as a failed pod).
  bool start_pods(const std::vector<std::size_t>& starts) {
    std::vector<Result<detail::PreparedPod>> prepared;
    prepared.reserve(starts.size());
    for (const auto i : starts) {
      prepared.push_back(
          detail::prepare_pod(lifecycle_.plan(), i, lifecycle_.pod(i).name, config_));
    }
    auto launched = detail::start_pods(std::move(prepared), config_);
    bool all = true;
    for (std::size_t k = 0; k < starts.size(); ++k) {
      all = start_pod(starts[k], std::move(launched[k])) && all;
    }
    return all;
  }

  bool start_pod(std::size_t i, Result<detail::Launched> launched) {
    const auto now = Clock::now();
    if (!launched) {
      const std::string msg =
          "cannot start pod " + lifecycle_.pod(i).name + ": " + launched.error().message;
      emit(i, true, msg, LineEnd::kNewline);
      flush_run_log();
      lifecycle_.pod_start_failed(i, launched.error().message, now);
      return false;
    }
    Proc p;
    p.pid = launched->pid;
    p.pidfd = launched->pidfd;
    p.log_fd = launched->log_fd;
    p.out.fd = launched->stdout_fd;
    p.err.fd = launched->stderr_fd;
    p.err.is_stderr = true;
    p.ready_fd = launched->ready_fd;
    // Never block on it: a pod's processes could keep the write end open past its exit.
    if (p.ready_fd >= 0) fcntl(p.ready_fd, F_SETFL, fcntl(p.ready_fd, F_GETFL) | O_NONBLOCK);
    lifecycle_.pod(i).pid = p.pid;
    lifecycle_.pod(i).log = launched->log_path;
    procs_[i] = std::move(p);
    return true;
  }

  void stop_pod(std::size_t i) {
    const auto found = procs_.find(i);
    if (found == procs_.end() || found->second.pid <= 0) return;
    kill(found->second.pid, SIGTERM);
    // The pod's init applies the grace period itself; this is the backstop if it hangs.
    const auto grace = lifecycle_.plan().pods[i].grace_seconds;
    found->second.kill_at = std::chrono::steady_clock::now() + std::chrono::seconds(grace + 10);
  }

  void run() {
    bool cancelled = false;
    std::optional<std::chrono::steady_clock::time_point> drain_until;
    // state.json (and on_status) trail the state by at most what is already waiting to be
    // handled: a change is written once nothing more is ready, before the supervisor waits, so
    // the pods that start, get ready or exit together cost one write, and a reader never sees
    // an older state while the executor is idle. Output that keeps the supervisor busy delays
    // the write by at most kStateDelay.
    bool unpublished = false;
    auto unpublished_since = std::chrono::steady_clock::now();
    const auto changed_now = [&unpublished, &unpublished_since] {
      if (unpublished) return;
      unpublished = true;
      unpublished_since = std::chrono::steady_clock::now();
    };
    // Writes the state when it changed and either the supervisor is about to wait (`idle`) or
    // the change waited kStateDelay already.
    const auto publish_changes = [&](bool idle) {
      if (!unpublished) return;
      if (!idle && std::chrono::steady_clock::now() - unpublished_since < kStateDelay) return;
      publish();
      unpublished = false;
    };
    for (;;) {
      bool changed = false;
      bool start_failed = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        const auto now = Clock::now();
        if (cancel_requested_.load() && !cancelled) {
          cancelled = true;
          lifecycle_.cancel(now);
        }
        const auto actions = lifecycle_.step(now);
        start_failed = !start_pods(actions.start);
        for (const auto i : actions.stop) stop_pod(i);
        changed = !actions.start.empty() || !actions.stop.empty();
      }
      if (changed) changed_now();
      deliver();
      // A pod that could not be created changed the state without any descriptor to wake the
      // poll below: step again at once (each failure counts toward backoffLimit, so this ends),
      // still writing the state at least every kStateDelay.
      if (start_failed) {
        publish_changes(false);
        continue;
      }

      bool pods_gone = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        pods_gone = lifecycle_.finished();
      }
      if (pods_gone) {
        // Output still in flight after the last exit: read it, but never wait forever on a
        // pipe some escaped process holds open.
        if (!drain_until) drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        const bool open_pipes = std::any_of(procs_.begin(), procs_.end(), [](const auto& kv) {
          return kv.second.out.fd >= 0 || kv.second.err.fd >= 0;
        });
        // The final publish below writes the last state.
        if (!open_pipes || std::chrono::steady_clock::now() >= *drain_until) break;
      }

      std::vector<pollfd> fds{{wake_fd_, POLLIN, 0}};
      std::vector<std::pair<std::size_t, int>> owners{{SIZE_MAX, 0}};
      for (auto& [i, p] : procs_) {
        const int kinds[] = {p.pidfd, p.out.fd, p.err.fd, p.ready_fd};
        for (int k = 0; k < 4; ++k) {
          if (kinds[k] < 0) continue;
          fds.push_back({kinds[k], POLLIN, 0});
          owners.emplace_back(i, k);
        }
      }
      int timeout_ms = -1;
      const auto consider = [&](std::chrono::milliseconds ms) {
        const int v = static_cast<int>(std::clamp<long long>(ms.count(), 0, 60000));
        if (timeout_ms < 0 || v < timeout_ms) timeout_ms = v;
      };
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (auto d = lifecycle_.next_deadline()) {
          consider(std::chrono::duration_cast<std::chrono::milliseconds>(*d - Clock::now()) +
                   std::chrono::milliseconds(5));
        }
      }
      const auto steady_now = std::chrono::steady_clock::now();
      for (const auto& [i, p] : procs_) {
        if (p.kill_at) {
          consider(std::chrono::duration_cast<std::chrono::milliseconds>(*p.kill_at - steady_now));
        }
      }
      if (drain_until) {
        consider(std::chrono::duration_cast<std::chrono::milliseconds>(*drain_until - steady_now));
      }
      int ready = poll(fds.data(), fds.size(), 0);
      publish_changes(ready == 0);
      if (ready == 0) ready = poll(fds.data(), fds.size(), timeout_ms);
      if (ready < 0 && errno != EINTR) break;

      std::lock_guard<std::mutex> lock(mu_);
      const auto now = Clock::now();
      for (std::size_t f = 0; ready > 0 && f < fds.size(); ++f) {
        if (fds[f].revents == 0) continue;
        if (f == 0) {
          std::uint64_t v = 0;
          (void)!read(wake_fd_, &v, sizeof v);
          if (progress_pending_.exchange(false)) changed = true;
          continue;
        }
        const auto [i, kind] = owners[f];
        auto& p = procs_[i];
        if (kind == 0) {
          int status = 0;
          const pid_t waited = waitpid(p.pid, &status, WNOHANG);
          // ECHILD: someone else reaped it (the embedding program ignores SIGCHLD, so the
          // kernel does): the pidfd stays readable, the process is gone, its status is lost.
          const bool lost = waited < 0 && errno == ECHILD;
          if (waited == p.pid || lost) {
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            if (lost) {
              code = 255;
              warn("the exit status of pod " + lifecycle_.pod(i).name +
                   " was reaped elsewhere (is SIGCHLD ignored in this process?); counted as 255");
            }
            // An init killed outright (the backstop, the OOM killer) could not end the
            // container's group: end it here. While a member lives, the group id is not reused.
            if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && p.group > 1) {
              kill(-p.group, SIGKILL);
            }
            close(p.pidfd);
            p.pidfd = -1;
            p.pid = -1;
            p.group = -1;
            p.kill_at.reset();
            // What the pod reported before it ended (a setup error) may not have been read
            // yet: the pidfd can be served before the pipe in the same round.
            for (int reads = 0; p.ready_fd >= 0 && reads < 16; ++reads) read_ready(i, p, now);
            if (p.ready_fd >= 0) {
              close(p.ready_fd);
              p.ready_fd = -1;
            }
            // The attempt's tokens end with it, as a bound token with its pod.
            if (config_.progress) {
              config_.progress->impl().revoke(config_.run_dir, lifecycle_.pod(i).name);
            }
            lifecycle_.pod_exited(i, code, now);
            changed = true;
          }
        } else if (kind == 1 || kind == 2) {
          drain(i, p, kind == 1 ? p.out : p.err);
        } else {
          changed = read_ready(i, p, now) || changed;
        }
      }
      const auto steady = std::chrono::steady_clock::now();
      for (auto& [i, p] : procs_) {
        if (p.kill_at && steady >= *p.kill_at && p.pid > 0) {
          kill(p.pid, SIGKILL);
          p.kill_at.reset();
        }
      }
      mu_.unlock();
      if (changed) changed_now();
      deliver();
      mu_.lock();
    }
    // Anything still alive here (a poll failure): kill it, so nothing outlives the run.
    for (auto& [i, p] : procs_) {
      if (p.pid > 0) {
        kill(p.pid, SIGKILL);
        if (p.group > 1) kill(-p.group, SIGKILL);
        waitpid(p.pid, nullptr, 0);
        std::lock_guard<std::mutex> lock(mu_);
        lifecycle_.pod_exited(i, 128 + SIGKILL, Clock::now());
      }
      // A pipe still open (an escaped process holds it past the drain bound): what its stream
      // holds of an unfinished line is its last line.
      // A copy: C++17 lambdas cannot capture a structured binding (clang refuses it).
      const auto pod = i;
      for (Stream* s : {&p.out, &p.err}) {
        if (s->fd < 0) continue;
        s->lines.finish(
            [&](std::string_view text, LineEnd end) { emit(pod, s->is_stderr, text, end); });
      }
      close_proc(p);
    }
    run_log_.finish();
    flush_run_log();
    detach_progress();
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    publish();
    cv_.notify_all();
  }

  ExecutorOptions options_;
  detail::LaunchConfig config_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  detail::Lifecycle lifecycle_;
  std::map<std::size_t, Proc> procs_;  // supervisor thread only
  bool done_ = false;
  std::atomic<bool> cancel_requested_{false};
  json::object trainer_status_;  // the latest progress post (under mu_)
  std::atomic<bool> progress_pending_{false};
  bool attached_ = false;  // to config_.progress, for this run's TrainJob
  struct Outgoing {
    std::optional<LogLine> line;  ///< a pod's line, or else
    std::string warning;          ///< a warning
  };
  std::vector<Outgoing> outbox_;  // supervisor thread only
  bool state_write_failed_ = false;
  const json::object identity_ = detail::executor_identity();
  int wake_fd_ = -1;
  int run_log_fd_ = -1;
  std::string run_log_text_;  // what the supervisor has yet to write to run.log
  LogLineWriter run_log_{[this](std::string_view text) { run_log_text_.append(text); }};
  std::thread thread_;
};

Executor::Executor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Executor::~Executor() {
  if (!impl_) return;
  impl_->cancel();
  impl_->join();
}

Result<std::unique_ptr<Executor>> Executor::start(const std::vector<json::value>& objects,
                                                  ExecutorOptions options) {
  auto plan = detail::make_plan(objects);
  if (!plan) return tl::unexpected(std::move(plan.error()));
  auto config = detail::prepare_run(*plan, options);
  if (!config) return tl::unexpected(std::move(config.error()));
  if (options.on_warning) {
    for (const auto& w : plan->warnings) options.on_warning(w);
    for (const auto& w : config->warnings) options.on_warning(w);
  }
  auto impl = std::make_unique<Impl>(std::move(options), std::move(*config), std::move(*plan));
  if (auto ok = impl->init(); !ok) return tl::unexpected(std::move(ok.error()));
  if (auto started = impl->start_thread(); !started) {
    return tl::unexpected(std::move(started.error()));
  }
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

Phase Executor::wait(std::optional<std::chrono::milliseconds> timeout) {
  return impl_->wait(timeout);
}
json::value Executor::status() const {
  return impl_->status();
}
Phase Executor::phase() const {
  return impl_->phase();
}
void Executor::cancel() {
  impl_->cancel();
}
const std::string& Executor::run_dir() const noexcept {
  return impl_->run_dir();
}

}  // namespace trainer::local
