// SPDX-License-Identifier: Apache-2.0
#include "table_printer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cctype>

namespace trainerctl {
namespace {

namespace json = boost::json;

constexpr std::size_t kMinWidth = 6;
constexpr std::size_t kPadding = 3;

std::size_t display_width(const std::string& text) {
  // UTF-8 characters: every byte that does not continue a sequence.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
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

std::string tab_write(const std::vector<TextRow>& lines) {
  std::vector<std::size_t> widths;
  for (const auto& line : lines) {
    // The last cell of a line is not part of a column.
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
      if (widths.size() <= i) widths.resize(i + 1, kMinWidth);
      widths[i] = std::max(widths[i], display_width(line[i]) + kPadding);
    }
  }
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
