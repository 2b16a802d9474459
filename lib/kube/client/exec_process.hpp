// SPDX-License-Identifier: Apache-2.0
//
// Runs one credential plugin process: argv through posix_spawn (never a shell), an explicit
// environment, stdout captured up to a bound, stderr passed through, stdin from /dev/null unless
// the run is interactive. The run is bounded by a timeout and a CancelToken; either kills the
// process (its whole process group when it has its own) and reaps it.
#pragma once

#include "trainer/kube.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace trainer::kube::detail {

struct ProcessSpec {
  std::string program;  ///< with a `/`: that file; a bare name: looked up on the caller's PATH
  std::vector<std::string> args;
  std::vector<std::string> env;  ///< `NAME=value` entries, the whole environment
  bool interactive = false;      ///< stdin inherited, process kept in the caller's group
  std::chrono::milliseconds timeout{60000};
  std::size_t max_stdout = std::size_t{1} << 20U;
};

struct ProcessResult {
  int exit_code = 0;  ///< the exit status, or -1 when a signal ended it (Go's ExitCode)
  std::string stdout_text;
};

/// Errors: kNotFound (the program does not exist), kTimeout, kCancelled, kLimit (more stdout
/// than `max_stdout`), kIo (anything else the system refused, `errno_text` wording).
[[nodiscard]] Result<ProcessResult> run_process(const ProcessSpec& spec, const CancelToken& cancel);

}  // namespace trainer::kube::detail
