// SPDX-License-Identifier: Apache-2.0
// trainerctl: the libtrainer command line.
#include "commands.hpp"

#include <cstdio>
#include <exception>
#include <string_view>

namespace {

constexpr std::string_view kUsage =
    "usage: trainerctl <command> [options]\n"
    "commands:\n"
    "  version     print the trainerctl and libtrainer versions\n"
    "  validate    decode, default and validate TrainJobs and (Cluster)TrainingRuntimes\n"
    "  render      render the objects the Kubeflow Trainer controller would create\n"
    "  run         render a TrainJob and run it on this machine (docs/local.md)\n"
    "  status      the state of a local run folder\n"
    "  logs        the logs of a local run folder\n"
    "  runtimes    list the built-in ClusterTrainingRuntimes, or print one\n"
    "  keygen      write an MPI SSH key pair (ssh-privatekey, ssh-publickey)\n"
    "Run 'trainerctl <command> --help' for a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage.data(), stderr);
    return trainerctl::kExitUsage;
  }
  const std::string_view command = argv[1];
  const trainerctl::Args args(argv + 2, argv + argc);
  try {
    if (command == "version") return trainerctl::cmd_version(args);
    if (command == "validate") return trainerctl::cmd_validate(args);
    if (command == "render") return trainerctl::cmd_render(args);
    if (command == "run") return trainerctl::cmd_run(args);
    if (command == "status") return trainerctl::cmd_status(args);
    if (command == "logs") return trainerctl::cmd_logs(args);
    if (command == "runtimes") return trainerctl::cmd_runtimes(args);
    if (command == "keygen") return trainerctl::cmd_keygen(args);
    if (command == "-h" || command == "--help" || command == "help") {
      std::fputs(kUsage.data(), stdout);
      return trainerctl::kExitOk;
    }
  } catch (const std::exception& e) {
    // The library returns errors as values; this only catches allocation failures and bugs.
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return trainerctl::kExitFailed;
  }
  std::fprintf(stderr, "error: unknown command \"%s\"\n%s", argv[1], kUsage.data());
  return trainerctl::kExitUsage;
}
