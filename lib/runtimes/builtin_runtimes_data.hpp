// SPDX-License-Identifier: Apache-2.0
// The table generated from lib/runtimes/builtin/*.yaml (sorted by file name).
#pragma once

#include "trainer/runtimes.hpp"

#include <vector>

namespace trainer::detail {

const std::vector<BuiltinRuntime>& builtin_runtime_table() noexcept;

}  // namespace trainer::detail
