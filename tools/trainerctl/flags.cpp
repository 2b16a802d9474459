// SPDX-License-Identifier: Apache-2.0
#include "flags.hpp"

#include "commands.hpp"

#include "trainer/names.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

namespace trainerctl {
namespace {

constexpr std::size_t kWidth = 100;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool accepts(const std::vector<std::string_view>& choices, std::string_view value) {
  return std::any_of(choices.begin(), choices.end(), [&](std::string_view choice) {
    if (!choice.empty() && choice.back() == '=') return value.substr(0, choice.size()) == choice;
    return value == choice;
  });
}

// Go's strconv.ParseBool, which pflag uses for boolean flags.
std::optional<bool> parse_bool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "true" || s == "TRUE" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "false" || s == "FALSE" || s == "False") {
    return false;
  }
  return std::nullopt;
}

bool is_boolean(const Flag& flag) {
  return flag.value_name.empty();
}

// `-o, --output` or `--uid`, as pflag names a flag in its errors.
std::string flag_label(const Flag& flag) {
  std::string label;
  if (flag.shorthand != '\0') label = std::string("-") + flag.shorthand + ", ";
  return label + "--" + std::string(flag.name);
}

// How the synopsis and the errors spell a flag: its shorthand when it has one.
std::string flag_spelling(const Flag& flag) {
  return flag.shorthand != '\0' ? std::string("-") + flag.shorthand : "--" + std::string(flag.name);
}

std::string join(const std::vector<std::string_view>& words, std::string_view last_sep) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i != 0) out += i + 1 == words.size() ? last_sep : std::string_view(", ");
    out += words[i];
  }
  return out;
}

// Appends `text` to `out` word by word, breaking lines at kWidth; continuation lines start with
// `indent` spaces. `column` is the current column.
void wrap(std::string& out, std::size_t column, std::size_t indent, std::string_view text) {
  std::size_t pos = 0;
  bool first = true;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(' ', pos), text.size());
    const std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!first && column + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
}

