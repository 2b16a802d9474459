// SPDX-License-Identifier: Apache-2.0
// `get -o FORMAT` for objects read from a cluster, as kubectl prints them: `name`
// (`<kind>.<group>/<name>`), `json` and `yaml` (managedFields hidden; one object as itself,
// several as a v1 List), `jsonpath=TEMPLATE` (jsonpath.hpp, on the object or the List) and
// `custom-columns=HEADER:PATH,...` (a table, `<none>` where a path finds nothing). The
// server-side Table (no -o, `wide`) is printed by `get` itself.
#pragma once

#include "jsonpath.hpp"
#include "table_printer.hpp"

#include <boost/json/object.hpp>
#include <tl/expected.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trainerctl {

class ObjectOutput {
 public:
  enum class Format { kTable, kWide, kName, kJson, kYaml, kJsonPath, kCustomColumns };

  /// The value of -o; the error is kubectl's (`template format specified but no template
  /// given`, `unexpected custom-columns spec: ...`, `error parsing jsonpath ...`).
  [[nodiscard]] static tl::expected<ObjectOutput, std::string> parse(const std::string& output);

  [[nodiscard]] Format format() const { return format_; }
  /// No -o, or `wide`: the server's Table.
  [[nodiscard]] bool server_table() const {
    return format_ == Format::kTable || format_ == Format::kWide;
  }

  /// The objects' text: `single` prints the one object as itself (a TrainJob named on the
  /// command line), else every object goes into a v1 List. `headers`: custom columns' header
  /// line. The error is the template's (`error executing jsonpath "...": ...`).
  [[nodiscard]] tl::expected<std::string, std::string> print(
      const std::vector<boost::json::object>& objects, bool single, bool headers) const;

 private:
  struct Column {
    std::string header;
    JsonPath path;
  };

  tl::expected<TextRow, std::string> column_row(const boost::json::object& object) const;

  Format format_ = Format::kTable;
  std::string template_text_;
  std::optional<JsonPath> template_;
  std::vector<Column> columns_;
};

/// `trainjob.trainer.kubeflow.org/mnist`, `pod/mnist-node-0-0`: kubectl's name of an object
/// from its apiVersion and kind.
[[nodiscard]] std::string object_reference(const boost::json::object& object);

}  // namespace trainerctl
