// SPDX-License-Identifier: Apache-2.0
#include "commands.hpp"

#include "trainer/runtimes.hpp"

#include <cstdio>
#include <string>

namespace trainerctl {
namespace {

int run_runtimes(const Parsed& args) {
  if (args.args().empty()) {
    for (const auto& runtime : trainer::builtin_runtimes()) {
      std::printf("%.*s\n", static_cast<int>(runtime.name.size()), runtime.name.data());
    }
    return kExitOk;
  }
  const std::string& name = args.args()[0];
  const auto yaml = trainer::find_builtin_runtime(name);
  if (!yaml) {
    std::fprintf(stderr, "error: no built-in runtime \"%s\" (see 'trainerctl runtimes')\n",
                 name.c_str());
    return kExitFailed;
  }
  std::fwrite(yaml->data(), 1, yaml->size(), stdout);
  return kExitOk;
}

}  // namespace

const Command& runtimes_command() {
  static const Command command{
      "runtimes",
      "list the built-in ClusterTrainingRuntimes, or print one",
      "Lists the ClusterTrainingRuntimes that ship with libtrainer, or prints the manifest of\n"
      "one. 'run' uses them when a TrainJob references one that is not among its inputs;\n"
      "'render' and 'validate' do with --builtin-runtimes.",
      {{"NAME", false}},
      {},
      run_runtimes};
  return command;
}

}  // namespace trainerctl
