// SPDX-License-Identifier: Apache-2.0
//
// Text front ends behind `parse_documents`. Both expect text that already passed the size and
// UTF-8 checks and enforce the structural limits of `DecodeOptions` themselves.
#pragma once

#include "trainer/codec.hpp"

#include <string_view>
#include <vector>

namespace trainer::detail {

/// A YAML stream -> one JSON value per non-null document.
[[nodiscard]] Result<std::vector<boost::json::value>> read_yaml(std::string_view text,
                                                                const DecodeOptions& options);

/// One JSON text -> one value; duplicate object keys are refused.
[[nodiscard]] Result<boost::json::value> read_json(std::string_view text,
                                                   const DecodeOptions& options);

}  // namespace trainer::detail
