// SPDX-License-Identifier: Apache-2.0
// A Kubernetes resource quantity as it appears in a JSON object (a string, or a bare number as
// YAML/JSON authors sometimes write it). Internal to trainer_core.
#pragma once

#include "trainer/quantity.hpp"

#include <boost/json/value.hpp>

#include <string_view>

namespace trainer::detail {

/// The quantity `v` of resource `name`; errors say `resource <name>: <text>: <why>`.
[[nodiscard]] Result<Quantity> quantity_from_json(const boost::json::value& v,
                                                  std::string_view name);

}  // namespace trainer::detail
