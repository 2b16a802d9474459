// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"

#include "trainer/runtimes.hpp"

#include <cstdio>
#include <string_view>

namespace trainerctl {
namespace {

constexpr std::string_view kUsage =
    "usage: trainerctl runtimes [NAME]\n"
    "  Lists the ClusterTrainingRuntimes that ship with libtrainer, or prints the manifest of\n"
    "  one. 'run' uses them when a TrainJob references one that is not among its inputs.\n";

}  // namespace

int cmd_runtimes(const Args& args) {
  if (args.size() > 1) {
    std::fprintf(stderr, "error: runtimes takes at most one NAME\n%s", kUsage.data());
    return kExitUsage;
  }
  if (args.empty()) {
    for (const auto& runtime : trainer::builtin_runtimes()) {
      std::printf("%.*s\n", static_cast<int>(runtime.name.size()), runtime.name.data());
    }
    return kExitOk;
  }
  if (args[0] == "-h" || args[0] == "--help") {
    std::fputs(kUsage.data(), stdout);
    return kExitOk;
  }
  const auto yaml = trainer::find_builtin_runtime(args[0]);
  if (!yaml) {
    std::fprintf(stderr, "error: no built-in runtime \"%s\" (see 'trainerctl runtimes')\n",
                 args[0].c_str());
    return kExitFailed;
  }
  std::fwrite(yaml->data(), 1, yaml->size(), stdout);
  return kExitOk;
}

}  // namespace trainerctl
