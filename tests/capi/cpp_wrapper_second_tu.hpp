// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer.hpp"

#include <string>
#include <string_view>

/// Parses `yaml`, defaults its first document and encodes it as JSON, all in another TU.
trainer::Result<std::string> second_tu_round_trip(std::string_view yaml);
/// trainer::abi::to_error, instantiated in another TU.
trainer::Error second_tu_to_error(const trainer_error* err, trainer_status status);