// The synopsis after `prefix` (which the caller prints first), aligned under its first item.
std::string synopsis(const Command& command, std::size_t prefix) {
  std::vector<std::string> items;
  for (const auto& p : command.positionals) {
    const std::string name(p.name);
    if (p.required) items.push_back(name);
    items.push_back(p.repeated ? "[" + name + " ...]" : p.required ? "" : "[" + name + "]");
    if (items.back().empty()) items.pop_back();
  }
  for (const auto& flag : command.flags) {
    std::string item = flag_spelling(flag);
    if (!is_boolean(flag)) item += " " + std::string(flag.value_name);
    const bool many = flag.repeatable || flag.comma_list;
    if (flag.required) {
      items.push_back(item);
      if (many) items.push_back("[" + item + " ...]");
    } else {
      items.push_back("[" + item + "]");
    }
  }
  std::string head = "trainerctl " + std::string(command.name);
  std::string out = head;
  const std::size_t indent = prefix + head.size() + 1;
  std::size_t column = indent - 1;
  for (const auto& item : items) {
    if (column + 1 + item.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else {
      out += ' ';
      ++column;
    }
    out += item;
    column += item.size();
  }
  return out;
}

const Flag* find_long(const Command& command, std::string_view name) {
  for (const auto& flag : command.flags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

const Flag* find_short(const Command& command, char shorthand) {
  for (const auto& flag : command.flags) {
    if (flag.shorthand != '\0' && flag.shorthand == shorthand) return &flag;
  }
  return nullptr;
}

int flag_usage_error(const Command& command, const std::string& message,
                     const std::vector<std::string_view>& suggested = {}) {
  return usage_error(command.name, message + did_you_mean(suggested));
}

// `--name` candidates for a mistyped long flag name.
std::vector<std::string_view> flag_suggestions(const Command& command, std::string_view typed,
                                               std::vector<std::string>& storage) {
  std::vector<std::string_view> names;
  for (const auto& flag : command.flags) names.push_back(flag.name);
  names.emplace_back("help");
  storage.clear();
  for (const auto name : suggestions(typed, names)) storage.push_back("--" + std::string(name));
  return {storage.begin(), storage.end()};
}

}  // namespace

bool Parsed::given(std::string_view flag) const {
  return values_.find(flag) != values_.end();
}

std::string Parsed::value(std::string_view flag) const {
  if (const auto it = values_.find(flag); it != values_.end()) return it->second.back();
  if (command_ != nullptr) {
    if (const auto* f = find_long(*command_, flag)) return std::string(f->default_value);
  }
  return {};
}

std::vector<std::string> Parsed::values(std::string_view flag) const {
  if (const auto it = values_.find(flag); it != values_.end()) return it->second;
  return {};
}

bool Parsed::enabled(std::string_view flag) const {
  return value(flag) == "true";
}

tl::expected<Parsed, int> parse_command(const Command& command, const Args& args) {
  Parsed out;
  out.command_ = &command;
  std::vector<std::string> storage;
  // Stores one value of `flag` (already checked to be present); false after a usage error.
  const auto take = [&](const Flag& flag, const std::string& value) -> std::optional<int> {
    std::string stored = value;
    if (is_boolean(flag)) {
      const auto b = parse_bool(value);
      if (!b) {
        return flag_usage_error(command, "invalid argument \"" + value + "\" for \"" +
                                             flag_label(flag) + "\" flag: must be true or false");
      }
      stored = *b ? "true" : "false";
    } else if (!flag.choices.empty() && !accepts(flag.choices, value)) {
      return flag_usage_error(command, "invalid argument \"" + value + "\" for \"" +
                                           flag_label(flag) + "\" flag: must be " +
                                           join(flag.choices, " or "));
    }
    auto& slot = out.values_[std::string(flag.name)];
    if (!flag.repeatable && !flag.comma_list) slot.clear();
    if (flag.comma_list) {
      std::size_t pos = 0;
      for (;;) {
        const std::size_t comma = stored.find(',', pos);
        slot.push_back(stored.substr(pos, comma - pos));
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    } else {
      slot.push_back(std::move(stored));
    }
    return std::nullopt;
  };
  const auto help = [&]() {
    std::fputs(command_help(command).c_str(), stdout);
    return kExitOk;
  };

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.args_.insert(out.args_.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                       args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      out.args_.push_back(arg);
      continue;
    }
    if (arg[1] == '-') {
      // --name, --name=value, --name value
      const std::size_t eq = arg.find('=');
      const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (name.empty() || name[0] == '-') {
        return tl::unexpected(flag_usage_error(command, "bad flag syntax: " + arg));
      }
      const Flag* flag = find_long(command, name);
      if (flag == nullptr) {
        if (name == "help") return tl::unexpected(help());
        return tl::unexpected(flag_usage_error(command, "unknown flag: --" + name,
                                               flag_suggestions(command, name, storage)));
      }
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (is_boolean(*flag)) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return tl::unexpected(flag_usage_error(command, "flag needs an argument: --" + name));
      }
      if (auto rc = take(*flag, value)) return tl::unexpected(*rc);
      continue;
    }
    // -f value, -fvalue, -f=value, -ab (booleans)
    for (std::size_t k = 1; k < arg.size(); ++k) {
      const char c = arg[k];
      const Flag* flag = find_short(command, c);
      if (flag == nullptr) {
        if (c == 'h') return tl::unexpected(help());
        // `-uid`: a long name written with one dash.
        const std::string rest = arg.substr(1, arg.find('=') - 1);
        return tl::unexpected(
            flag_usage_error(command, std::string("unknown shorthand flag: '") + c + "' in " + arg,
                             flag_suggestions(command, rest, storage)));
      }
      const std::string tail = arg.substr(k + 1);
      std::string value;
      bool last = true;
      if (!tail.empty() && tail[0] == '=') {
        value = tail.substr(1);
      } else if (is_boolean(*flag)) {
        value = "true";
        last = tail.empty();
      } else if (!tail.empty()) {
        value = tail;
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return tl::unexpected(flag_usage_error(
            command, std::string("flag needs an argument: '") + c + "' in -" + std::string(1, c)));
      }
      if (auto rc = take(*flag, value)) return tl::unexpected(*rc);
      if (last) break;
    }
  }

  for (const auto& flag : command.flags) {
    if (!flag.required || out.given(flag.name)) continue;
    const std::string spelled = flag_spelling(flag) + " " + std::string(flag.value_name);
    return tl::unexpected(flag_usage_error(
        command,
        (flag.repeatable || flag.comma_list ? "at least one " : "") + spelled + " is required"));
  }
  std::size_t required = 0;
  for (const auto& p : command.positionals) required += p.required ? 1 : 0;
  if (out.args_.size() < required) {
    return tl::unexpected(flag_usage_error(
        command, std::string(command.positionals[out.args_.size()].name) + " is required"));
  }
  const bool open_ended = !command.positionals.empty() && command.positionals.back().repeated;
  if (out.args_.size() > command.positionals.size() && !open_ended) {
    return tl::unexpected(flag_usage_error(
        command, "unexpected argument \"" + out.args_[command.positionals.size()] + "\""));
  }
  for (std::size_t i = 0; i < out.args_.size(); ++i) {
    const auto& p = command.positionals[std::min(i, command.positionals.size() - 1)];
    if (!p.choices.empty() && !accepts(p.choices, out.args_[i])) {
      return tl::unexpected(flag_usage_error(command, "invalid argument \"" + out.args_[i] +
                                                          "\" for " + std::string(p.name) +
                                                          ": must be " + join(p.choices, " or ")));
    }
  }
  return out;
}

std::string command_synopsis(const Command& command) {
  return synopsis(command, 0);
}

std::string command_help(const Command& command) {
  std::string out = "usage: " + synopsis(command, 7) + "\n\n";
  // The description keeps its own line breaks; each line is indented by two spaces.
  std::size_t pos = 0;
  while (pos < command.description.size()) {
    const std::size_t nl =
        std::min(command.description.find('\n', pos), command.description.size());
    out += "  ";
    out += command.description.substr(pos, nl - pos);
    out += "\n";
    pos = nl + 1;
  }

  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& flag : command.flags) {
    std::string left = flag.shorthand != '\0' ? std::string("-") + flag.shorthand + ", " : "    ";
    left += "--" + std::string(flag.name);
    if (!is_boolean(flag)) left += " " + std::string(flag.value_name);
    std::string text(flag.help);
    if (!flag.default_value.empty()) text += " (default: " + std::string(flag.default_value) + ")";
    if (flag.comma_list) {
      text += "; repeatable, and comma-separated lists are split";
    } else if (flag.repeatable) {
      text += "; repeatable";
    }
    rows.emplace_back(std::move(left), std::move(text));
  }
  rows.emplace_back("-h, --help", "print this help");
  std::size_t column = 0;
  for (const auto& row : rows) column = std::max(column, row.first.size());
  column += 4;  // two spaces of indent, two between the columns
  out += "\nFlags:\n";
  for (const auto& row : rows) {
    out += "  " + row.first + std::string(column - 2 - row.first.size(), ' ');
    wrap(out, column, column, row.second);
    out += "\n";
  }
  out += "\n";
  wrap(out, 0, 0,
       "A value follows its flag as the next word or after '=' (--flag=value, -f value, -f=value, "
       "-fvalue); boolean flags take =true or =false; '--' ends the flags.");
  out += "\n";
  return out;
}

std::vector<std::string_view> suggestions(std::string_view typed,
                                          const std::vector<std::string_view>& candidates) {
  std::vector<std::string_view> out;
  const std::string t = lower(typed);
  if (t.empty()) return out;
  const std::size_t allowed = t.size() <= 5 ? 1 : 2;
  for (const auto candidate : candidates) {
    const std::string c = lower(candidate);
    if (trainer::edit_distance(t, c) <= allowed || c.rfind(t, 0) == 0) out.push_back(candidate);
  }
  return out;
}

std::string did_you_mean(const std::vector<std::string_view>& suggested) {
  if (suggested.empty()) return {};
  std::string out = "\n\nDid you mean this?\n";
  for (const auto s : suggested) out += "\t" + std::string(s) + "\n";
  return out;
}

int usage_error(std::string_view command, const std::string& message) {
  std::fprintf(stderr, "error: %s\nSee 'trainerctl %.*s --help' for usage.\n", message.c_str(),
               static_cast<int>(command.size()), command.data());
  return kExitUsage;
}

}  // namespace trainerctl
