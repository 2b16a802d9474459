// SPDX-License-Identifier: Apache-2.0
//
// The adapter of a checked C plugin descriptor (lib/plugin/adapter.cpp).
#pragma once

#include "trainer.h"
#include "trainer/framework.hpp"

#include <memory>

namespace trainer::detail {

/// A Plugin that calls `desc`'s callbacks; its `phases()` are those of the callbacks it has. The
/// descriptor must already be checked (name, ABI); the plugin owns `desc.user_data`.
[[nodiscard]] std::shared_ptr<Plugin> make_c_plugin(const trainer_plugin_descriptor& desc);

}  // namespace trainer::detail
