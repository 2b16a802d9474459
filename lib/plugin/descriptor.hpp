// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer.h"
#include "trainer/error.hpp"
#include "trainer/framework.hpp"

#include <memory>
#include <string>

namespace trainer::detail {

/// plugin_from_descriptor() with `who` (the quoted name, or a library's path) in the ABI message.
[[nodiscard]] Result<std::shared_ptr<Plugin>> checked_plugin(const trainer_plugin_descriptor& desc,
                                                             const std::string& who);

}  // namespace trainer::detail
