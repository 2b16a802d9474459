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
#include "golden_case.hpp"
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

std::string error_text(const trainer::Error& e) {
  std::string text = e.message;
  for (const auto& f : e.fields) text += "\n" + f.to_string();
  return text;
}

int check_error(const fs::path& expected, const trainer::Result<trainer::RenderOutput>& out) {
  const auto want = golden::read_key_values(expected);
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
                                                   const trainer::FeatureGates& gates,
                                                   std::vector<std::string>& warnings) {
  auto docs = trainer::parse_documents(text);
  if (!docs) return tl::unexpected(docs.error());
  trainer::RenderDocumentsOptions options;
  options.framework = &trainer::default_framework(gates);
  options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
  return trainer::render_documents(*docs, ctx, options);
}

// The same render through the C ABI, its result turned back into a RenderOutput.
trainer::Result<trainer::RenderOutput> render_capi(const std::string& text,
                                                   const trainer::RenderContext& ctx,
                                                   const trainer::FeatureGates& gates,
                                                   const std::string& private_key,
                                                   std::vector<std::string>& warnings) {
  trainer::abi::RenderOptions options;
  options.uid = ctx.train_job_uid;
  options.now = ctx.now();
  options.ssh_private_key = private_key;
  if (gates.trainjob_status) options.feature_gates = "TrainJobStatus=true";
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
  auto golden_case = golden::read_case(dir);
  if (!golden_case) {
    std::cerr << golden_case.error().message << "\n";
    return 2;
  }
  // Preconditions may name the TrainJob's UID (an existing snapshot owned by it).
  const golden::Substitutions uid{{"TRAINJOB_UID", golden::kCaseUid}};
  const std::string inputs = golden::joined_inputs(*golden_case, uid);
  const std::string private_key = golden::read_text(testdata / "ssh-key.pem");
  const std::string public_key = golden::read_text(testdata / "ssh-key.pub");

  if (validate) {
    const fs::path error = dir / "expected" / "error.txt";
    if (!fs::exists(error)) {
      std::cerr << error << " is missing: --validate is for rejected cases\n";
      return 2;
    }
    return golden::check_validate_faces(dir, inputs, golden::read_key_values(error),
                                        argc == 5 ? argv[4] : "");
  }

  trainer::RenderContext ctx;
  ctx.train_job_uid = golden::kCaseUid;
  ctx.now = [] { return std::string("2025-01-01T00:00:00Z"); };
  ctx.generate_ssh_key = [&]() -> trainer::Result<trainer::SshKeyPair> {
    return trainer::SshKeyPair{private_key, public_key};
  };
  const trainer::FeatureGates& gates = golden_case->feature_gates;
  std::vector<std::string> warnings;
  const auto out = capi ? render_capi(inputs, ctx, gates, private_key, warnings)
                        : render_core(inputs, ctx, gates, warnings);

  switch (golden_case->outcome) {
    case golden::Outcome::kError: return check_error(dir / "expected" / "error.txt", out);
    case golden::Outcome::kNoObjects:
      if (!out) break;
      if (!out->objects.empty() || out->skipped_reason.empty()) {
        std::cerr << "FAIL: expected no objects and a reason, got " << out->objects.size()
                  << " objects\n";
        return 1;
      }
      return 0;
    case golden::Outcome::kObjects: break;
  }
  if (!out) {
    std::cerr << "FAIL: rendering failed:\n" << error_text(out.error()) << "\n";
    return 1;
  }
  int rc = 0;
  for (const auto& w : golden_case->warnings) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
      std::cerr << "FAIL: missing warning: " << w << "\n";
      rc = 1;
    }
  }
  auto want = golden::expected_objects(*golden_case, uid);
  if (!want) {
    std::cerr << want.error().message << "\n";
    return 2;
  }
  golden::CompareOptions copts;
  copts.ssh_private_key = private_key;
  copts.ssh_public_key = public_key;
  const auto diffs = golden::compare_object_sets(*want, out->objects, copts);
  for (const auto& d : diffs) std::cerr << "FAIL: " << d << "\n";
  if (!diffs.empty()) {
    rc = 1;
    if (std::getenv("GOLDEN_DUMP") != nullptr) {
      std::cout << trainer::encode_yaml_stream(out->objects);
    }
  }
  return rc;
}
