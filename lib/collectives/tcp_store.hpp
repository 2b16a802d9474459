// SPDX-License-Identifier: Apache-2.0
// Internals of the TCP rendezvous store shared by tcp_store.cpp and env.cpp.
#pragma once

#include "trainer/collectives.hpp"

#include <optional>
#include <string>

namespace trainer::collectives::detail {

/// TRAINER_RENDEZVOUS_SECRET from `env`: std::nullopt when unset or empty; kInvalidArgument
/// (naming the variable, never echoing the value) when shorter than
/// kMinRendezvousSecretBytes.
[[nodiscard]] Result<std::optional<std::string>> rendezvous_secret_from(const EnvLookup& env);

}  // namespace trainer::collectives::detail
