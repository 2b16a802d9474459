// SPDX-License-Identifier: Apache-2.0
// The plugin and framework handles of trainer/plugin.h, shared by the entry points that take a
// framework (render, validate, cluster apply, controller).
#pragma once

#include "trainer.h"
#include "trainer/framework.hpp"
#include "trainer/render.hpp"

#include <memory>
#include <string>
#include <vector>

struct trainer_plugin {
  std::shared_ptr<trainer::Plugin> plugin;
  std::string name;  ///< NUL-terminated copy of plugin->name() for trainer_plugin_name
};

struct trainer_framework {
  trainer::FeatureGates gates;
  /// The added plugins, in order; each rebuild of `framework` forwards to them.
  std::vector<std::shared_ptr<trainer::Plugin>> added;
  /// Built-in plugins of `gates`, then `added`. Shared: a controller keeps its own reference.
  std::shared_ptr<const trainer::Framework> framework;
  /// Every plugin's name in framework order (NUL-terminated, for trainer_framework_plugin_name).
  std::vector<std::string> names;
};
