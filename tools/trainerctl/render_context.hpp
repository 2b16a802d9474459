// SPDX-License-Identifier: Apache-2.0
// The RenderContext trainerctl supplies: the outside inputs the library never reads by itself.
#pragma once

#include "trainer/framework.hpp"

#include <optional>
#include <string>

namespace trainerctl {

/// UID (a random UUID when empty), wall clock, and the MPI key source: the key pair of
/// `ssh_private_key_file` when given (read once, on first use), else a fresh key pair per call.
trainer::RenderContext make_render_context(std::string uid,
                                           std::optional<std::string> ssh_private_key_file);

}  // namespace trainerctl
