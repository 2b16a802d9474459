// SPDX-License-Identifier: Apache-2.0
// trainer_controller: the TrainJob controller's loop (trainer::controller::Controller) and one
// reconcile by name (Reconciler) behind the C ABI. Every body goes through the exception guard;
// the reconcile callback runs on the loop's worker threads, so nothing is thrown back into them.
#include "trainer/controller.hpp"
#include "capi/client.hpp"
#include "capi/options_version.hpp"
#include "capi/plugin.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace {

namespace ctl = trainer::controller;
namespace json = boost::json;
using trainer::capi::bad_argument;
using trainer::capi::guard;
using trainer::capi::PendingUserData;
using trainer::capi::set_error;
using trainer::capi::str;

// The result's JSON, the shape documented at the top of trainer/controller.h.
std::string result_json(const ctl::ReconcileResult& result) {
  json::object out;
  out["key"] = result.key;
  out["skipped"] = result.skipped;
  json::array applied;
  for (const auto& ref : result.applied) applied.emplace_back(ref);
  out["applied"] = std::move(applied);
  out["statusPatched"] = result.status_patched;
  json::array conditions;
  for (const auto& c : result.conditions) {
    json::object condition;
    condition["type"] = c.type;
    condition["status"] = c.status;
    condition["reason"] = c.reason;
    condition["message"] = c.message;
    condition["lastTransitionTime"] = c.last_transition_time;
    if (c.observed_generation) condition["observedGeneration"] = *c.observed_generation;
    conditions.emplace_back(std::move(condition));
  }
  out["conditions"] = std::move(conditions);
  if (result.requeue_after) out["requeueAfterMs"] = result.requeue_after->count();
  return json::serialize(out);
}

// The caller's reconcile callback and its user data, released exactly once.
struct ReconcileSink {
  trainer_controller_reconcile_fn fn = nullptr;
  void* user_data = nullptr;
  void (*user_data_free)(void*) = nullptr;

  ReconcileSink() = default;
  ReconcileSink(const ReconcileSink&) = delete;
  ReconcileSink& operator=(const ReconcileSink&) = delete;
  ~ReconcileSink() {
    if (user_data_free != nullptr) user_data_free(user_data);
  }
  // Runs on a worker thread: a result that cannot be encoded (out of memory) is dropped rather
  // than thrown into the loop.
  void call(const ctl::ReconcileResult& result, const trainer::Error* error) const noexcept {
    try {
      const std::string text = result_json(result);
      std::unique_ptr<trainer_error> c_error(error == nullptr ? nullptr
                                                              : trainer::capi::make_error(*error));
      (void)fn(user_data, text.c_str(), text.size(), c_error.get());
    } catch (...) {  // NOLINT(bugprone-empty-catch): a callback cannot fail the loop
    }
  }
};

// The plugins of a reconcile (trainer::capi::plugins_of). The reconciler keeps its own reference
// to the framework, so the caller may free the handle afterwards.
trainer_status plugins_of(const char* what, const char* gates, const trainer_framework* framework,
                          ctl::ReconcilerOptions& out, trainer_error** err) {
  auto plugins = trainer::capi::plugins_of(what, gates, framework);
  if (!plugins) return bad_argument(err, plugins.error().message);
  out.framework = std::move(*plugins);
  return TRAINER_OK;
}

bool negative(int64_t value) {
  return value < 0;
}

// The serving fields of struct version 3 (ServingOptions); an unset string keeps the default.
trainer_status serving_options(const trainer_controller_options& opts, ctl::ServingOptions& out,
                               trainer_error** err) {
  const auto set = [](const char* value, std::string& field) {
    if (value != nullptr && *value != 0) field = value;
  };
  set(opts.operator_namespace, out.operator_namespace);
  set(opts.webhook_service_name, out.webhook_service_name);
  set(opts.webhook_secret_name, out.webhook_secret_name);
  set(opts.webhook_cert_dir, out.cert_dir);
  set(opts.webhook_bind_address, out.webhook_bind_address);
  set(opts.status_server_bind_address, out.status_server_bind_address);
  const std::string hosts = str(opts.webhook_cert_hosts);
  for (std::size_t start = 0; start < hosts.size();) {
    const std::size_t comma = std::min(hosts.find(',', start), hosts.size());
    if (comma > start) out.extra_cert_hosts.push_back(hosts.substr(start, comma - start));
    start = comma + 1;
  }
  if (opts.webhook_port < 0 || opts.webhook_port > 65535) {
    return bad_argument(err, "trainer_controller_options.webhook_port must be 0 (off) to 65535");
  }
  out.webhook_port = opts.webhook_port;
  if (opts.status_server_port < -1 || opts.status_server_port > 65535) {
    return bad_argument(err,
                        "trainer_controller_options.status_server_port must be -1 (off), 0 "
                        "(10443) or a port to 65535");
  }
  if (opts.status_server_port == -1) out.status_server_port = 0;
  if (opts.status_server_port > 0) out.status_server_port = opts.status_server_port;
  return TRAINER_OK;
}

}  // namespace

