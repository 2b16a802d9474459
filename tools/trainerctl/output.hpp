// SPDX-License-Identifier: Apache-2.0
// How trainerctl prints objects, warnings and errors.
#pragma once

#include "trainer/admission.hpp"
#include "trainer/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainerctl {

enum class OutputFormat { kNone, kYaml, kJson };

/// "" -> kNone, "yaml", "json"; nullopt for anything else.
std::optional<OutputFormat> parse_output_format(const std::string& text);

/// `Warning: <text>` lines on stderr, as kubectl prints admission warnings.
void print_warning(std::string_view warning);
/// `print_warning` for commands that go on despite unknown fields (run, render without
/// --strict): each warning is printed at once, and the unknown fields among them are kept so
/// that the command's last line can say that they were ignored.
class WarningPrinter {
 public:
  void print(std::string_view warning);
  /// Prints `Warning: ignored unknown field "spec.x" (--strict refuses it, ...)` on stderr
  /// when any warning was an unknown field; nothing otherwise.
  void print_ignored_fields() const;

 private:
  std::vector<std::string> unknown_fields_;
};

/// One `path: Type: detail` line per field error on stderr; returns kExitFailed.
int report_field_errors(const std::vector<trainer::FieldError>& errors);
/// The field errors (one line each), then `error: <message>` unless the message only repeats
/// them, on stderr; returns kExitFailed.
int report_error(const trainer::Error& error);
/// YAML: one document per object separated by `---`; JSON: a `v1` `List`.
void print_objects(const trainer::ObjectSet& objects, OutputFormat format);
void print_documents(const std::vector<boost::json::value>& documents, OutputFormat format);

}  // namespace trainerctl
