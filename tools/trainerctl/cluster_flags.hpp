// SPDX-License-Identifier: Apache-2.0
// What every cluster command of trainerctl shares: kubectl's global flags (--kubeconfig,
// --context, -n, --request-timeout), the client they configure, durations as kubectl reads
// them, and errors printed as kubectl prints them.
#pragma once

#include "flags.hpp"

#include "trainer/error.hpp"
#include "trainer/kube.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace trainerctl {

/// The command's own flags followed by the global cluster flags.
[[nodiscard]] std::vector<Flag> with_cluster_flags(std::vector<Flag> flags);

/// A Go duration (`1s`, `2m`, `1h30m`, `500ms`) or a bare number of seconds; nullopt when it is
/// neither or negative.
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_duration(const std::string& text);

/// A client configured from the global flags, as kubectl loads its configuration. `options`
/// carries what the command sets beyond them (the controller's rate limit).
[[nodiscard]] trainer::Result<trainer::kube::Client> connect(
    const Parsed& args, trainer::kube::ClientOptions options = {});

/// The namespace of the command: -n, else the context's.
[[nodiscard]] std::string namespace_of(const Parsed& args, const trainer::kube::Client& client);

/// Prints `error` on stderr as kubectl does (local field errors one per line, as `validate`)
/// and returns kExitFailed.
int report_cluster_error(const trainer::Error& error);

/// The object as `get -o yaml|json` shows it: `metadata.managedFields` hidden.
[[nodiscard]] boost::json::object without_managed_fields(boost::json::object object);

}  // namespace trainerctl
