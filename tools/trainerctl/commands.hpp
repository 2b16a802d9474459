// SPDX-License-Identifier: Apache-2.0
// trainerctl subcommands. Each is a flag table (flags.hpp) and a function that returns the
// process exit code: 0 success, 1 the inputs were rejected or the operation failed, 2 usage
// error (also for every error of the argument parser).
#pragma once

#include "flags.hpp"

#include <vector>

namespace trainerctl {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// Flags that several commands share, spelled the same everywhere.
inline const Flag kFilenameFlag{
    "filename", 'f', "FILE", "a file with TrainJobs and runtimes (YAML or JSON); - is stdin",
    {},         {},  false,  true,
    true};
inline const Flag kNamespaceFlag{"namespace", 'n', "NS",
                                 "namespace for inputs that have none (default: default)"};
inline const Flag kBuiltinRuntimesFlag{
    "builtin-runtimes", '\0', "",
    "a ClusterTrainingRuntime that is not among the inputs may be one that ships with "
    "libtrainer (see 'trainerctl runtimes')"};
// The API server's strict field validation; inputs may also be Training Operator v1 jobs
// (converted on the way in, docs/convert.md).
inline const Flag kStrictFlag{"strict", '\0', "",
                              "an unknown field (as the API server's strict field validation "
                              "refuses it), or a Training Operator v1 field that Trainer v2 "
                              "cannot express, is an error, not a warning"};

/// What completion offers for a cluster command's TYPE: the Trainer kinds and what a TrainJob
/// owns (any kind the server serves is accepted).
inline const std::vector<std::string_view> kResourceTypeHints = {
    "trainjobs",        "trainingruntimes", "clustertrainingruntimes",
    "optimizationjobs", "jobsets",          "pods"};

const Command& version_command();
const Command& validate_command();
const Command& render_command();
const Command& run_command();
const Command& status_command();
const Command& logs_command();
const Command& runtimes_command();
const Command& keygen_command();
const Command& apply_command();
const Command& get_command();
const Command& describe_command();
const Command& wait_command();
const Command& delete_command();
const Command& controller_command();
const Command& convert_command();
const Command& install_command();
const Command& uninstall_command();
const Command& completion_command();

/// Every command, in the order `trainerctl --help` lists them (the completion scripts are
/// generated from the same list).
const std::vector<const Command*>& all_commands();

}  // namespace trainerctl
