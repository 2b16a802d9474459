// SPDX-License-Identifier: Apache-2.0
//
// fuzz_yaml / fuzz_json: the document parser (trainer::parse_documents with its default limits)
// on arbitrary text, and both writers on what it accepts: encode_json and encode_yaml of every
// document must be valid UTF-8 and parse back to the same value. fuzz_json
// (TRAINER_FUZZ_JSON_ONLY) keeps to the JSON front end: input that would go to the YAML parser
// is not added to its corpus.
#include "fuzz_common.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
#ifdef TRAINER_FUZZ_JSON_ONLY
  // parse_documents' own rule (after an optional byte order mark): `{` or `[` first means JSON.
  std::string_view rest = text.substr(text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0);
  const auto first = rest.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (rest[first] != '{' && rest[first] != '[')) return -1;
#endif
  auto docs = trainer::parse_documents(text);
  if (!docs) {
    trainer::fuzz::check_utf8("parse error message", docs.error().message);
    return 0;
  }
  for (const auto& doc : *docs) {
    // parse_documents reads JSON only for objects and arrays (a bare JSON scalar is YAML).
    if (doc.is_object() || doc.is_array()) {
      trainer::fuzz::check_round_trip("encode_json", doc, trainer::encode_json(doc));
    }
    trainer::fuzz::check_round_trip("encode_yaml", doc, trainer::encode_yaml(doc));
  }
  return 0;
}
