// SPDX-License-Identifier: Apache-2.0
// trainerctl's one argument parser: every command declares its flags and positional arguments in
// a table, and `parse_command` reads the command line against it with kubectl's (pflag's)
// syntax. `--help` is generated from the same table.
//
// Syntax, as pflag reads it:
// - long flags: `--name value`, `--name=value`; boolean: `--name` (true), `--name=true|false`
//   (also 1/0, t/f, TRUE/FALSE, True/False), never `--name false`;
// - shorthands: `-f value`, `-fvalue`, `-f=value`; booleans combine (`-ab`);
// - flags and positional arguments may be interleaved; `--` ends the flags, and a lone `-` is an
//   argument (standard input);
// - a flag given twice: the last value wins, or every value counts when the flag is repeatable;
//   a comma-list flag also splits each value at commas (`-f a.yaml,b.yaml`, as kubectl's -f);
// - `-h`/`--help` prints the help and ends the command with kExitOk.
// Errors (unknown flag, missing value, bad boolean or choice, missing or extra positional
// argument, missing required flag) print `error: ...` and, where a name is close to a known
// one, cobra's `Did you mean this?` list on stderr; the command then ends with kExitUsage.
#pragma once

#include <tl/expected.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainerctl {

/// The words after the command name.
using Args = std::vector<std::string>;

/// One flag of a command.
struct Flag {
  std::string_view name{};        ///< long name, used as `--name`
  char shorthand = '\0';          ///< `-x`, or '\0' for none
  std::string_view value_name{};  ///< the value in the help (`FILE`); empty: a boolean flag
  std::string_view help{};        ///< one line (wrapped by the help printer)
  /// When non-empty, the only values accepted; a choice that ends in `=` (`jsonpath=`) takes
  /// any value that starts with it.
  std::vector<std::string_view> choices{};
  std::string_view default_value{};  ///< the value when the flag is not given
  bool repeatable = false;           ///< every value is kept (`-f a -f b`); else the last one wins
  bool comma_list = false;           ///< each value is also split at commas (implies repeatable)
  bool required = false;             ///< the command needs at least one value
};

/// One positional argument of a command.
struct Positional {
  std::string_view name{};                  ///< as shown in the synopsis: RUN_DIR
  bool required = true;                     ///< optional ones come after the required ones
  bool repeated = false;                    ///< the last one only: it takes every further argument
  std::vector<std::string_view> choices{};  ///< when non-empty, the only values accepted
  std::vector<std::string_view> hints{};    ///< what completion offers (not enforced)
};

class Parsed;

/// A trainerctl command: its synopsis, help and flag table, and what it runs.
struct Command {
  std::string_view name{};
  std::string_view summary{};      ///< one line in `trainerctl --help`
  std::string_view description{};  ///< the paragraph under the synopsis in `--help`
  std::vector<Positional> positionals{};
  std::vector<Flag> flags{};
  int (*run)(const Parsed& args) = nullptr;
};

/// The command line of one command as read against its table.
class Parsed {
 public:
  /// Whether the flag was given on the command line.
  [[nodiscard]] bool given(std::string_view flag) const;
  /// The flag's last value, or its default when it was not given.
  [[nodiscard]] std::string value(std::string_view flag) const;
  /// Every value of a repeatable flag, in command-line order (comma lists split).
  [[nodiscard]] std::vector<std::string> values(std::string_view flag) const;
  /// A boolean flag's value (false when not given).
  [[nodiscard]] bool enabled(std::string_view flag) const;
  /// The positional arguments, in order.
  [[nodiscard]] const std::vector<std::string>& args() const { return args_; }

 private:
  friend tl::expected<Parsed, int> parse_command(const Command& command, const Args& args);
  const Command* command_ = nullptr;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
  std::vector<std::string> args_;
};

/// Reads `args` (the words after the command name) against `command`'s table. On `--help` the
/// help is printed on stdout and the error is kExitOk; on a usage error the message is printed
/// on stderr and the error is kExitUsage.
[[nodiscard]] tl::expected<Parsed, int> parse_command(const Command& command, const Args& args);

/// `--help` of `command`: synopsis, description, flags.
[[nodiscard]] std::string command_help(const Command& command);

/// The synopsis: `trainerctl render -f FILE [-f FILE ...] [--uid UID] ...` wrapped to 100
/// columns, continuation lines aligned under the first flag.
[[nodiscard]] std::string command_synopsis(const Command& command);

/// The candidates that `typed` may have been meant as (case-insensitive), in candidate order:
/// those `typed` is a prefix of (cobra's rule), and those within an edit distance that grows
/// with the word (a swap of two neighbours is one edit): 1 for words of up to 5 characters, 2
/// for longer ones. cobra allows 2 everywhere, which makes `edit` suggest `wait`.
[[nodiscard]] std::vector<std::string_view> suggestions(
    std::string_view typed, const std::vector<std::string_view>& candidates);

/// `\n\nDid you mean this?\n\t<s>\n...` for non-empty `suggested`, else "".
[[nodiscard]] std::string did_you_mean(const std::vector<std::string_view>& suggested);

/// Prints `error: <message>` and where `command`'s usage is (`See 'trainerctl <command> --help'
/// for usage.`) to stderr; returns the usage exit code (2).
int usage_error(std::string_view command, const std::string& message);

}  // namespace trainerctl
