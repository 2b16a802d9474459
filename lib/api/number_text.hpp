// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace trainer::detail {

/// Shortest text that reads back as the same double (`1.5`, `1e+21`); `null` for NaN and
/// infinities, which neither JSON nor our YAML reader accept.
[[nodiscard]] std::string double_text(double d);

}  // namespace trainer::detail
