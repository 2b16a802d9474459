// SPDX-License-Identifier: Apache-2.0
// The plugin and framework handles of trainer/plugin.h, shared by the entry points that take a
// framework (render, validate, cluster apply, controller).
#pragma once

#include "trainer.h"
#include "trainer/framework.hpp"
#include "trainer/render.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct trainer_plugin {
  std::shared_ptr<trainer::Plugin> plugin;
  std::string name;  ///< NUL-terminated copy of plugin->name() for trainer_plugin_name
};

struct trainer_framework {
  /// The added plugins, in order; each rebuild of `framework` shares them.
  std::vector<std::shared_ptr<trainer::Plugin>> added;
  /// Built-in plugins of its feature gates, then `added`. Shared: a controller keeps its own
  /// reference.
  std::shared_ptr<const trainer::Framework> framework;
  /// Every plugin's name in framework order (NUL-terminated, for trainer_framework_plugin_name).
  std::vector<std::string> names;
};

namespace trainer::capi {

/// The plugins an options struct of the C ABI names: `framework`'s when it is set (its gates
/// apply, so `gates` must then be NULL or ""), else the built-in plugins of `gates` (shared
/// without a copy: `default_framework` lives as long as the library). Errors (kInvalidArgument):
/// `<what>: feature_gates: <the parser's message>`, `<what>: feature_gates must be empty with a
/// framework (the framework's gates apply)`.
[[nodiscard]] Result<std::shared_ptr<const Framework>> plugins_of(
    std::string_view what, const char* gates, const trainer_framework* framework);

}  // namespace trainer::capi
