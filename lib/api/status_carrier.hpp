// SPDX-License-Identifier: Apache-2.0
//
// A TrainJob `status` on its own (a progress post's `trainerStatus`, a plugin's refined status),
// decoded with the model's rules as the API server checks a status write: inside a carrier
// TrainJob of that name, so that errors read `status.<path>: ...` as the server's do.
#pragma once

#include "trainer/codec.hpp"

#include <boost/json/object.hpp>

#include <string_view>

namespace trainer::detail {

[[nodiscard]] Result<Decoded<TrainJob>> decode_train_job_status(std::string_view name,
                                                                boost::json::object status);

}  // namespace trainer::detail
