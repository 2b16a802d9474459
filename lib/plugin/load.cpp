// SPDX-License-Identifier: Apache-2.0
//
// load_plugin(): a plugin from a shared library. The library stays loaded for the life of the
// process: a Go or Rust runtime inside it cannot be unloaded, and its code may still be on
// another thread's stack.
#include "plugin/descriptor.hpp"
#include "plugin/plugin_internal.hpp"
#include "trainer/plugin.hpp"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <string>

namespace trainer {

Result<std::shared_ptr<Plugin>> load_plugin(const std::string& path) {
  void* handle = nullptr;
  std::string dl_message;
  {
    // dlerror() is per thread in glibc, but other libraries' loaders share it; one lock keeps
    // the message ours.
    static std::mutex dl_mutex;
    std::lock_guard<std::mutex> lock(dl_mutex);
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      dl_message = why != nullptr ? why : "unknown error";
    }
  }
  if (handle == nullptr) {
    return fail(ErrorCode::kIo, "cannot load plugin " + path + ": " + dl_message);
  }
  void* symbol = dlsym(handle, TRAINER_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    return fail(ErrorCode::kNotFound, "plugin " + path + " has no " +
                                          std::string(TRAINER_PLUGIN_ENTRY_SYMBOL) + " symbol");
  }
  trainer_plugin_entry_fn entry = nullptr;
  static_assert(sizeof(entry) == sizeof(symbol), "function and object pointers differ in size");
  std::memcpy(&entry, &symbol, sizeof(entry));
  const trainer_plugin_descriptor* desc = entry(detail::plugin_host_table());
  if (desc == nullptr) {
    return fail(ErrorCode::kUser, "plugin " + path + ": " +
                                      std::string(TRAINER_PLUGIN_ENTRY_SYMBOL) + " returned NULL");
  }
  auto plugin = detail::checked_plugin(*desc, path);
  if (!plugin && plugin.error().code != ErrorCode::kUnsupported) {
    plugin.error().message = "plugin " + path + ": " + plugin.error().message;
  }
  return plugin;
}

}  // namespace trainer
