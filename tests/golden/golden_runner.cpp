// SPDX-License-Identifier: Apache-2.0
//
// Golden-case runner: renders one case folder (tests/golden/cases/NN-name/) through the whole
// pipeline (render_documents) with a fixed UID and compares with expected/ by the conformance
// comparison rule (semantic_compare.hpp).
// Usage: trainer_golden [--capi] <case-dir> <testdata-dir>. With --capi the case goes through
// the C ABI (trainer_render, via the trainer.hpp wrapper) instead of the C++ core, with the same
// inputs and options as text, so both faces are held to the same expected objects.
// trainer_golden --validate <case-dir> <testdata-dir> [<trainerctl>]: a rejected case (one with
// expected/error.txt) through every validation face (validate_faces.hpp).
// A case may carry `options.yaml` with controller settings that are not objects:
//   featureGates: {TrainJobStatus: true}      (upstream's gate names; all off by default)
// Flux's CURVE key derives from the fixed UID, so every case is reproducible.
#include "semantic_compare.hpp"
#include "validate_faces.hpp"

#include "trainer.hpp"
#include "trainer/codec.hpp"
#include "trainer/render.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* kUid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos)) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

// The text of an input file, with `TRAINJOB_UID` replaced: preconditions may name the
// TrainJob's UID (an existing snapshot owned by it). Empty when the file does not exist.
std::string input_text(const fs::path& p) {
  return fs::exists(p) ? replace_all(read_text(p), "TRAINJOB_UID", kUid) : std::string();
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

// Applies `options.yaml` to the context; false (with a message) on an unknown or malformed key,
// so a typo cannot silently run a case with the defaults.
bool apply_case_options(const fs::path& p, trainer::RenderContext& ctx) {
  if (!fs::exists(p)) return true;
  auto parsed = trainer::parse_documents(read_text(p));
  if (!parsed || parsed->size() != 1 || !parsed->front().is_object()) {
    std::cerr << p << ": expected one YAML mapping\n";
    return false;
  }
  for (const auto& [key, value] : parsed->front().as_object()) {
    if (key != "featureGates" || !value.is_object()) {
      std::cerr << p << ": unsupported option " << key << "\n";
      return false;
    }
    for (const auto& [gate, on] : value.as_object()) {
      if (gate != "TrainJobStatus" || !on.is_bool()) {
        std::cerr << p << ": featureGates." << gate << ": unknown gate or not a boolean\n";
        return false;
      }
      ctx.feature_gates.trainjob_status = on.as_bool();
    }
  }
  return true;
}

std::string error_text(const trainer::Error& e) {
  std::string text = e.message;
  for (const auto& f : e.fields) text += "\n" + f.to_string();
  return text;
}

int check_error(const fs::path& expected, const trainer::Result<trainer::RenderOutput>& out) {
  const auto want = read_key_values(expected);
  if (out) {
    std::cerr << "FAIL: expected a rejection, but " << out->objects.size()
              << " objects were rendered\n";
    return 1;
  }
  const std::string text = error_text(out.error());
  int rc = 0;
  if (auto it = want.find("field"); it != want.end()) {
    const bool has_path =
        std::any_of(out.error().fields.begin(), out.error().fields.end(),
                    [&](const trainer::FieldError& f) { return f.path == it->second; }) ||
        text.find(it->second) != std::string::npos;
    if (!has_path) {
      std::cerr << "FAIL: the error does not reference field " << it->second << "\n";
      rc = 1;
    }
  }
  if (auto it = want.find("message");
      it != want.end() && text.find(it->second) == std::string::npos) {
    std::cerr << "FAIL: the error does not contain: " << it->second << "\n";
    rc = 1;
  }
  if (rc != 0) std::cerr << "actual error:\n" << text << "\n";
  return rc;
}

// The render through the C++ core.
trainer::Result<trainer::RenderOutput> render_core(const std::string& text,
                                                   const trainer::RenderContext& ctx,
                                                   std::vector<std::string>& warnings) {
  auto docs = trainer::parse_documents(text);
  if (!docs) return tl::unexpected(docs.error());
  trainer::RenderDocumentsOptions options;
  options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
  return trainer::render_documents(*docs, ctx, options);
}

// The same render through the C ABI, its result turned back into a RenderOutput.
trainer::Result<trainer::RenderOutput> render_capi(const std::string& text,
                                                   const trainer::RenderContext& ctx,
                                                   const std::string& private_key,
                                                   std::vector<std::string>& warnings) {
  trainer::abi::RenderOptions options;
  options.uid = ctx.train_job_uid;
  options.now = ctx.now();
  options.ssh_private_key = private_key;
  if (ctx.feature_gates.trainjob_status) options.feature_gates = "TrainJobStatus=true";
  auto result = trainer::abi::render(text, options);
  if (!result) return tl::unexpected(result.error());
  warnings = result->warnings();
  trainer::RenderOutput out;
  out.skipped_reason = std::string(result->skipped_reason());
  for (const auto& object : result->objects()) {
    out.objects.push_back(boost::json::parse(object.json));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bool capi = argc == 4 && std::string_view(argv[1]) == "--capi";
  const bool validate = (argc == 4 || argc == 5) && std::string_view(argv[1]) == "--validate";
  if (argc != 3 && !capi && !validate) {
    std::cerr << "usage: trainer_golden [--capi] <case-dir> <testdata-dir>\n"
                 "       trainer_golden --validate <case-dir> <testdata-dir> [<trainerctl>]\n";
    return 2;
  }
  const fs::path dir = argv[capi || validate ? 2 : 1];
  const fs::path testdata = argv[capi || validate ? 3 : 2];
  std::string inputs;
  for (const char* file : {"preconditions.yaml", "runtime.yaml", "trainjob.yaml"}) {
    const std::string part = input_text(dir / file);
    if (part.empty()) continue;
    inputs += inputs.empty() ? part : "\n---\n" + part;
  }
  const std::string private_key = read_text(testdata / "ssh-key.pem");
  const std::string public_key = read_text(testdata / "ssh-key.pub");

  if (validate) {
    const fs::path error = dir / "expected" / "error.txt";
    if (!fs::exists(error)) {
      std::cerr << error << " is missing: --validate is for rejected cases\n";
      return 2;
    }
    return golden::check_validate_faces(dir, inputs, read_key_values(error),
                                        argc == 5 ? argv[4] : "");
  }

  trainer::RenderContext ctx;
  ctx.train_job_uid = kUid;
  ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
  ctx.generate_ssh_key = [&]() -> trainer::Result<trainer::SshKeyPair> {
    return trainer::SshKeyPair{private_key, public_key};
  };
  if (!apply_case_options(dir / "options.yaml", ctx)) return 2;
  std::vector<std::string> warnings;
  const auto out =
      capi ? render_capi(inputs, ctx, private_key, warnings) : render_core(inputs, ctx, warnings);

  const fs::path expected = dir / "expected";
  if (fs::exists(expected / "error.txt")) return check_error(expected / "error.txt", out);
  if (!out) {
    std::cerr << "FAIL: rendering failed:\n" << error_text(out.error()) << "\n";
    return 1;
  }
  if (fs::exists(expected / "no-objects.txt")) {
    if (!out->objects.empty() || out->skipped_reason.empty()) {
      std::cerr << "FAIL: expected no objects and a reason, got " << out->objects.size()
                << " objects\n";
      return 1;
    }
    return 0;
  }
  int rc = 0;
  if (fs::exists(expected / "warnings.txt")) {
    std::istringstream in(read_text(expected / "warnings.txt"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("Warning: ", 0) != 0) continue;
      const std::string w = line.substr(9);
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
        std::cerr << "FAIL: missing warning: " << w << "\n";
        rc = 1;
      }
    }
  }
  std::vector<json::value> want;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(expected)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string text = replace_all(read_text(f), "TRAINJOB_UID", kUid);
    auto parsed = trainer::parse_documents(text);
    if (!parsed) {
      std::cerr << f << ": " << parsed.error().message << "\n";
      return 2;
    }
    for (auto& d : *parsed) want.push_back(std::move(d));
  }
  golden::CompareOptions copts;
  copts.ssh_private_key = private_key;
  copts.ssh_public_key = public_key;
  const auto diffs = golden::compare_object_sets(want, out->objects, copts);
  for (const auto& d : diffs) std::cerr << "FAIL: " << d << "\n";
  if (!diffs.empty()) {
    rc = 1;
    if (std::getenv("GOLDEN_DUMP") != nullptr) {
      std::cout << trainer::encode_yaml_stream(out->objects);
    }
  }
  return rc;
}
