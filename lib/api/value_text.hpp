// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <boost/json/value.hpp>

#include <string>

namespace trainer::detail {

/// A value as field errors print it (Kubernetes: %v for scalars, %q for strings; composite values
/// as compact JSON, docs/upstream-differences.md): `0.99`, `"All"`, `true`, `{"a":1}`.
[[nodiscard]] std::string value_text(const boost::json::value& v);

}  // namespace trainer::detail
