// SPDX-License-Identifier: Apache-2.0
// The texts embedded from tools/trainerctl/install/*.yaml (sorted by file name).
#pragma once

#include "api/embedded_text.hpp"

#include <vector>

namespace trainerctl {

const std::vector<trainer::detail::EmbeddedText>& install_manifest_texts() noexcept;

}  // namespace trainerctl
