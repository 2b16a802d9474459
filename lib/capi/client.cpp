// SPDX-License-Identifier: Apache-2.0
// trainer_client: configuration loading (kubectl's rules) and the kube client behind the
// cluster calls. Every body goes through the C ABI's exception guard.
#include "capi/client.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <utility>

namespace {

namespace kube = trainer::kube;
using trainer::capi::guard;
using trainer::capi::set_error;

std::string str(const char* s) {
  return s == nullptr ? std::string() : std::string(s);
}

// The caller's warning user data until a WarningSink owns it: released here when the sink could
// not be made, so that it is released exactly once whatever fails.
struct PendingUserData {
  void (*free_fn)(void*) = nullptr;
  void* user_data = nullptr;
  PendingUserData() = default;
  PendingUserData(const PendingUserData&) = delete;
  PendingUserData& operator=(const PendingUserData&) = delete;
  ~PendingUserData() {
    if (free_fn != nullptr) free_fn(user_data);
  }
};

}  // namespace

extern "C" {

trainer_status trainer_client_options_init(trainer_client_options* opts, uint32_t version) {
  return guard(nullptr, [&] {
    if (opts == nullptr || version != TRAINER_CLIENT_OPTIONS_VERSION) {
      return TRAINER_E_INVALID_ARGUMENT;
    }
    *opts = trainer_client_options TRAINER_CLIENT_OPTIONS_INIT;
    return TRAINER_OK;
  });
}

trainer_status trainer_client_new(const trainer_client_options* opts, trainer_client** out,
                                  trainer_error** err) {
  // The caller's user data is ours from here on, whatever happens (as trainer_run_start).
  const bool readable = opts == nullptr || opts->version == TRAINER_CLIENT_OPTIONS_VERSION;
  PendingUserData pending;
  if (opts != nullptr && readable) {
    pending.free_fn = opts->warning_user_data_free;
    pending.user_data = opts->warning_user_data;
  }
  return guard(err, [&]() -> trainer_status {
    auto sink = std::make_shared<trainer::capi::WarningSink>();
    if (opts != nullptr && readable) {
      sink->fn = opts->on_warning;
      sink->user_data = opts->warning_user_data;
      sink->user_data_free = pending.free_fn;
      pending.free_fn = nullptr;
    }
    if (out == nullptr) return set_error(err, TRAINER_E_INVALID_ARGUMENT, "out is NULL");
    *out = nullptr;
    if (!readable) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_client_options.version " + std::to_string(opts->version) +
                           " is not supported (expected " +
                           std::to_string(TRAINER_CLIENT_OPTIONS_VERSION) + ")");
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
    }
    if (sink->fn != nullptr) {
      client_options.on_warning = [sink](std::string_view text) { sink->warn(text); };
    }
    auto config = kube::load_config(load);
    if (!config) return set_error(err, config.error());
    for (const auto& warning : config->warnings) sink->warn(warning);
    std::string server = config->server;
    auto client = kube::Client::create(std::move(*config), std::move(client_options));
    if (!client) return set_error(err, client.error());
    *out = new trainer_client{std::move(*client), sink, std::move(server)};
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
