// SPDX-License-Identifier: Apache-2.0
//
// The TrainJob converters of json_convert_trainjob.cpp that other kinds embed: an
// OptimizationJob's `trainJobTemplate.spec` is a TrainJobSpec and its status carries
// `metav1.Condition`s.
#pragma once

#include "api/decode_context.hpp"
#include "api/encode_helpers.hpp"
#include "trainer/model.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace trainer::detail {

void read_value(DecodeContext& c, const boost::json::value& v, const std::string& path,
                TrainJobSpec& out);
void read_value(DecodeContext& c, const boost::json::value& v, const std::string& path,
                Condition& out);
[[nodiscard]] boost::json::value to_value(Enc, const TrainJobSpec& s);
[[nodiscard]] boost::json::value to_value(Enc, const Condition& c);

}  // namespace trainer::detail
