// SPDX-License-Identifier: Apache-2.0
//
// parse_documents: the checks that apply to any text, then the YAML or JSON front end.
#include "api/readers.hpp"
#include "api/text_position.hpp"
#include "trainer/codec.hpp"

namespace trainer {

Result<std::vector<boost::json::value>> parse_documents(std::string_view text,
                                                        const DecodeOptions& options) {
  // Before anything is parsed, so that refused input costs nothing in proportion to its size.
  if (text.size() > options.max_document_bytes) {
    return fail(ErrorCode::kLimit, "input of " + std::to_string(text.size()) +
                                       " bytes exceeds max_document_bytes (" +
                                       std::to_string(options.max_document_bytes) + ")");
  }
  if (const auto bad = detail::find_invalid_utf8(text)) {
    return fail(ErrorCode::kParse, "invalid UTF-8 at " + detail::describe_position(text, *bad) +
                                       " (byte offset " + std::to_string(*bad) + ")");
  }
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());

  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    return detail::read_json(text, options).map([](boost::json::value v) {
      std::vector<boost::json::value> docs;
      if (!v.is_null()) docs.push_back(std::move(v));
      return docs;
    });
  }
  return detail::read_yaml(text, options);
}

}  // namespace trainer
