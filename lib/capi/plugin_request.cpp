// SPDX-License-Identifier: Apache-2.0
//
// The request accessors and reply setters of trainer/plugin.h. The work is done in the core
// (lib/plugin/request_access.cpp, noexcept), which also hands the same functions to loaded
// plugins through the host table; these are the exported names for plugins that link
// libtrainer.so. The core functions are noexcept, so no exception guard is needed here.
#include "capi/capi.hpp"
#include "plugin/plugin_internal.hpp"

extern "C" {

TRAINER_API const char* trainer_plugin_request_json(const trainer_plugin_request* request,
                                                    size_t* len) {
  return trainer::detail::plugin_request_json(request, len);
}

TRAINER_API const char* trainer_plugin_request_get(const trainer_plugin_request* request,
                                                   const char* pointer, size_t* len) {
  return trainer::detail::plugin_request_get(request, pointer, len);
}

TRAINER_API const char* trainer_plugin_request_get_string(const trainer_plugin_request* request,
                                                          const char* pointer) {
  return trainer::detail::plugin_request_get_string(request, pointer);
}

TRAINER_API int32_t trainer_plugin_request_get_int(const trainer_plugin_request* request,
                                                   const char* pointer, int64_t* out) {
  return trainer::detail::plugin_request_get_int(request, pointer, out);
}

TRAINER_API trainer_status trainer_plugin_reply_set(trainer_plugin_reply* reply, const char* json,
                                                    size_t len) {
  return trainer::detail::plugin_reply_set(reply, json, len);
}

TRAINER_API void trainer_plugin_reply_set_error(trainer_plugin_reply* reply, const char* message) {
  trainer::detail::plugin_reply_set_error(reply, message);
}

TRAINER_API const trainer_plugin_host* trainer_plugin_host_table(void) {
  return trainer::detail::plugin_host_table();
}

}  // extern "C"
