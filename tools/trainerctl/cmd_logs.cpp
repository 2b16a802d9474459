// SPDX-License-Identifier: Apache-2.0
// `trainerctl logs DIR [POD]`: the logs of a local run.
#include "commands.hpp"
#include "output.hpp"

#include "trainer/local.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>

namespace trainerctl {
namespace {

int run_logs(const Parsed& args) {
  const auto& positional = args.args();
  std::string path;
  if (positional.size() == 2) {
    auto found = trainer::local::pod_log_path(positional[0], positional[1]);
    if (!found) return report_error(found.error());
    path = *found;
  } else {
    if (auto state = trainer::local::read_status(positional[0]); !state) {
      return report_error(state.error());
    }
    path = trainer::local::combined_log_path(positional[0]);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
    return kExitFailed;
  }
  std::cout << in.rdbuf();
  std::cout.flush();
  return kExitOk;
}

}  // namespace

const Command& logs_command() {
  static const Command command{
      "logs",
      "the logs of a local run folder",
      "Without POD: every pod's lines with their [<replicatedJob>-<job>-<pod>] prefixes, in the\n"
      "order they arrived. POD: a pod name, hostname or prefix (node-0-0); its latest attempt's\n"
      "stdout and stderr as written.",
      {{"RUN_DIR", true}, {"POD", false}},
      {},
      run_logs};
  return command;
}

}  // namespace trainerctl
