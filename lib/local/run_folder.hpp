// SPDX-License-Identifier: Apache-2.0
//
// The run folder (docs/local.md): state.json, hosts, logs/, pods/<pod>/, claims/, sockets/.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace trainer::local::detail {

/// Writes `<run_dir>/state.json` atomically (a reader never sees half a document).
[[nodiscard]] Result<void> write_state(const std::string& run_dir, const boost::json::value& state);

/// `mkdir -p`.
[[nodiscard]] Result<void> make_dirs(const std::string& path, unsigned mode = 0755);

/// Writes `content` to `path` with `mode` (exactly, whatever the umask).
[[nodiscard]] Result<void> write_file(const std::string& path, const std::string& content,
                                      unsigned mode = 0644);

}  // namespace trainer::local::detail
