// SPDX-License-Identifier: Apache-2.0
//
// File and environment helpers shared by kubeconfig loading, in-cluster configuration and the
// authenticator: bounded reads with Go's error wording (`open /x: no such file or directory`,
// what kubectl prints), path resolution against a kubeconfig's folder, environment overrides.
#pragma once

#include "trainer/error.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::kube::detail {

/// Largest kubeconfig, certificate or token file read (kubeconfigs are YAML-decoded with the
/// codec's 4 MiB document limit anyway).
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{4} << 20U;

/// The whole file, at most `max_bytes`. Errors (kIo) read as Go's `*PathError`:
/// `open <path>: no such file or directory`, `read <path>: is a directory`.
[[nodiscard]] Result<std::string> read_file(const std::string& path,
                                            std::size_t max_bytes = kMaxConfigFileBytes);
/// Go's text for an errno value: strerror with a lowercase first letter.
[[nodiscard]] std::string errno_text(int err);
/// Whether `path` exists (any type; a dangling link counts as missing).
[[nodiscard]] bool path_exists(const std::string& path);
/// `path` itself when absolute or empty, else `dir/path` (kubectl resolves relative entries
/// against the folder of the file that defined them, never the working directory).
[[nodiscard]] std::string resolve_against(const std::string& dir, const std::string& path);
/// The folder of `file` (`.` for a bare name), absolute when the process can tell.
[[nodiscard]] std::string folder_of(const std::string& file);
/// `override` when set, else the environment variable (empty when unset).
[[nodiscard]] std::string env_or(const std::optional<std::string>& override, const char* name);
/// ASCII whitespace removed at both ends (Go's strings.TrimSpace for token files).
[[nodiscard]] std::string trim_space(std::string_view text);

}  // namespace trainer::kube::detail
