// SPDX-License-Identifier: Apache-2.0
// trainerctl: the libtrainer command line. Finds the command, reads its arguments against its
// flag table (flags.hpp) and runs it.
#include "commands.hpp"

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace trainerctl {

const std::vector<const Command*>& all_commands() {
  static const std::vector<const Command*> all = {
      &version_command(),   &validate_command(),   &render_command(),   &run_command(),
      &status_command(),    &logs_command(),       &runtimes_command(), &keygen_command(),
      &apply_command(),     &get_command(),        &describe_command(), &wait_command(),
      &delete_command(),    &controller_command(), &convert_command(),  &install_command(),
      &uninstall_command(), &completion_command()};
  return all;
}

}  // namespace trainerctl

namespace {

using trainerctl::Command;

std::string usage() {
  std::string out = "usage: trainerctl <command> [flags]\ncommands:\n";
  for (const auto* c : trainerctl::all_commands()) {
    out += "  " + std::string(c->name) + std::string(12 - c->name.size(), ' ') +
           std::string(c->summary) + "\n";
  }
  out +=
      "Run 'trainerctl <command> --help' for a command's flags; 'trainerctl --version' for the\n"
      "version; 'trainerctl completion bash|zsh|fish' for shell completion.\n";
  return out;
}

const Command* find_command(std::string_view name) {
  for (const auto* c : trainerctl::all_commands()) {
    if (c->name == name) return c;
  }
  return nullptr;
}

// cobra's answer to an unknown command, with its suggestions.
int unknown_command(std::string_view name) {
  std::vector<std::string_view> names;
  for (const auto* c : trainerctl::all_commands()) names.push_back(c->name);
  names.emplace_back("help");
  std::fprintf(stderr, "error: unknown command \"%.*s\" for \"trainerctl\"%s\n",
               static_cast<int>(name.size()), name.data(),
               trainerctl::did_you_mean(trainerctl::suggestions(name, names)).c_str());
  std::fputs("Run 'trainerctl --help' for usage.\n", stderr);
  return trainerctl::kExitUsage;
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(usage().c_str(), stderr);
    return trainerctl::kExitUsage;
  }
  const std::string_view name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    // `trainerctl help COMMAND` is `trainerctl COMMAND --help`.
    if (name == "help" && argc > 2) {
      const Command* c = find_command(argv[2]);
      if (c == nullptr) return unknown_command(argv[2]);
      std::fputs(trainerctl::command_help(*c).c_str(), stdout);
      return trainerctl::kExitOk;
    }
    std::fputs(usage().c_str(), stdout);
    return trainerctl::kExitOk;
  }
  // cobra's --version: what the version command prints.
  if (name == "--version" && argc == 2) {
    auto parsed = trainerctl::parse_command(trainerctl::version_command(), {});
    if (!parsed) return parsed.error();
    return trainerctl::version_command().run(*parsed);
  }
  if (!name.empty() && name[0] == '-') {
    std::fprintf(stderr, "error: unknown flag: %s (flags follow the command)\n%s", argv[1],
                 usage().c_str());
    return trainerctl::kExitUsage;
  }
  const Command* command = find_command(name);
  if (command == nullptr) return unknown_command(name);
  auto parsed = trainerctl::parse_command(*command, trainerctl::Args(argv + 2, argv + argc));
  if (!parsed) return parsed.error();
  return command->run(*parsed);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const std::exception& e) {
    // The library returns errors as values; this only catches allocation failures and bugs.
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return trainerctl::kExitFailed;
  }
}
