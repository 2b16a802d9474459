// SPDX-License-Identifier: Apache-2.0
//
// plugin_from_descriptor(): the checks a descriptor must pass (name, plugin ABI version) before
// it becomes a Plugin.
#include "plugin/descriptor.hpp"
#include "plugin/adapter.hpp"
#include "plugin/plugin_internal.hpp"
#include "trainer/plugin.hpp"

#include <string>

namespace trainer {
namespace detail {
namespace {

constexpr std::size_t kMaxPluginName = 63;

bool valid_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

std::string abi_text(std::uint32_t version) {
  return std::to_string(version >> 16U) + "." + std::to_string(version & 0xffffU);
}

}  // namespace

Result<std::shared_ptr<Plugin>> checked_plugin(const trainer_plugin_descriptor& desc,
                                               const std::string& who) {
  const std::uint32_t major = desc.abi_version >> 16U;
  const std::uint32_t minor = desc.abi_version & 0xffffU;
  // The version first: a descriptor of another major version may lay its fields out otherwise.
  if (major != TRAINER_PLUGIN_ABI_VERSION_MAJOR || minor > TRAINER_PLUGIN_ABI_VERSION_MINOR) {
    return fail(ErrorCode::kUnsupported,
                "plugin " + who + " was built for plugin ABI " + abi_text(desc.abi_version) +
                    "; this libtrainer supports " + abi_text(TRAINER_PLUGIN_ABI_VERSION));
  }
  const std::string name = desc.name == nullptr ? std::string() : std::string(desc.name);
  const std::string rule = "must be 1 to 63 letters, digits, '-', '_' or '.'";
  if (desc.name == nullptr) return fail(ErrorCode::kInvalidArgument, "plugin name is NULL");
  bool ok = !name.empty() && name.size() <= kMaxPluginName;
  for (char c : name) ok = ok && valid_name_char(c);
  if (!ok) {
    return fail(ErrorCode::kInvalidArgument, "plugin name \"" + name + "\" " + rule);
  }
  return make_c_plugin(desc);
}

}  // namespace detail

Result<std::shared_ptr<Plugin>> plugin_from_descriptor(const trainer_plugin_descriptor& desc) {
  std::string who = "\"";
  if (desc.name != nullptr) who += desc.name;
  who += "\"";
  return detail::checked_plugin(desc, who);
}

}  // namespace trainer
