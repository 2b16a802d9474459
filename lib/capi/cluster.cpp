// SPDX-License-Identifier: Apache-2.0
// trainer_cluster_*: the C face of trainer::cluster (apply, get, list, watch, wait, logs,
// delete). Every body goes through the C ABI's exception guard; callbacks are C functions and
// cannot throw.
#include "trainer/cluster.hpp"
#include "capi/client.hpp"
#include "capi/options_version.hpp"
#include "capi/plugin.hpp"
#include "trainer/codec.hpp"

#include <boost/json/serialize.hpp>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct trainer_cluster_apply_result {
  struct Item {
    std::string ref;
    std::string json;
  };
  std::vector<Item> items;
};

namespace {

namespace json = boost::json;
namespace cluster = trainer::cluster;
namespace kube = trainer::kube;
using trainer::capi::bad_argument;
using trainer::capi::guard;
using trainer::capi::known_format;
using trainer::capi::set_call_options;
using trainer::capi::set_error;
using trainer::capi::str;

template <class Options>
bool supported(const Options* opts, uint32_t current) {
  return opts == nullptr || trainer::capi::known_version(opts->version, current);
}

std::string encode(const json::object& object, trainer_format fmt) {
  const json::value value(object);
  return fmt == TRAINER_FORMAT_YAML
             ? trainer::encode_yaml(value)
             : trainer::encode_json(value, fmt == TRAINER_FORMAT_JSON_PRETTY);
}

// Checks shared by the calls that write text into a caller's buffer.
std::optional<std::string> check_output(const trainer_buffer* out) {
  if (out == nullptr) return "out is NULL";
  if (out->data != nullptr || out->len != 0) return "out is not empty (use TRAINER_BUFFER_INIT)";
  return std::nullopt;
}

// Runs the caller's callback for the core and remembers how it went: STOP or a negative status
// ends the call, and the latter becomes TRAINER_E_USER once the core call has returned. The core
// may call from transfer threads of its own (followed logs), so nothing is thrown back into it:
// an exception of ours (out of memory) stops the call and is rethrown after it.
struct CallbackOutcome {
  trainer_status failed = TRAINER_OK;
  std::exception_ptr thrown;

  // `call` returns the callback's status; the result is `true` to go on.
  template <class Call>
  bool keep_going(Call&& call) noexcept {
    try {
      const trainer_status st = std::forward<Call>(call)();
      if (st < 0) failed = st;
      return st == TRAINER_CALLBACK_CONTINUE;
    } catch (...) {
      thrown = std::current_exception();
      return false;
    }
  }
  // After the core call: the status of a call the callback ended, if it did.
  std::optional<trainer_status> report(trainer_error** err, const char* what) const {
    if (thrown) std::rethrow_exception(thrown);
    if (failed == TRAINER_OK) return std::nullopt;
    return set_error(err, TRAINER_E_USER,
                     std::string(what) + " callback returned " + std::to_string(failed));
  }
};

}  // namespace

extern "C" {

// ---- apply ------------------------------------------------------------------------------------

trainer_status trainer_cluster_apply_options_init(trainer_cluster_apply_options* opts,
                                                  uint32_t version) {
  // Version 1 ends before `framework`.
  return trainer::capi::init_options(opts, version, TRAINER_CLUSTER_APPLY_OPTIONS_VERSION,
                                     TRAINER_CLUSTER_APPLY_OPTIONS_INIT, [](uint32_t v) {
                                       return v >= 2 ? sizeof(trainer_cluster_apply_options)
                                                     : offsetof(trainer_cluster_apply_options,
                                                                framework);
                                     });
}

trainer_status trainer_cluster_apply(trainer_client* client, const char* data, size_t len,
                                     const trainer_cluster_apply_options* opts,
                                     trainer_cluster_apply_result** out, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (out != nullptr) *out = nullptr;
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (out == nullptr) return bad_argument(err, "out is NULL");
    if (data == nullptr && len != 0) return bad_argument(err, "data is NULL");
    if (!supported(opts, TRAINER_CLUSTER_APPLY_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_apply_options", opts->version,
                                                  TRAINER_CLUSTER_APPLY_OPTIONS_VERSION));
    }
    trainer::DecodeOptions decode;
    cluster::ApplyOptions options;
    if (opts != nullptr) {
      if (auto bad = trainer::capi::apply_parse_options(opts->parse, decode)) {
        return bad_argument(err, *bad);
      }
      options.namespace_ = str(opts->namespace_name);
      if (opts->field_manager != nullptr && *opts->field_manager != '\0') {
        options.field_manager = opts->field_manager;
      }
      options.dry_run = opts->dry_run != 0;
      options.force = opts->force != 0;
      set_call_options(options, opts->cancel, opts->timeout_ms);
      if (opts->version >= 2 && opts->framework != nullptr) {
        options.framework = opts->framework->framework.get();
      }
    }
    const auto sink = client->warnings;
    options.on_warning = [sink](std::string_view text) { sink->warn(text); };
    auto documents =
        trainer::capi::read_objects(std::string_view(data == nullptr ? "" : data, len), decode);
    if (!documents) return set_error(err, documents.error());
    auto applied = cluster::apply(client->client, *documents, options);
    if (!applied) return set_error(err, applied.error());
    auto result = std::make_unique<trainer_cluster_apply_result>();
    result->items.reserve(applied->size());
    for (const auto& object : *applied) {
      result->items.push_back({object.ref, json::serialize(object.object)});
    }
    *out = result.release();
    return TRAINER_OK;
  });
}

