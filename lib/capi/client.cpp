// SPDX-License-Identifier: Apache-2.0
// trainer_client: configuration loading (kubectl's rules) and the kube client behind the
// cluster calls. Every body goes through the C ABI's exception guard.
#include "capi/client.hpp"
#include "capi/options_version.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace {

namespace kube = trainer::kube;
using trainer::capi::guard;
using trainer::capi::PendingUserData;
using trainer::capi::set_error;
using trainer::capi::str;

// A limit of the options into `out`: 0 keeps the default; false when it does not fit a size_t.
bool size_limit(std::uint64_t value, std::size_t& out) {
  if (value == 0) return true;
  if constexpr (sizeof(std::size_t) < sizeof(std::uint64_t)) {
    if (value > std::numeric_limits<std::size_t>::max()) return false;
  }
  out = static_cast<std::size_t>(value);
  return true;
}

}  // namespace

extern "C" {

trainer_status trainer_client_options_init(trainer_client_options* opts, uint32_t version) {
  // Version 1 ends before `max_response_bytes`.
  return trainer::capi::init_options(
      opts, version, TRAINER_CLIENT_OPTIONS_VERSION,
      trainer_client_options TRAINER_CLIENT_OPTIONS_INIT, [](uint32_t v) {
        return v >= 2 ? sizeof(trainer_client_options)
                      : offsetof(trainer_client_options, max_response_bytes);
      });
}

trainer_status trainer_client_new(const trainer_client_options* opts, trainer_client** out,
                                  trainer_error** err) {
  // The caller's user data is ours from here on, whatever happens (as trainer_run_start).
  const bool readable = opts == nullptr ||
                        trainer::capi::known_version(opts->version, TRAINER_CLIENT_OPTIONS_VERSION);
  PendingUserData pending;
  PendingUserData pending_log;
  if (opts != nullptr && readable) {
    pending.free_fn = opts->warning_user_data_free;
    pending.user_data = opts->warning_user_data;
    if (opts->version >= 2) {
      pending_log.free_fn = opts->log_user_data_free;
      pending_log.user_data = opts->log_user_data;
    }
  }
  return guard(err, [&]() -> trainer_status {
    auto sink = std::make_shared<trainer::capi::WarningSink>();
    if (opts != nullptr && readable) {
      sink->fn = opts->on_warning;
      sink->user_data = opts->warning_user_data;
      sink->user_data_free = pending.free_fn;
      pending.free_fn = nullptr;
    }
    // The log callback has the shape of the warning callback (text, length; result ignored).
    auto log_sink = std::make_shared<trainer::capi::WarningSink>();
    if (opts != nullptr && readable && opts->version >= 2) {
      log_sink->fn = opts->on_log;
      log_sink->user_data = opts->log_user_data;
      log_sink->user_data_free = pending_log.free_fn;
      pending_log.free_fn = nullptr;
    }
    if (out == nullptr) return set_error(err, TRAINER_E_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    if (!readable) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       trainer::capi::unsupported_version("trainer_client_options", opts->version,
                                                          TRAINER_CLIENT_OPTIONS_VERSION));
    }
    kube::LoadOptions load;
    kube::ClientOptions client_options;
    if (opts != nullptr) {
      load.kubeconfig = str(opts->kubeconfig);
      load.context = str(opts->context);
      load.namespace_ = str(opts->namespace_name);
      if (opts->request_timeout_ms < 0) {
        return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                         "trainer_client_options.request_timeout_ms is negative");
      }
      if (opts->request_timeout_ms > 0) {
        client_options.timeout = std::chrono::milliseconds(opts->request_timeout_ms);
      }
      if (opts->qps != 0) client_options.qps = opts->qps;
      if (opts->burst < 0) {
        return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                         "trainer_client_options.burst is negative");
      }
      if (opts->burst > 0) client_options.burst = opts->burst;
      client_options.user_agent = str(opts->user_agent);
      // Fields of later struct versions: a caller's struct of an earlier version ends before
      // them.
      if (opts->version >= 2) {
        if (!size_limit(opts->max_response_bytes, client_options.max_response_bytes)) {
          return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                           "trainer_client_options.max_response_bytes is above SIZE_MAX");
        }
        if (!size_limit(opts->max_watch_event_bytes, client_options.max_watch_event_bytes)) {
          return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                           "trainer_client_options.max_watch_event_bytes is above SIZE_MAX");
        }
      }
    }
    if (sink->fn != nullptr) {
      client_options.on_warning = [sink](std::string_view text) { sink->warn(text); };
    }
    if (log_sink->fn != nullptr) {
      client_options.on_log = [log_sink](std::string_view line) { log_sink->warn(line); };
    }
    auto config = kube::load_config(load);
    if (!config) return set_error(err, config.error());
    for (const auto& warning : config->warnings) sink->warn(warning);
    std::string server = config->server;
    auto client = kube::Client::create(std::move(*config), std::move(client_options));
    if (!client) return set_error(err, client.error());
    *out = new trainer_client{std::move(*client), sink, log_sink, std::move(server)};
    return TRAINER_OK;
  });
}

void trainer_client_free(trainer_client* client) {
  trainer::capi::guard_void([&] { delete client; });
}

const char* trainer_client_namespace(const trainer_client* client) {
  return trainer::capi::guard_value<const char*>(
      "", [&] { return client == nullptr ? "" : client->client.default_namespace().c_str(); });
}

const char* trainer_client_server(const trainer_client* client) {
  return trainer::capi::guard_value<const char*>(
      "", [&] { return client == nullptr ? "" : client->server.c_str(); });
}

}  // extern "C"
