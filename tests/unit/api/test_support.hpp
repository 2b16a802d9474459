// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the codec tests.
#pragma once

#include "trainer/codec.hpp"

#include <boost/json/parse.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace trainer::test {

/// A file under tests/data/ (tests run with the project root as working directory).
inline std::string read_data(const std::string& relative) {
  std::ifstream in("tests/data/" + relative, std::ios::binary);
  if (!in) throw std::runtime_error("missing test data: tests/data/" + relative);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The single document of a YAML or JSON text; throws (failing the test) otherwise.
inline boost::json::value one_doc(std::string_view text, const DecodeOptions& options = {}) {
  auto docs = parse_documents(text, options);
  if (!docs) throw std::runtime_error("parse failed: " + docs.error().message);
  if (docs->size() != 1) throw std::runtime_error("expected one document");
  return std::move(docs->front());
}

inline boost::json::value json(std::string_view text) {
  return boost::json::parse(text);
}

}  // namespace trainer::test