void trainer_cluster_apply_result_free(trainer_cluster_apply_result* result) {
  trainer::capi::guard_void([&] { delete result; });
}

size_t trainer_cluster_apply_result_count(const trainer_cluster_apply_result* result) {
  return trainer::capi::guard_value<size_t>(
      0, [&] { return result == nullptr ? size_t{0} : result->items.size(); });
}

const char* trainer_cluster_apply_result_ref(const trainer_cluster_apply_result* result, size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->items.size()) return nullptr;
    return result->items[i].ref.c_str();
  });
}

const char* trainer_cluster_apply_result_json(const trainer_cluster_apply_result* result,
                                              size_t i) {
  return trainer::capi::guard_value<const char*>(nullptr, [&]() -> const char* {
    if (result == nullptr || i >= result->items.size()) return nullptr;
    return result->items[i].json.c_str();
  });
}

// ---- get, list --------------------------------------------------------------------------------

trainer_status trainer_cluster_get_options_init(trainer_cluster_get_options* opts,
                                                uint32_t version) {
  return trainer::capi::init_options(opts, version, TRAINER_CLUSTER_GET_OPTIONS_VERSION,
                                     trainer_cluster_get_options TRAINER_CLUSTER_GET_OPTIONS_INIT);
}

trainer_status trainer_cluster_get(trainer_client* client, const char* kind,
                                   const char* namespace_name, const char* name,
                                   const trainer_cluster_get_options* opts, trainer_format fmt,
                                   trainer_buffer* out, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (kind == nullptr) return bad_argument(err, "kind is NULL");
    if (name == nullptr || *name == '\0') return bad_argument(err, "name is NULL or empty");
    if (auto bad = check_output(out)) return bad_argument(err, *bad);
    if (!known_format(fmt)) return bad_argument(err, "unknown format " + std::to_string(fmt));
    if (!supported(opts, TRAINER_CLUSTER_GET_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_get_options", opts->version,
                                                  TRAINER_CLUSTER_GET_OPTIONS_VERSION));
    }
    auto parsed = cluster::parse_kind(kind);
    if (!parsed) return set_error(err, parsed.error());
    kube::CallOptions options;
    if (opts != nullptr) set_call_options(options, opts->cancel, opts->timeout_ms);
    auto object = cluster::get(client->client, *parsed, str(namespace_name), name, options);
    if (!object) return set_error(err, object.error());
    trainer::capi::buffer_assign(out, encode(*object, fmt));
    return TRAINER_OK;
  });
}

trainer_status trainer_cluster_list(trainer_client* client, const char* kind,
                                    const char* namespace_name,
                                    const trainer_cluster_get_options* opts, trainer_format fmt,
                                    trainer_buffer* out, trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (kind == nullptr) return bad_argument(err, "kind is NULL");
    if (auto bad = check_output(out)) return bad_argument(err, *bad);
    if (!known_format(fmt)) return bad_argument(err, "unknown format " + std::to_string(fmt));
    if (!supported(opts, TRAINER_CLUSTER_GET_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_get_options", opts->version,
                                                  TRAINER_CLUSTER_GET_OPTIONS_VERSION));
    }
    auto parsed = cluster::parse_kind(kind);
    if (!parsed) return set_error(err, parsed.error());
    cluster::GetOptions options;
    if (opts != nullptr) {
      options.label_selector = str(opts->label_selector);
      options.all_namespaces = opts->all_namespaces != 0;
      set_call_options(options, opts->cancel, opts->timeout_ms);
    }
    auto list = cluster::list(client->client, *parsed, str(namespace_name), options);
    if (!list) return set_error(err, list.error());
    trainer::capi::buffer_assign(out, encode(*list, fmt));
    return TRAINER_OK;
  });
}

