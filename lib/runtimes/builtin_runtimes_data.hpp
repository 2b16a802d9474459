// SPDX-License-Identifier: Apache-2.0
// The texts embedded from lib/runtimes/builtin/*.yaml (sorted by file name).
#pragma once

#include "api/embedded_text.hpp"

#include <vector>

namespace trainer::detail {

const std::vector<EmbeddedText>& builtin_runtime_texts() noexcept;

}  // namespace trainer::detail
