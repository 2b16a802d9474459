// SPDX-License-Identifier: Apache-2.0
#include "golden_case.hpp"

#include "trainer/codec.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace golden {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string text, const Substitutions& substitutions) {
  for (const auto& [from, to] : substitutions) {
    if (from.empty()) continue;
    for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos)) {
      text.replace(pos, from.size(), to);
      pos += to.size();
    }
  }
  return text;
}

std::map<std::string, std::string> read_key_values(const fs::path& p) {
  std::map<std::string, std::string> out;
  std::istringstream in(read_text(p));
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    out.emplace(line.substr(0, colon), value);
  }
  return out;
}

namespace {

std::string optional_text(const fs::path& p) {
  return fs::exists(p) ? read_text(p) : std::string();
}

trainer::Result<trainer::FeatureGates> read_options(const fs::path& p) {
  trainer::FeatureGates gates;
  if (!fs::exists(p)) return gates;
  const std::string where = p.string() + ": ";
  auto parsed = trainer::parse_documents(read_text(p));
  if (!parsed || parsed->size() != 1 || !parsed->front().is_object()) {
    return trainer::fail(trainer::ErrorCode::kInvalid, where + "expected one YAML mapping");
  }
  for (const auto& [key, value] : parsed->front().as_object()) {
    if (key != "featureGates" || !value.is_object()) {
      return trainer::fail(trainer::ErrorCode::kInvalid,
                           where + "unsupported option " + std::string(key));
    }
    for (const auto& [gate, on] : value.as_object()) {
      if (gate != "TrainJobStatus" || !on.is_bool()) {
        return trainer::fail(
            trainer::ErrorCode::kInvalid,
            where + "featureGates." + std::string(gate) + ": unknown gate or not a boolean");
      }
      gates.trainjob_status = on.as_bool();
    }
  }
  return gates;
}

}  // namespace

trainer::Result<Case> read_case(const fs::path& dir) {
  Case c;
  c.dir = dir;
  c.name = dir.filename().string();
  c.preconditions = optional_text(dir / "preconditions.yaml");
  c.runtime = optional_text(dir / "runtime.yaml");
  c.trainjob = optional_text(dir / "trainjob.yaml");
  auto gates = read_options(dir / "options.yaml");
  if (!gates) return tl::unexpected(gates.error());
  c.feature_gates = *gates;
  const fs::path expected = dir / "expected";
  if (fs::exists(expected / "error.txt")) {
    c.outcome = Outcome::kError;
  } else if (fs::exists(expected / "no-objects.txt")) {
    c.outcome = Outcome::kNoObjects;
  }
  if (fs::exists(expected / "warnings.txt")) {
    std::istringstream in(read_text(expected / "warnings.txt"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("Warning: ", 0) == 0) c.warnings.push_back(line.substr(9));
    }
  }
  if (fs::is_directory(expected)) {
    for (const auto& entry : fs::directory_iterator(expected)) {
      if (entry.path().extension() == ".yaml") c.expected_files.push_back(entry.path());
    }
  }
  std::sort(c.expected_files.begin(), c.expected_files.end());
  return c;
}

std::vector<fs::path> case_dirs(const fs::path& cases_dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(cases_dir, ec)) {
    if (entry.is_directory()) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined_inputs(const Case& c, const Substitutions& substitutions) {
  std::string inputs;
  for (const std::string* part : {&c.preconditions, &c.runtime, &c.trainjob}) {
    if (part->empty()) continue;
    const std::string text = replace_all(*part, substitutions);
    inputs += inputs.empty() ? text : "\n---\n" + text;
  }
  return inputs;
}

trainer::Result<std::vector<boost::json::value>> expected_objects(
    const Case& c, const Substitutions& substitutions) {
  std::vector<boost::json::value> out;
  for (const auto& f : c.expected_files) {
    auto parsed = trainer::parse_documents(replace_all(read_text(f), substitutions));
    if (!parsed) {
      return trainer::fail(parsed.error().code, f.string() + ": " + parsed.error().message);
    }
    for (auto& d : *parsed) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace golden
