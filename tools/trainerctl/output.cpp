// SPDX-License-Identifier: Apache-2.0
#include "output.hpp"

#include "commands.hpp"

#include "trainer/codec.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdio>

namespace trainerctl {

std::optional<OutputFormat> parse_output_format(const std::string& text) {
  if (text.empty()) return OutputFormat::kNone;
  if (text == "yaml") return OutputFormat::kYaml;
  if (text == "json") return OutputFormat::kJson;
  return std::nullopt;
}

void print_warning(std::string_view warning) {
  std::fprintf(stderr, "Warning: %.*s\n", static_cast<int>(warning.size()), warning.data());
}

void WarningPrinter::print(std::string_view warning) {
  print_warning(warning);
  // The decoder's text for a field the schema lacks (trainer/codec.hpp).
  constexpr std::string_view kUnknown = "unknown field \"";
  if (warning.substr(0, kUnknown.size()) == kUnknown) {
    unknown_fields_.emplace_back(warning.substr(kUnknown.size() - 1));
  }
}

void WarningPrinter::print_ignored_fields() const {
  if (unknown_fields_.empty()) return;
  std::string fields;
  for (const auto& f : unknown_fields_) fields += (fields.empty() ? "" : ", ") + f;
  const bool one = unknown_fields_.size() == 1;
  std::fprintf(stderr,
               "Warning: ignored unknown field%s %s (--strict refuses %s, as the API server's "
               "strict field validation does)\n",
               one ? "" : "s", fields.c_str(), one ? "it" : "them");
}

int report_field_errors(const std::vector<trainer::FieldError>& errors) {
  for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
  return kExitFailed;
}

int report_error(const trainer::Error& error) {
  if (!error.fields.empty()) report_field_errors(error.fields);
  // The message is printed unless it only repeats the field errors (an Error::invalid
  // aggregate): a not-found error's message says what was looked for and how to fix it.
  if (error.fields.empty() || error.message != trainer::Error::invalid(error.fields).message) {
    std::fprintf(stderr, "error: %s\n", error.message.c_str());
  }
  return kExitFailed;
}

void print_documents(const std::vector<boost::json::value>& documents, OutputFormat format) {
  if (format == OutputFormat::kYaml) {
    std::fputs(trainer::encode_yaml_stream(documents).c_str(), stdout);
    return;
  }
  boost::json::object list;
  list["apiVersion"] = "v1";
  list["kind"] = "List";
  list["items"] = boost::json::array(documents.begin(), documents.end());
  std::fputs(trainer::encode_json(list, /*pretty=*/true).c_str(), stdout);
  std::fputs("\n", stdout);
}

void print_objects(const trainer::ObjectSet& objects, OutputFormat format) {
  std::vector<boost::json::value> docs;
  for (const auto& rt : objects.cluster_training_runtimes) docs.push_back(trainer::to_json(rt));
  for (const auto& rt : objects.training_runtimes) docs.push_back(trainer::to_json(rt));
  for (const auto& job : objects.train_jobs) docs.push_back(trainer::to_json(job));
  print_documents(docs, format);
}

}  // namespace trainerctl