struct trainer_controller {
  std::shared_ptr<ReconcileSink> sink;  // outlives the controller's workers
  std::unique_ptr<ctl::Controller> controller;
  std::mutex mutex;  // guards the two flags
  bool stop_requested = false;
  bool started = false;
};

extern "C" {

trainer_status trainer_controller_options_init(trainer_controller_options* opts, uint32_t version) {
  // Version 1 ends before `framework`, 2 before `operator_namespace`.
  return trainer::capi::init_options(
      opts, version, TRAINER_CONTROLLER_OPTIONS_VERSION,
      trainer_controller_options TRAINER_CONTROLLER_OPTIONS_INIT, [](uint32_t v) {
        return v >= 3   ? sizeof(trainer_controller_options)
               : v == 2 ? offsetof(trainer_controller_options, operator_namespace)
                        : offsetof(trainer_controller_options, framework);
      });
}

trainer_status trainer_controller_new(trainer_client* client,
                                      const trainer_controller_options* opts,
                                      trainer_controller** out, trainer_error** err) {
  // The caller's user data is ours from here on, whatever happens (as trainer_client_new).
  // Versions 1 and 2 are readable; `framework` (version 2) is read only for version 2.
  const bool readable = opts == nullptr || trainer::capi::known_version(
                                               opts->version, TRAINER_CONTROLLER_OPTIONS_VERSION);
  PendingUserData pending;
  if (opts != nullptr && readable) {
    pending.free_fn = opts->reconcile_user_data_free;
    pending.user_data = opts->reconcile_user_data;
  }
  return guard(err, [&]() -> trainer_status {
    auto sink = std::make_shared<ReconcileSink>();
    if (opts != nullptr && readable) {
      sink->fn = opts->on_reconcile;
      sink->user_data = opts->reconcile_user_data;
      sink->user_data_free = pending.free_fn;
      pending.free_fn = nullptr;
    }
    if (out == nullptr) return bad_argument(err, "out is NULL");
    *out = nullptr;
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (!readable) {
      return bad_argument(err, "trainer_controller_options.version " +
                                   std::to_string(opts->version) + " is not supported (expected " +
                                   std::to_string(TRAINER_CONTROLLER_OPTIONS_VERSION) + ")");
    }
    ctl::ControllerOptions options;
    if (opts != nullptr) {
      if (opts->workers < 0 || opts->workers > 1024) {
        return bad_argument(err, "trainer_controller_options.workers must be 0 to 1024");
      }
      if (negative(opts->resync_period_ms) || negative(opts->shutdown_timeout_ms) ||
          negative(opts->lease_duration_ms) || negative(opts->renew_deadline_ms) ||
          negative(opts->retry_period_ms)) {
        return bad_argument(err, "trainer_controller_options: a duration is negative");
      }
      if (const auto st =
              plugins_of("trainer_controller_options", opts->feature_gates,
                         opts->version >= 2 ? opts->framework : nullptr, options.reconciler, err);
          st != TRAINER_OK) {
        return st;
      }
      options.reconciler.record_events = opts->no_events == 0;
      options.namespace_ = str(opts->namespace_name);
      if (opts->workers > 0) options.workers = opts->workers;
      options.once = opts->once != 0;
      using ms = std::chrono::milliseconds;
      if (opts->resync_period_ms > 0) options.resync_period = ms(opts->resync_period_ms);
      if (opts->shutdown_timeout_ms > 0) options.shutdown_timeout = ms(opts->shutdown_timeout_ms);
      auto& election = options.leader_election;
      election.enabled = opts->leader_elect != 0;
      if (opts->leader_election_namespace != nullptr && *opts->leader_election_namespace != 0) {
        election.lease_namespace = opts->leader_election_namespace;
      }
      if (opts->leader_election_id != nullptr && *opts->leader_election_id != 0) {
        election.lease_name = opts->leader_election_id;
      }
      election.identity = str(opts->leader_election_identity);
      if (opts->lease_duration_ms > 0) election.lease_duration = ms(opts->lease_duration_ms);
      if (opts->renew_deadline_ms > 0) election.renew_deadline = ms(opts->renew_deadline_ms);
      if (opts->retry_period_ms > 0) election.retry_period = ms(opts->retry_period_ms);
      if (opts->version >= 3) {
        if (const auto st = serving_options(*opts, options.serving, err); st != TRAINER_OK) {
          return st;
        }
      }
    }
    if (sink->fn != nullptr) {
      options.on_reconcile = [sink](const ctl::ReconcileResult& result,
                                    const trainer::Error* error) { sink->call(result, error); };
    }
    auto handle = std::make_unique<trainer_controller>();
    handle->sink = sink;
    handle->controller = std::make_unique<ctl::Controller>(client->client, std::move(options));
    *out = handle.release();
    return TRAINER_OK;
  });
}

trainer_status trainer_controller_run(trainer_controller* ctl, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (ctl == nullptr) return bad_argument(err, "ctl is NULL");
    {
      const std::lock_guard<std::mutex> lock(ctl->mutex);
      if (ctl->started) return bad_argument(err, "the controller has already run");
      ctl->started = true;
      if (ctl->stop_requested) return TRAINER_OK;
    }
    auto ran = ctl->controller->run();
    if (!ran) return set_error(err, ran.error());
    return TRAINER_OK;
  });
}

