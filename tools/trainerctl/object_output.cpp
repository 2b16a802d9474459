// SPDX-License-Identifier: Apache-2.0
#include "object_output.hpp"

#include "cluster_flags.hpp"

#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>

#include <cctype>

namespace trainerctl {
namespace {

namespace json = boost::json;

constexpr std::string_view kJsonPath = "jsonpath=";
constexpr std::string_view kCustomColumns = "custom-columns=";

bool starts_with(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

json::object list_of(const std::vector<json::object>& objects, bool hide_managed_fields) {
  json::array items;
  for (const auto& object : objects) {
    items.emplace_back(hide_managed_fields ? without_managed_fields(object) : object);
  }
  // What kubectl prints for a list query: a client-side v1 List.
  return json::object{{"apiVersion", "v1"},
                      {"items", std::move(items)},
                      {"kind", "List"},
                      {"metadata", json::object{{"resourceVersion", ""}}}};
}

}  // namespace

std::string object_reference(const json::object& object) {
  const std::string api_version = trainer::string_at(object, "apiVersion");
  const auto slash = api_version.find('/');
  std::string kind = trainer::string_at(object, "kind");
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (slash != std::string::npos) kind += "." + api_version.substr(0, slash);
  std::string name;
  if (const auto* meta = trainer::find_object(object, "metadata")) {
    name = trainer::string_at(*meta, "name");
  }
  return kind + "/" + name;
}

tl::expected<ObjectOutput, std::string> ObjectOutput::parse(const std::string& output) {
  ObjectOutput out;
  if (output.empty()) return out;
  if (output == "wide") {
    out.format_ = Format::kWide;
  } else if (output == "name") {
    out.format_ = Format::kName;
  } else if (output == "json") {
    out.format_ = Format::kJson;
  } else if (output == "yaml") {
    out.format_ = Format::kYaml;
  } else if (starts_with(output, kJsonPath)) {
    out.format_ = Format::kJsonPath;
    out.template_text_ = output.substr(kJsonPath.size());
    if (out.template_text_.empty()) {
      return tl::unexpected(std::string("template format specified but no template given"));
    }
    auto path = JsonPath::parse(out.template_text_);
    if (!path) {
      return tl::unexpected("error parsing jsonpath " + out.template_text_ + ", " + path.error());
    }
    out.template_ = std::move(*path);
  } else if (starts_with(output, kCustomColumns)) {
    out.format_ = Format::kCustomColumns;
    const std::string spec = output.substr(kCustomColumns.size());
    if (spec.empty()) {
      return tl::unexpected(
          std::string("custom-columns format specified but no custom columns given"));
    }
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = spec.find(',', start);
      const std::string part = spec.substr(start, comma - start);
      const std::size_t colon = part.find(':');
      if (colon == std::string::npos) {
        return tl::unexpected("unexpected custom-columns spec: " + part +
                              ", expected <header>:<json-path-expr>");
      }
      auto relaxed = relaxed_jsonpath(part.substr(colon + 1));
      if (!relaxed) return tl::unexpected(relaxed.error());
      auto path = JsonPath::parse(*relaxed);
      if (!path) return tl::unexpected("error parsing jsonpath " + *relaxed + ", " + path.error());
      out.columns_.push_back({part.substr(0, colon), std::move(*path)});
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    return tl::unexpected("unable to match a printer suitable for the output format \"" + output +
                          "\", allowed formats are: custom-columns,json,jsonpath,name,wide,yaml");
  }
  return out;
}

tl::expected<TextRow, std::string> ObjectOutput::column_row(const json::object& object) const {
  TextRow row;
  const json::value data = object;
  for (const auto& column : columns_) {
    auto found = column.path.find(data);
    if (!found) return tl::unexpected(found.error());
    std::string cell;
    // kubectl: `<none>` when the path finds nothing, else every value, comma-separated.
    if (found->empty() || found->front().empty()) cell = "<none>";
    for (const auto& part : *found) {
      for (const auto& value : part) {
        if (!cell.empty()) cell += ",";
        cell += go_sprint(value);
      }
    }
    row.push_back(std::move(cell));
  }
  return row;
}

tl::expected<std::string, std::string> ObjectOutput::print(const std::vector<json::object>& objects,
                                                           bool single, bool headers) const {
  switch (format_) {
    case Format::kName: {
      std::string out;
      for (const auto& object : objects) out += object_reference(object) + "\n";
      return out;
    }
    case Format::kJson:
      if (single && objects.size() == 1) {
        return trainer::encode_json(without_managed_fields(objects[0]), true) + "\n";
      }
      return trainer::encode_json(list_of(objects, true), true) + "\n";
    case Format::kYaml:
      if (single && objects.size() == 1) {
        return trainer::encode_yaml(without_managed_fields(objects[0]));
      }
      return trainer::encode_yaml(list_of(objects, true));
    case Format::kJsonPath: {
      const json::value data = single && objects.size() == 1 ? json::value(objects[0])
                                                             : json::value(list_of(objects, false));
      auto text = template_->execute(data);
      if (!text) {
        return tl::unexpected("error executing jsonpath \"" + template_text_ +
                              "\": Error executing template: " + text.error());
      }
      return *text;
    }
    case Format::kCustomColumns: {
      std::vector<TextRow> lines;
      if (headers) {
        TextRow header;
        for (const auto& column : columns_) header.push_back(column.header);
        lines.push_back(std::move(header));
      }
      for (const auto& object : objects) {
        auto row = column_row(object);
        if (!row) return tl::unexpected(row.error());
        lines.push_back(std::move(*row));
      }
      return lines.empty() ? std::string() : tab_write(lines);
    }
    case Format::kTable:
    case Format::kWide: break;
  }
  return std::string();
}

}  // namespace trainerctl
