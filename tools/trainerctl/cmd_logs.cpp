// SPDX-License-Identifier: Apache-2.0
// `trainerctl logs DIR [POD]`: the logs of a local run.
#include "commands.hpp"
#include "output.hpp"

#include "trainer/local.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string_view>

namespace trainerctl {
namespace {

constexpr std::string_view kUsage =
    "usage: trainerctl logs RUN_DIR [POD]\n"
    "  Without POD: every pod's lines with their [<replicatedJob>-<job>-<pod>] prefixes, in the\n"
    "  order they arrived. POD: a pod name, hostname or prefix (node-0-0); its latest attempt's\n"
    "  stdout and stderr as written.\n";

}  // namespace

int cmd_logs(const Args& args) {
  std::vector<std::string> positional;
  for (const auto& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage.data(), stdout);
      return kExitOk;
    }
    if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "error: unexpected argument \"%s\"\n%s", a.c_str(), kUsage.data());
      return kExitUsage;
    }
    positional.push_back(a);
  }
  if (positional.empty() || positional.size() > 2) {
    std::fprintf(stderr, "error: RUN_DIR [POD] expected\n%s", kUsage.data());
    return kExitUsage;
  }
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

}  // namespace trainerctl
