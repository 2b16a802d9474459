// SPDX-License-Identifier: Apache-2.0
// trainer_run_*: the C face of trainer::local::Executor. Every body goes through the C ABI's
// exception guard; errors become owned trainer_error objects.
#include "capi/capi.hpp"
#include "capi/options_version.hpp"
#include "trainer/codec.hpp"
#include "trainer/local.hpp"

#include <boost/json/serialize.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace json = boost::json;
namespace local = trainer::local;
using trainer::capi::bad_argument;
using trainer::capi::guard;
using trainer::capi::guard_value;
using trainer::capi::guard_void;
using trainer::capi::set_error;

// The caller's log callback and its user data (released exactly once), and the executor that a
// callback returning an error stops. The callback runs on the supervisor thread and may fire
// before start() has returned the executor, so a stop request is remembered until attach().
struct LogSink {
  trainer_run_log_fn fn = nullptr;
  void* user_data = nullptr;
  void (*user_data_free)(void*) = nullptr;

  // Called from the supervisor thread inside the executor's log delivery, where the executor
  // cannot be cancelled synchronously: a thread of our own does it.
  void request_stop() {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (stop_requested) return;
      stop_requested = true;
    }
    stopper = std::thread([this] {
      const std::lock_guard<std::mutex> lock(mutex);
      if (executor != nullptr) executor->cancel();
    });
  }
  void attach(local::Executor* exec) {
    const std::lock_guard<std::mutex> lock(mutex);
    executor = exec;
    if (stop_requested && executor != nullptr) executor->cancel();
  }
  // Before the executor goes: no stop request reaches it afterwards.
  void detach() {
    attach(nullptr);
    if (stopper.joinable()) stopper.join();
  }

  LogSink() = default;
  LogSink(const LogSink&) = delete;
  LogSink& operator=(const LogSink&) = delete;
  ~LogSink() {
    if (stopper.joinable()) stopper.join();
    if (user_data_free != nullptr) user_data_free(user_data);
  }

 private:
  std::mutex mutex;
  local::Executor* executor = nullptr;
  bool stop_requested = false;
  std::thread stopper;
};

int32_t phase_value(local::Phase phase) {
  return static_cast<int32_t>(phase);
}

static_assert(static_cast<int>(local::Phase::kPending) == TRAINER_RUN_PENDING &&
                  static_cast<int>(local::Phase::kRunning) == TRAINER_RUN_RUNNING &&
                  static_cast<int>(local::Phase::kSuspended) == TRAINER_RUN_SUSPENDED &&
                  static_cast<int>(local::Phase::kComplete) == TRAINER_RUN_COMPLETE &&
                  static_cast<int>(local::Phase::kFailed) == TRAINER_RUN_FAILED,
              "TRAINER_RUN_* mirror trainer::local::Phase");

}  // namespace

struct trainer_run {
  // Declared first so it outlives the executor, whose supervisor thread calls into it.
  std::shared_ptr<LogSink> sink;
  std::unique_ptr<local::Executor> executor;
};

extern "C" {

trainer_status trainer_progress_server_start(const char* bind_address, uint16_t port,
                                             trainer_progress_server** out, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (out == nullptr) return bad_argument(err, "out is NULL");
    *out = nullptr;
    local::ProgressServerOptions options;
    if (bind_address != nullptr && *bind_address != '\0') options.bind_address = bind_address;
    options.port = port;
    auto started = local::ProgressServer::start(std::move(options));
    if (!started) return set_error(err, started.error());
    *out = new trainer_progress_server{std::move(*started)};
    return TRAINER_OK;
  });
}

uint16_t trainer_progress_server_port(const trainer_progress_server* server) {
  return guard_value<uint16_t>(
      0, [&]() -> uint16_t { return server == nullptr ? 0 : server->server->port(); });
}

const char* trainer_progress_server_ca_cert(const trainer_progress_server* server) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    return server == nullptr ? nullptr : server->server->ca_cert_pem().c_str();
  });
}

void trainer_progress_server_free(trainer_progress_server* server) {
  guard_void([&] { delete server; });
}

