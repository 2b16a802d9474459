// SPDX-License-Identifier: Apache-2.0
//
// fuzz_convert: Training Operator v1 jobs and Katib Experiments converted as `trainerctl convert`
// and the commands that take v1 jobs directly do it: parse_documents (default limits) ->
// convert::convert_documents, lenient and strict. Checks: no crash; every warning, error and
// converted object's JSON is valid UTF-8; what a lenient conversion produced parses back from
// its YAML stream; a strict conversion never succeeds where the lenient one warned.
#include "fuzz_common.hpp"
#include "trainer/convert.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

void check_error(const trainer::Error& error) {
  trainer::fuzz::check_utf8("error message", error.message);
  for (const auto& field : error.fields) {
    trainer::fuzz::check_utf8("field error", field.to_string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto docs = trainer::parse_documents(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!docs) return 0;  // the parser has its own targets
  std::size_t warnings = 0;
  trainer::convert::Options lenient;
  auto out = trainer::convert::convert_documents(*docs, lenient, [&](std::string_view w) {
    trainer::fuzz::check_utf8("warning", w);
    ++warnings;
  });
  if (!out) {
    check_error(out.error());
    return 0;
  }
  const std::string yaml = trainer::encode_yaml_stream(*out);
  trainer::fuzz::check_utf8("converted YAML", yaml);
  auto back = trainer::parse_documents(yaml);
  if (!back || back->size() != out->size()) {
    trainer::fuzz::fail_check("converted YAML does not parse back to its objects", yaml);
  }
  trainer::convert::Options strict;
  strict.strict = true;
  auto strict_out = trainer::convert::convert_documents(std::move(*docs), strict, {});
  if (strict_out && warnings != 0) {
    trainer::fuzz::fail_check("a strict conversion succeeded where the lenient one warned", yaml);
  }
  if (!strict_out) check_error(strict_out.error());
  return 0;
}
