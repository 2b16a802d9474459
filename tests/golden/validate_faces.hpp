// SPDX-License-Identifier: Apache-2.0
//
// The validation faces of a rejected golden case: the C++ core (`trainer::admit`, what
// `trainerctl validate` calls), the C ABI (`trainer_document_validate` on every document with the
// whole input as context), its C++ wrapper (`trainer.hpp`) and the `trainerctl validate` program
// must report the same field errors and warnings, and those must be the case's
// `expected/field-errors.txt` (one `field.Error` text a line; the Go and Rust binding tests read
// the same files) and reference the field and message of its `expected/error.txt`.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace golden {

/// Checks the case in `dir` whose joined input documents are `inputs`; `expected_error` holds
/// the key/value lines of `expected/error.txt`; `trainerctl` is the program to run (empty: the
/// CLI face is skipped). Returns 0 when every face agrees, 1 otherwise (the differences are
/// printed). With the environment variable GOLDEN_UPDATE set, `expected/field-errors.txt` is
/// (re)written from the core's field errors first.
int check_validate_faces(const std::filesystem::path& dir, const std::string& inputs,
                         const std::map<std::string, std::string>& expected_error,
                         const std::string& trainerctl);

}  // namespace golden
