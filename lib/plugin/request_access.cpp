// SPDX-License-Identifier: Apache-2.0
//
// The request accessors and reply setters of trainer/plugin.h, in the core so that a plugin
// loaded by the C++ core reaches them through the host table without linking libtrainer.so.
// Every returned pointer is borrowed from the request (its `text` or `borrowed` strings).
#include "plugin/plugin_internal.hpp"

#include <boost/json/serialize.hpp>

#include <new>
#include <system_error>

namespace trainer::detail {
namespace {

const boost::json::value* find(const trainer_plugin_request* request,
                               const char* pointer) noexcept {
  if (request == nullptr || pointer == nullptr) return nullptr;
  std::error_code ec;
  const boost::json::value* v = request->document.find_pointer(pointer, ec);
  return ec ? nullptr : v;
}

// The request is logically const to the plugin; the cache of handed-out texts is the only
// thing that changes, as a memo of the document it reads.
trainer_plugin_request* cache_of(const trainer_plugin_request* request) noexcept {
  return const_cast<trainer_plugin_request*>(
      request);  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

}  // namespace

const char* plugin_request_json(const trainer_plugin_request* request, size_t* len) noexcept {
  if (len != nullptr) *len = 0;
  if (request == nullptr) return "";
  try {
    auto* r = cache_of(request);
    if (!r->text) r->text = boost::json::serialize(r->document);
    if (len != nullptr) *len = r->text->size();
    return r->text->c_str();
  } catch (...) {
    return "";
  }
}

const char* plugin_request_get(const trainer_plugin_request* request, const char* pointer,
                               size_t* len) noexcept {
  if (len != nullptr) *len = 0;
  const boost::json::value* v = find(request, pointer);
  if (v == nullptr) return nullptr;
  try {
    auto& text = cache_of(request)->borrowed.emplace_back(boost::json::serialize(*v));
    if (len != nullptr) *len = text.size();
    return text.c_str();
  } catch (...) {
    return nullptr;
  }
}

const char* plugin_request_get_string(const trainer_plugin_request* request,
                                      const char* pointer) noexcept {
  const boost::json::value* v = find(request, pointer);
  if (v == nullptr || !v->is_string()) return nullptr;
  // The document's own string is NUL-terminated (boost::json::string::c_str) and lives as long
  // as the request.
  return v->get_string().c_str();
}

int32_t plugin_request_get_int(const trainer_plugin_request* request, const char* pointer,
                               int64_t* out) noexcept {
  const boost::json::value* v = find(request, pointer);
  if (v == nullptr || out == nullptr) return 0;
  if (v->is_int64()) {
    *out = v->get_int64();
    return 1;
  }
  if (v->is_uint64() && v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    *out = static_cast<int64_t>(v->get_uint64());
    return 1;
  }
  return 0;
}

trainer_status plugin_reply_set(trainer_plugin_reply* reply, const char* json,
                                size_t len) noexcept {
  if (reply == nullptr || (json == nullptr && len > 0)) return TRAINER_E_INVALID_ARGUMENT;
  // Before the copy: a length far beyond the plugin's buffer must not be read, nor allocated.
  if (len > kMaxPluginReplyBytes) {
    reply->json.reset();
    reply->refused_bytes = len;
    return TRAINER_E_LIMIT;
  }
  try {
    reply->refused_bytes = 0;
    reply->json = json == nullptr ? std::string() : std::string(json, len);
    return TRAINER_OK;
  } catch (...) {
    return TRAINER_E_NOMEM;
  }
}

void plugin_reply_set_error(trainer_plugin_reply* reply, const char* message) noexcept {
  if (reply == nullptr) return;
  try {
    reply->error_message = message == nullptr ? "" : message;
  } catch (...) {
    reply->error_message.clear();
  }
}

const trainer_plugin_host* plugin_host_table() noexcept {
  static const trainer_plugin_host table{TRAINER_PLUGIN_ABI_VERSION, plugin_request_json,
                                         plugin_request_get,         plugin_request_get_string,
                                         plugin_request_get_int,     plugin_reply_set,
                                         plugin_reply_set_error};
  return &table;
}

}  // namespace trainer::detail
