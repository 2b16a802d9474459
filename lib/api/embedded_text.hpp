// SPDX-License-Identifier: Apache-2.0
// A text compiled into the program (cmake/TrainerEmbedText.cmake): the built-in runtimes, and
// the manifests `trainerctl install` applies.
#pragma once

#include <string>

namespace trainer::detail {

struct EmbeddedText {
  std::string name;  ///< the file's name up to its last dot
  std::string text;
};

}  // namespace trainer::detail
