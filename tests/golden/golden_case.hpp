// SPDX-License-Identifier: Apache-2.0
//
// Reading one golden case folder (tests/golden/cases/NN-name/, layout in
// ../shared/conformance-examples/README.md): its inputs, its `options.yaml`, what it expects
// (objects, a rejection or nothing) and the expected objects. Shared by the render runner
// (golden_runner.cpp) and the controller's test against a real API server
// (tests/controller/golden_server_test.cpp), so both read a case the same way.
//
// Texts may carry placeholders (`TRAINJOB_UID`) that each harness replaces with its own values
// (`Substitutions`, applied to the text before it is parsed).
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace golden {

/// The UID the render runner gives every TrainJob (expected files derived from it, e.g. Flux's
/// CURVE key, use it).
inline constexpr const char* kCaseUid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";

/// Text replacements (`from`, `to`), applied in order to every occurrence.
using Substitutions = std::vector<std::pair<std::string, std::string>>;

enum class Outcome {
  kObjects,    ///< expected/*.yaml: the objects the controller creates
  kError,      ///< expected/error.txt: the inputs are rejected
  kNoObjects,  ///< expected/no-objects.txt: accepted, nothing is created
};

struct Case {
  std::filesystem::path dir;
  std::string name;  ///< the folder's name
  /// The input files' texts as written (placeholders kept); empty when a file is absent.
  std::string preconditions;
  std::string runtime;
  std::string trainjob;
  trainer::FeatureGates feature_gates;  ///< from options.yaml
  Outcome outcome = Outcome::kObjects;
  /// `Warning: ` lines of expected/warnings.txt, without the prefix.
  std::vector<std::string> warnings;
  std::vector<std::filesystem::path> expected_files;  ///< expected/*.yaml, sorted
};

[[nodiscard]] std::string read_text(const std::filesystem::path& path);
[[nodiscard]] std::string replace_all(std::string text, const Substitutions& substitutions);
/// `key: value` lines (error.txt).
[[nodiscard]] std::map<std::string, std::string> read_key_values(const std::filesystem::path& p);

/// Reads a case folder. Errors (kInvalid) name the file: an unknown or malformed option in
/// options.yaml, so a typo cannot silently run a case with the defaults.
[[nodiscard]] trainer::Result<Case> read_case(const std::filesystem::path& dir);

/// The case's folders under `cases_dir`, sorted by name.
[[nodiscard]] std::vector<std::filesystem::path> case_dirs(const std::filesystem::path& cases_dir);

/// preconditions, runtime and TrainJob as one YAML stream, substituted.
[[nodiscard]] std::string joined_inputs(const Case& c, const Substitutions& substitutions);

/// The expected objects (every document of expected/*.yaml in file order), substituted.
[[nodiscard]] trainer::Result<std::vector<boost::json::value>> expected_objects(
    const Case& c, const Substitutions& substitutions);

}  // namespace golden