// ---- watch ------------------------------------------------------------------------------------

trainer_status trainer_cluster_watch_options_init(trainer_cluster_watch_options* opts,
                                                  uint32_t version) {
  return trainer::capi::init_options(
      opts, version, TRAINER_CLUSTER_WATCH_OPTIONS_VERSION,
      trainer_cluster_watch_options TRAINER_CLUSTER_WATCH_OPTIONS_INIT);
}

trainer_status trainer_cluster_watch(trainer_client* client, const char* namespace_name,
                                     const trainer_cluster_watch_options* opts,
                                     trainer_cluster_watch_fn fn, void* user_data,
                                     trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (fn == nullptr) return bad_argument(err, "fn is NULL");
    if (!supported(opts, TRAINER_CLUSTER_WATCH_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_watch_options", opts->version,
                                                  TRAINER_CLUSTER_WATCH_OPTIONS_VERSION));
    }
    cluster::WatchOptions options;
    if (opts != nullptr) {
      options.name = str(opts->name);
      options.label_selector = str(opts->label_selector);
      options.all_namespaces = opts->all_namespaces != 0;
      options.resource_version = str(opts->resource_version);
      set_call_options(options, opts->cancel, opts->timeout_ms);
    }
    CallbackOutcome outcome;
    auto watched = cluster::watch(
        client->client, str(namespace_name), options, [&](const kube::WatchEvent& event) {
          return outcome.keep_going([&] {
            const std::string object = json::serialize(event.object);
            return fn(user_data, kube::to_string(event.type), object.c_str(), object.size());
          });
        });
    if (auto ended = outcome.report(err, "watch")) return *ended;
    if (!watched) return set_error(err, watched.error());
    return TRAINER_OK;
  });
}

// ---- wait -------------------------------------------------------------------------------------

trainer_status trainer_cluster_wait_options_init(trainer_cluster_wait_options* opts,
                                                 uint32_t version) {
  return trainer::capi::init_options(
      opts, version, TRAINER_CLUSTER_WAIT_OPTIONS_VERSION,
      trainer_cluster_wait_options TRAINER_CLUSTER_WAIT_OPTIONS_INIT);
}

trainer_status trainer_cluster_wait(trainer_client* client, const char* namespace_name,
                                    const char* name, const char* condition,
                                    int64_t wait_timeout_ms,
                                    const trainer_cluster_wait_options* opts, trainer_buffer* out,
                                    trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (name == nullptr || *name == '\0') return bad_argument(err, "name is NULL or empty");
    if (condition == nullptr || *condition == '\0') {
      return bad_argument(err, "condition is NULL or empty");
    }
    if (auto bad = check_output(out)) return bad_argument(err, *bad);
    if (!supported(opts, TRAINER_CLUSTER_WAIT_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_wait_options", opts->version,
                                                  TRAINER_CLUSTER_WAIT_OPTIONS_VERSION));
    }
    cluster::WaitOptions options;
    std::string status = "True";
    if (opts != nullptr) {
      if (opts->status != nullptr && *opts->status != '\0') status = opts->status;
      set_call_options(options, opts->cancel, opts->timeout_ms);
    }
    // No bound but the token: ten years keeps the deadline arithmetic far from overflow.
    constexpr std::chrono::milliseconds kUnbounded = std::chrono::hours(24 * 365 * 10);
    options.wait_timeout =
        wait_timeout_ms < 0 ? kUnbounded : std::chrono::milliseconds(wait_timeout_ms);
    auto object =
        cluster::wait(client->client, str(namespace_name), name, condition, status, options);
    if (!object) return set_error(err, object.error());
    trainer::capi::buffer_assign(out, json::serialize(*object));
    return TRAINER_OK;
  });
}

// ---- logs -------------------------------------------------------------------------------------

