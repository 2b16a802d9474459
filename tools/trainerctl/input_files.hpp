// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "flags.hpp"

#include "trainer/codec.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace trainerctl {

/// Reads every `-f` file (`-` is standard input) and parses its documents, in order. Each file
/// is held to the decoder's size limit before it is read whole. Errors name the file.
trainer::Result<std::vector<boost::json::value>> read_documents(
    const std::vector<std::string>& files, const trainer::DecodeOptions& options = {});

/// What `run`, `render`, `validate`, `apply` and `convert` read: the documents of every `-f`
/// file, each Training Operator v1 job and Katib Experiment replaced by its Trainer v2 objects
/// (trainer::convert::convert_documents, with `-n` and `--strict` of `args` where the command
/// has them); the conversion's warnings are printed as `Warning: <text>`. Errors name the file
/// or the v1 field path.
trainer::Result<std::vector<boost::json::value>> read_job_documents(const Parsed& args);

}  // namespace trainerctl
