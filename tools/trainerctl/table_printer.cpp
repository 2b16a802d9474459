// SPDX-License-Identifier: Apache-2.0
#include "table_printer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <sys/ioctl.h>
#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace trainerctl {
namespace {

namespace json = boost::json;

constexpr std::size_t kMinWidth = 6;
constexpr std::size_t kPadding = 3;

bool continues(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The byte offset where the character number `n` (0-based) of `text` starts.
std::size_t offset_of(std::string_view text, std::size_t n) {
  std::size_t i = 0;
  for (; i < text.size(); ++i) {
    if (continues(text[i])) continue;
    if (n == 0) return i;
    --n;
  }
  return text.size();
}

// tab_write's column widths: every cell but a line's last is padded.
std::vector<std::size_t> column_widths(const std::vector<TextRow>& lines,
                                       std::size_t min_width = kMinWidth,
                                       std::size_t padding = kPadding) {
  std::vector<std::size_t> widths;
  for (const auto& line : lines) {
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
      if (widths.size() <= i) widths.resize(i + 1, min_width);
      widths[i] = std::max(widths[i], display_width(line[i]) + padding);
    }
  }
  return widths;
}

std::size_t printed_width(const std::vector<TextRow>& lines) {
  const auto widths = column_widths(lines);
  std::size_t widest = 0;
  for (const auto& line : lines) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      w += i + 1 < line.size() ? widths[i] : display_width(line[i]);
    }
    widest = std::max(widest, w);
  }
  return widest;
}

std::size_t positive_number(const char* text) {
  if (text == nullptr) return 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return end != text && *end == '\0' && v > 0 && v < 100000 ? static_cast<std::size_t>(v) : 0;
}

// A cell as kubectl prints it: strings up to their first line break (then `...`), numbers
// and booleans as Go formats them, nothing for a null cell, other values as compact JSON.
std::string cell_text(const json::value& cell) {
  if (cell.is_null()) return "";
  if (cell.is_string()) {
    std::string text(cell.get_string());
    const auto cut = text.find_first_of("\r\n\f");
    if (cut != std::string::npos) text = text.substr(0, cut) + "...";
    return text;
  }
  if (cell.is_bool()) return cell.get_bool() ? "true" : "false";
  return json::serialize(cell);
}

std::string upper(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

const json::object* object_of(const json::value* value) {
  return value != nullptr ? value->if_object() : nullptr;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  // UTF-8 characters: every byte that does not continue a sequence.
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !continues(c); }));
}

std::string shorten(std::string_view text, std::size_t width, bool keep_end) {
  const std::size_t have = display_width(text);
  if (have <= width) return std::string(text);
  constexpr std::string_view kMark = "...";
  if (width <= kMark.size()) return std::string(text.substr(0, offset_of(text, width)));
  const std::size_t keep = width - kMark.size();
  if (!keep_end) return std::string(text.substr(0, offset_of(text, keep))) + std::string(kMark);
  const std::size_t tail = (keep + 1) / 2;
  return std::string(text.substr(0, offset_of(text, keep - tail))) + std::string(kMark) +
         std::string(text.substr(offset_of(text, have - tail)));
}

std::size_t terminal_width(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  const std::size_t columns = positive_number(std::getenv("COLUMNS"));
  return columns > 0 ? columns : 80;
}

std::size_t terminal_height(int fd) {
  winsize size{};
  return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_row : 0;
}

std::string tab_write_fit(std::vector<TextRow> lines, std::size_t width,
                          const std::vector<FitStep>& steps) {
  const auto shown = [&lines](const std::vector<bool>& dropped) {
    std::vector<TextRow> out;
    for (const auto& line : lines) {
      TextRow row;
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (i >= dropped.size() || !dropped[i]) row.push_back(line[i]);
      }
      out.push_back(std::move(row));
    }
    return out;
  };
  std::vector<bool> dropped;
  for (const auto& step : steps) {
    const std::size_t now = printed_width(shown(dropped));
    if (now <= width) break;
    if (step.column < dropped.size() && dropped[step.column]) continue;
    if (step.min_width == 0) {
      if (dropped.size() <= step.column) dropped.resize(step.column + 1, false);
      dropped[step.column] = true;
      continue;
    }
    std::size_t widest = 0;
    for (const auto& line : lines) {
      if (step.column < line.size()) widest = std::max(widest, display_width(line[step.column]));
    }
    if (widest <= step.min_width) continue;
    const std::size_t target = std::max(step.min_width, widest - std::min(widest, now - width));
    for (auto& line : lines) {
      if (step.column < line.size()) {
        line[step.column] = shorten(line[step.column], target, step.keep_end);
      }
    }
  }
  std::string out;
  const std::string text = tab_write(shown(dropped));
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    std::string line = shorten(text.substr(start, end - start), width);
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
    start = end + 1;
  }
  return out;
}

std::string tab_write(const std::vector<TextRow>& lines) {
  return tab_write(lines, kMinWidth, kPadding);
}

std::string tab_write(const std::vector<TextRow>& lines, std::size_t min_width,
                      std::size_t padding) {
  // The last cell of a line is not part of a column.
  const auto widths = column_widths(lines, min_width, padding);
  std::string out;
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      out += line[i];
      if (i + 1 < line.size()) out.append(widths[i] - display_width(line[i]), ' ');
    }
    out += '\n';
  }
  return out;
}

std::vector<TextRow> table_lines(const json::object& table, bool wide, bool with_namespace,
                                 bool with_header) {
  std::vector<std::size_t> shown;
  TextRow header;
  if (with_namespace) header.emplace_back("NAMESPACE");
  if (const auto* columns = table.if_contains("columnDefinitions");
      columns != nullptr && columns->is_array()) {
    for (std::size_t i = 0; i < columns->get_array().size(); ++i) {
      const auto* column = columns->get_array()[i].if_object();
      if (column == nullptr) continue;
      const auto* priority = column->if_contains("priority");
      if (!wide && priority != nullptr && priority->is_number() &&
          priority->to_number<double>() > 0) {
        continue;
      }
      shown.push_back(i);
      const auto* name = column->if_contains("name");
      header.push_back(upper(name != nullptr && name->is_string() ? std::string(name->get_string())
                                                                  : std::string()));
    }
  }
  std::vector<TextRow> lines;
  if (with_header) lines.push_back(header);
  if (const auto* rows = table.if_contains("rows"); rows != nullptr && rows->is_array()) {
    for (const auto& row_value : rows->get_array()) {
      const auto* row = row_value.if_object();
      if (row == nullptr) continue;
      TextRow line;
      if (with_namespace) {
        std::string ns;
        if (const auto* object = object_of(row->if_contains("object"))) {
          if (const auto* meta = object_of(object->if_contains("metadata"))) {
            if (const auto* n = meta->if_contains("namespace"); n != nullptr && n->is_string()) {
              ns = std::string(n->get_string());
            }
          }
        }
        line.push_back(ns);
      }
      const auto* cells = row->if_contains("cells");
      for (const std::size_t i : shown) {
        const bool present = cells != nullptr && cells->is_array() && i < cells->get_array().size();
        line.push_back(present ? cell_text(cells->get_array()[i]) : std::string());
      }
      lines.push_back(std::move(line));
    }
  }
  return lines;
}

}  // namespace trainerctl
