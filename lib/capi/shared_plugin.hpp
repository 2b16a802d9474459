// SPDX-License-Identifier: Apache-2.0
//
// A Framework owns its plugins (`std::unique_ptr<Plugin>`), but a trainer_framework is rebuilt
// on every trainer_framework_add while an earlier build may still be in use (a controller keeps
// its own reference). So the handle keeps each added plugin once, shared, and hands every
// rebuild a forwarder that implements exactly the extension points of the plugin it forwards
// to: the Framework partitions the forwarder as it would the plugin itself.
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::capi {

/// A plugin that forwards every call to `plugin` (not null) and shares its ownership.
[[nodiscard]] std::unique_ptr<Plugin> share_plugin(std::shared_ptr<Plugin> plugin);

}  // namespace trainer::capi