trainer_status trainer_run_start(const char* objects, size_t len,
                                 const trainer_run_options* options, trainer_run** out,
                                 trainer_error** err) {
  // The caller's user data is ours from here on, whatever happens.
  auto sink = std::make_shared<LogSink>();
  const bool readable = options != nullptr &&
                        trainer::capi::known_version(options->version, TRAINER_RUN_OPTIONS_VERSION);
  if (readable) {
    sink->fn = options->on_log;
    sink->user_data = options->log_user_data;
    sink->user_data_free = options->log_user_data_free;
  }
  return guard(err, [&]() -> trainer_status {
    if (objects == nullptr && len != 0) return bad_argument(err, "objects is NULL");
    if (out == nullptr) return bad_argument(err, "out is NULL");
    if (options == nullptr) return bad_argument(err, "options is NULL (run_dir is required)");
    if (!readable) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_run_options", options->version,
                                                  TRAINER_RUN_OPTIONS_VERSION));
    }
    if (options->run_dir == nullptr || *options->run_dir == '\0') {
      return bad_argument(err, "trainer_run_options.run_dir is required");
    }
    local::ExecutorOptions eo;
    eo.run_dir = options->run_dir;
    switch (options->isolation) {
      case TRAINER_ISOLATION_AUTO: eo.isolation = local::Isolation::kAuto; break;
      case TRAINER_ISOLATION_NAMESPACES: eo.isolation = local::Isolation::kNamespaces; break;
      case TRAINER_ISOLATION_HOST: eo.isolation = local::Isolation::kHost; break;
      default:
        return bad_argument(err, "trainer_run_options.isolation: unknown value " +
                                     std::to_string(options->isolation));
    }
    if (options->pod_helper != nullptr) eo.pod_helper = options->pod_helper;
    // A version 1 struct ends before `progress_server`.
    if (options->version >= 2 && options->progress_server != nullptr) {
      eo.progress_server = options->progress_server->server;
    }
    auto parsed =
        trainer::capi::read_objects(std::string_view(objects == nullptr ? "" : objects, len));
    if (!parsed) return set_error(err, parsed.error());

    auto run = std::make_unique<trainer_run>();
    run->sink = sink;
    if (sink->fn != nullptr) {
      eo.on_log = [sink](const local::LogLine& line) {
        // The callback has no end argument: a redraw keeps its `\r` (trainer/local.h).
        std::string redraw;
        std::string_view text = line.text;
        if (line.end == trainer::LineEnd::kCarriageReturn) {
          redraw = line.text + "\r";
          text = redraw;
        }
        const trainer_status st = sink->fn(sink->user_data, line.prefix.c_str(), line.pod.c_str(),
                                           line.is_stderr ? 1 : 0, text.data(), text.size());
        if (st != TRAINER_OK) sink->request_stop();
      };
    }
    auto started = local::Executor::start(*parsed, std::move(eo));
    if (!started) return set_error(err, started.error());
    run->executor = std::move(*started);
    sink->attach(run->executor.get());
    *out = run.release();
    return TRAINER_OK;
  });
}

trainer_status trainer_run_wait(trainer_run* run, int64_t timeout_ms, int32_t* phase,
                                trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (run == nullptr) return bad_argument(err, "run is NULL");
    std::optional<std::chrono::milliseconds> timeout;
    if (timeout_ms >= 0) timeout = std::chrono::milliseconds(timeout_ms);
    const local::Phase p = run->executor->wait(timeout);
    if (phase != nullptr) *phase = phase_value(p);
    const bool finished =
        p == local::Phase::kComplete || p == local::Phase::kFailed || p == local::Phase::kSuspended;
    if (!finished) {
      return set_error(err, TRAINER_E_TIMEOUT,
                       "the run did not finish within " + std::to_string(timeout_ms) + " ms");
    }
    return TRAINER_OK;
  });
}

int32_t trainer_run_phase(const trainer_run* run) {
  return trainer::capi::guard_value<int32_t>(TRAINER_RUN_FAILED, [&] {
    if (run == nullptr) return int32_t{TRAINER_RUN_FAILED};
    return phase_value(run->executor->phase());
  });
}

trainer_status trainer_run_status(const trainer_run* run, trainer_buffer* out,
                                  trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (run == nullptr) return bad_argument(err, "run is NULL");
    if (out == nullptr) return bad_argument(err, "out is NULL");
    trainer::capi::buffer_assign(out, json::serialize(run->executor->status()));
    return TRAINER_OK;
  });
}

void trainer_run_cancel(trainer_run* run) {
  trainer::capi::guard_void([&] {
    if (run != nullptr) run->executor->cancel();
  });
}

void trainer_run_free(trainer_run* run) {
  // The executor's destructor cancels, reaps every pod and joins the supervisor thread (the
  // only caller of the log callback), so nothing uses the sink's executor pointer afterwards.
  trainer::capi::guard_void([&] {
    if (run == nullptr) return;
    run->sink->detach();
    delete run;
  });
}

trainer_status trainer_run_read_status(const char* run_dir, trainer_buffer* out,
                                       trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (run_dir == nullptr) return bad_argument(err, "run_dir is NULL");
    if (out == nullptr) return bad_argument(err, "out is NULL");
    auto status = local::read_status(run_dir);
    if (!status) return set_error(err, status.error());
    trainer::capi::buffer_assign(out, json::serialize(*status));
    return TRAINER_OK;
  });
}

const char* trainer_run_phase_name(int32_t phase) {
  switch (phase) {
    case TRAINER_RUN_PENDING: return "Pending";
    case TRAINER_RUN_RUNNING: return "Running";
    case TRAINER_RUN_SUSPENDED: return "Suspended";
    case TRAINER_RUN_COMPLETE: return "Complete";
    case TRAINER_RUN_FAILED: return "Failed";
    default: return "Unknown";
  }
}

}  // extern "C"
