// SPDX-License-Identifier: Apache-2.0
// trainerctl subcommands. Each returns the process exit code: 0 success, 1 the inputs were
// rejected or the operation failed, 2 usage error.
#pragma once

#include <string>
#include <vector>

namespace trainerctl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

using Args = std::vector<std::string>;

int cmd_version(const Args& args);
int cmd_validate(const Args& args);
int cmd_render(const Args& args);
int cmd_run(const Args& args);
int cmd_status(const Args& args);
int cmd_logs(const Args& args);
int cmd_runtimes(const Args& args);
int cmd_keygen(const Args& args);

}  // namespace trainerctl
