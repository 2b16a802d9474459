// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/model.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace fwtest {

// YAML text (flow style allowed: a leading `---` keeps `{...}` from being read as JSON).
inline boost::json::value yaml(std::string_view text) {
  auto docs = trainer::parse_documents("---\n" + std::string(text));
  REQUIRE(docs);
  REQUIRE(docs->size() == 1);
  return (*docs)[0];
}

inline std::vector<boost::json::value> yaml_docs(std::string_view text) {
  auto docs = trainer::parse_documents(text);
  REQUIRE(docs);
  return *docs;
}

inline trainer::TrainJob train_job(std::string_view text) {
  auto decoded = trainer::decode_train_job(yaml(text));
  REQUIRE(decoded);
  trainer::apply_defaults(decoded->object);
  return decoded->object;
}

inline trainer::TrainingRuntime training_runtime(std::string_view text) {
  auto decoded = trainer::decode_training_runtime(yaml(text));
  REQUIRE(decoded);
  trainer::apply_defaults(decoded->object);
  return decoded->object;
}

}  // namespace fwtest
