// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer/codec.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainerctl {

/// Reads every `-f` file (`-` is standard input) and parses its documents, in order. Each file
/// is held to the decoder's size limit before it is read whole. Errors name the file.
trainer::Result<std::vector<boost::json::value>> read_documents(
    const std::vector<std::string>& files, const trainer::DecodeOptions& options = {});

}  // namespace trainerctl
