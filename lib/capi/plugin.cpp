// SPDX-License-Identifier: Apache-2.0
// trainer_plugin_*: a C ABI plugin (in process or loaded) as a handle around the C++ adapter of
// lib/plugin (plugin_from_descriptor, load_plugin).
#include "trainer/plugin.hpp"
#include "capi/capi.hpp"
#include "capi/plugin.hpp"

#include <memory>
#include <string>
#include <utility>

namespace {

using trainer::capi::guard;
using trainer::capi::guard_value;
using trainer::capi::guard_void;
using trainer::capi::set_error;

// Makes the plugin with `make` into a new handle. The handle is allocated first: once the
// plugin exists, nothing may fail, or its user data would be freed on a failed call.
template <class Make>
trainer_status hand_out(Make&& make, trainer_plugin** out, trainer_error** err) {
  auto handle = std::make_unique<trainer_plugin>();
  handle->name.reserve(63);  // the longest valid name
  auto made = std::forward<Make>(make)();
  if (!made) return set_error(err, made.error());
  handle->plugin = std::move(*made);
  handle->name.assign(handle->plugin->name().data(), handle->plugin->name().size());
  *out = handle.release();
  return TRAINER_OK;
}

}  // namespace

extern "C" {

trainer_status trainer_plugin_new(const trainer_plugin_descriptor* desc, trainer_plugin** out,
                                  trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (desc == nullptr || out == nullptr) {
      return set_error(
          err, TRAINER_E_INVALID_ARGUMENT,
          desc == nullptr ? "trainer_plugin_new: desc is NULL" : "trainer_plugin_new: out is NULL");
    }
    return hand_out([&] { return trainer::plugin_from_descriptor(*desc); }, out, err);
  });
}

trainer_status trainer_plugin_load(const char* path, trainer_plugin** out, trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (path == nullptr || out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       path == nullptr ? "trainer_plugin_load: path is NULL"
                                       : "trainer_plugin_load: out is NULL");
    }
    return hand_out([&] { return trainer::load_plugin(path); }, out, err);
  });
}

const char* trainer_plugin_name(const trainer_plugin* plugin) {
  return guard_value<const char*>("",
                                  [&] { return plugin == nullptr ? "" : plugin->name.c_str(); });
}

void trainer_plugin_free(trainer_plugin* plugin) {
  guard_void([&] { delete plugin; });
}

}  // extern "C"
