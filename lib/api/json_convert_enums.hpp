// SPDX-License-Identifier: Apache-2.0
//
// The model's enums, which Go carries as strings: the struct codec reaches these by overload,
// like any other member type with rules of its own.
#pragma once

#include "api/decode_context.hpp"
#include "api/encode_helpers.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace trainer::detail {

void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                ObjectiveDirection& out);
void read_value(DecodeContext& c, const boost::json::value& v, const FieldPath& path,
                ParameterType& out);
[[nodiscard]] boost::json::value to_value(Enc, ObjectiveDirection d);
[[nodiscard]] boost::json::value to_value(Enc, ParameterType t);

}  // namespace trainer::detail
