// SPDX-License-Identifier: Apache-2.0
#include "plugin_flags.hpp"

#include "commands.hpp"

#include "trainer/plugin.hpp"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace trainerctl {

tl::expected<trainer::FeatureGates, int> feature_gates_flag(const Parsed& args) {
  std::string list;
  for (const auto& gate : args.values("feature-gates")) list += (list.empty() ? "" : ",") + gate;
  auto gates = trainer::parse_feature_gates(list);
  if (!gates) {
    std::fprintf(stderr, "error: --feature-gates: %s\n", gates.error().message.c_str());
    return tl::unexpected(kExitUsage);
  }
  return *gates;
}

tl::expected<std::shared_ptr<const trainer::Framework>, int> plugin_framework(
    const Parsed& args, const trainer::FeatureGates& gates) {
  const std::vector<std::string> paths = args.values("plugin");
  if (paths.empty()) {
    return std::make_shared<const trainer::Framework>(trainer::default_framework(gates));
  }
  std::vector<std::shared_ptr<trainer::Plugin>> plugins;
  for (const auto& path : paths) {
    auto plugin = trainer::load_plugin(path);
    if (!plugin) {
      // The library's message names the path and says why (dlerror's text, a missing entry
      // symbol, an ABI version).
      std::fprintf(stderr, "error: --plugin: %s\n", plugin.error().message.c_str());
      return tl::unexpected(kExitUsage);
    }
    plugins.push_back(std::move(*plugin));
  }
  auto framework =
      trainer::Framework::with_plugins(trainer::FrameworkOptions{gates, {}}, std::move(plugins));
  if (!framework) {
    std::fprintf(stderr, "error: --plugin: %s\n", framework.error().message.c_str());
    return tl::unexpected(kExitUsage);
  }
  return std::make_shared<const trainer::Framework>(std::move(*framework));
}

}  // namespace trainerctl