trainer_status trainer_cluster_logs_options_init(trainer_cluster_logs_options* opts,
                                                 uint32_t version) {
  return trainer::capi::init_options(
      opts, version, TRAINER_CLUSTER_LOGS_OPTIONS_VERSION,
      trainer_cluster_logs_options TRAINER_CLUSTER_LOGS_OPTIONS_INIT);
}

trainer_status trainer_cluster_logs(trainer_client* client, const char* namespace_name,
                                    const char* name, const trainer_cluster_logs_options* opts,
                                    trainer_cluster_logs_fn fn, void* user_data,
                                    trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (name == nullptr || *name == '\0') return bad_argument(err, "name is NULL or empty");
    if (fn == nullptr) return bad_argument(err, "fn is NULL");
    if (!supported(opts, TRAINER_CLUSTER_LOGS_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_logs_options", opts->version,
                                                  TRAINER_CLUSTER_LOGS_OPTIONS_VERSION));
    }
    cluster::LogsOptions options;
    if (opts != nullptr) {
      if (opts->node >= 0) options.node = opts->node;
      options.replicated_job = str(opts->replicated_job);
      options.all = opts->all != 0;
      options.container = str(opts->container);
      options.follow = opts->follow != 0;
      if (opts->tail_lines >= 0) options.tail_lines = opts->tail_lines;
      if (opts->since_seconds > 0) options.since_seconds = opts->since_seconds;
      set_call_options(options, opts->cancel, opts->timeout_ms);
    }
    // Followed pods are read concurrently; the callback is promised one call at a time, and
    // once it asked to stop it is not called again.
    std::mutex mutex;
    bool stopped = false;
    CallbackOutcome outcome;
    auto read = cluster::logs(
        client->client, str(namespace_name), name, options, [&](const cluster::LogChunk& chunk) {
          const std::lock_guard<std::mutex> lock(mutex);
          if (stopped) return false;
          stopped = !outcome.keep_going([&] {
            const std::string pod(chunk.pod);
            return fn(user_data, pod.c_str(), chunk.data.data(), chunk.data.size());
          });
          return !stopped;
        });
    if (auto ended = outcome.report(err, "logs")) return *ended;
    if (!read) return set_error(err, read.error());
    return TRAINER_OK;
  });
}

// ---- delete -----------------------------------------------------------------------------------

trainer_status trainer_cluster_delete_options_init(trainer_cluster_delete_options* opts,
                                                   uint32_t version) {
  return trainer::capi::init_options(
      opts, version, TRAINER_CLUSTER_DELETE_OPTIONS_VERSION,
      trainer_cluster_delete_options TRAINER_CLUSTER_DELETE_OPTIONS_INIT);
}

trainer_status trainer_cluster_delete(trainer_client* client, const char* kind,
                                      const char* namespace_name, const char* name,
                                      const trainer_cluster_delete_options* opts,
                                      trainer_error** err) {
  return guard(err, [&]() -> trainer_status {
    if (client == nullptr) return bad_argument(err, "client is NULL");
    if (kind == nullptr) return bad_argument(err, "kind is NULL");
    if (name == nullptr || *name == '\0') return bad_argument(err, "name is NULL or empty");
    if (!supported(opts, TRAINER_CLUSTER_DELETE_OPTIONS_VERSION)) {
      return bad_argument(
          err, trainer::capi::unsupported_version("trainer_cluster_delete_options", opts->version,
                                                  TRAINER_CLUSTER_DELETE_OPTIONS_VERSION));
    }
    auto parsed = cluster::parse_kind(kind);
    if (!parsed) return set_error(err, parsed.error());
    cluster::DeleteOptions options;
    if (opts != nullptr) {
      switch (opts->propagation) {
        case TRAINER_PROPAGATION_FOREGROUND:
          options.propagation = kube::Propagation::kForeground;
          break;
        case TRAINER_PROPAGATION_BACKGROUND:
          options.propagation = kube::Propagation::kBackground;
          break;
        case TRAINER_PROPAGATION_ORPHAN: options.propagation = kube::Propagation::kOrphan; break;
        default:
          return bad_argument(err, "trainer_cluster_delete_options.propagation: unknown value " +
                                       std::to_string(opts->propagation));
      }
      options.dry_run = opts->dry_run != 0;
      set_call_options(options, opts->cancel, opts->timeout_ms);
    }
    auto removed = cluster::remove(client->client, *parsed, str(namespace_name), name, options);
    if (!removed) return set_error(err, removed.error());
    return TRAINER_OK;
  });
}

}  // extern "C"