void trainer_controller_stop(trainer_controller* ctl) {
  trainer::capi::guard_void([&] {
    if (ctl == nullptr) return;
    const std::lock_guard<std::mutex> lock(ctl->mutex);
    ctl->stop_requested = true;
    ctl->controller->stop();
  });
}

trainer_status trainer_controller_metrics(const trainer_controller* ctl, trainer_buffer* out,
                                          trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (ctl == nullptr) return bad_argument(err, "ctl is NULL");
    if (out == nullptr) return bad_argument(err, "out is NULL");
    if (out->data != nullptr || out->len != 0) {
      return bad_argument(err, "out is not empty (use TRAINER_BUFFER_INIT)");
    }
    trainer::capi::buffer_assign(out, ctl->controller->metrics_text());
    return TRAINER_OK;
  });
}

void trainer_controller_free(trainer_controller* ctl) {
  trainer::capi::guard_void([&] { delete ctl; });
}

trainer_status trainer_controller_reconcile_options_init(trainer_controller_reconcile_options* opts,
                                                         uint32_t version) {
  // Version 1 ends before `framework`.
  return trainer::capi::init_options(
      opts, version, TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION,
      trainer_controller_reconcile_options TRAINER_CONTROLLER_RECONCILE_OPTIONS_INIT,
      [](uint32_t v) {
        return v >= 2 ? sizeof(trainer_controller_reconcile_options)
                      : offsetof(trainer_controller_reconcile_options, framework);
      });
}

trainer_status trainer_controller_reconcile(trainer_client* client, const char* namespace_name,
                                            const char* name,
                                            const trainer_controller_reconcile_options* opts,
                                            trainer_buffer* out, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (name == nullptr || *name == '\0') return bad_argument(err, "name is NULL or empty");
    if (out == nullptr) return bad_argument(err, "out is NULL");
    if (out->data != nullptr || out->len != 0) {
      return bad_argument(err, "out is not empty (use TRAINER_BUFFER_INIT)");
    }
    if (opts != nullptr && !trainer::capi::known_version(
                               opts->version, TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION)) {
      return bad_argument(err, trainer::capi::unsupported_version(
                                   "trainer_controller_reconcile_options", opts->version,
                                   TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION));
    }
    ctl::ReconcilerOptions options;
    if (opts != nullptr) {
      if (const auto st = plugins_of("trainer_controller_reconcile_options", opts->feature_gates,
                                     opts->version >= 2 ? opts->framework : nullptr, options, err);
          st != TRAINER_OK) {
        return st;
      }
      options.record_events = opts->no_events == 0;
      if (opts->cancel != nullptr) options.cancel = opts->cancel->token;
    }
    const std::string ns = namespace_name == nullptr || *namespace_name == '\0'
                               ? client->client.default_namespace()
                               : std::string(namespace_name);
    ctl::Reconciler reconciler(client->client, std::move(options));
    auto result = reconciler.reconcile(ns, name);
    if (!result) return set_error(err, result.error());
    trainer::capi::buffer_assign(out, result_json(*result));
    return TRAINER_OK;
  });
}

}  // extern "C"
