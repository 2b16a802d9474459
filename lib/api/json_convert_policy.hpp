// SPDX-License-Identifier: Apache-2.0
//
// The codec's converters of the runtime policies (json_convert_runtime.cpp), for views that
// embed an MLPolicy or a PodGroupPolicy outside a runtime (the plugin request's `info`).
#pragma once

#include "api/decode_context.hpp"
#include "api/encode_helpers.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace trainer::detail {

void read_value(DecodeContext& c, const boost::json::value& v, const std::string& path,
                MLPolicy& out);
void read_value(DecodeContext& c, const boost::json::value& v, const std::string& path,
                PodGroupPolicy& out);
[[nodiscard]] boost::json::value to_value(Enc, const MLPolicy& p);
[[nodiscard]] boost::json::value to_value(Enc, const PodGroupPolicy& p);

}  // namespace trainer::detail
