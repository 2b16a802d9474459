// SPDX-License-Identifier: Apache-2.0
#include "validate_faces.hpp"
#include "golden_case.hpp"

#include "trainer.h"
#include "trainer.hpp"
#include "trainer/admission.hpp"
#include "trainer/codec.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace golden {
namespace {

// What one face reported: every field error as Kubernetes prints it, every warning (decoding
// and admission, in input order), and the message of a failure that has no field errors.
struct FaceResult {
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  std::string failure;
  int exit_code = 0;  // trainerctl only
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// The C++ core: what `trainerctl validate` calls.
FaceResult via_core(const std::string& text) {
  FaceResult r;
  auto docs = trainer::parse_documents(text);
  if (!docs) {
    r.failure = docs.error().message;
    return r;
  }
  auto admitted = trainer::admit(std::move(*docs));
  if (!admitted) {
    r.failure = admitted.error().message;
    return r;
  }
  r.warnings = admitted->warnings;
  for (const auto& e : admitted->errors) r.errors.push_back(e.to_string());
  return r;
}

bool typed_kind(const std::string& kind) {
  return kind == "TrainJob" || kind == "TrainingRuntime" || kind == "ClusterTrainingRuntime";
}

// The C ABI from C calls: parse, default every document, validate every typed document with the
// whole list as context.
FaceResult via_c(const std::string& text) {
  FaceResult r;
  trainer_document_list* list = nullptr;
  trainer_error* err = nullptr;
  if (trainer_documents_parse(text.data(), text.size(), nullptr, &list, &err) != TRAINER_OK) {
    r.failure = trainer_error_message(err);
    trainer_error_free(err);
    return r;
  }
  const size_t n = trainer_document_list_count(list);
  for (size_t i = 0; i < n; ++i) {
    if (trainer_document_default(trainer_document_list_get(list, i), nullptr) != TRAINER_OK) {
      r.failure = "trainer_document_default failed";
    }
  }
  for (size_t i = 0; i < n && r.failure.empty(); ++i) {
    trainer_document* doc = trainer_document_list_get(list, i);
    if (!typed_kind(trainer_document_kind(doc))) continue;
    for (size_t w = 0; w < trainer_document_warning_count(doc); ++w) {
      r.warnings.emplace_back(trainer_document_warning(doc, w));
    }
    trainer_validation* validation = nullptr;
    const trainer_status st = trainer_document_validate(doc, list, &validation, &err);
    for (size_t w = 0; w < trainer_validation_warning_count(validation); ++w) {
      r.warnings.emplace_back(trainer_validation_warning(validation, w));
    }
    trainer_validation_free(validation);
    if (st == TRAINER_E_INVALID && trainer_error_field_count(err) > 0) {
      for (size_t f = 0; f < trainer_error_field_count(err); ++f) {
        r.errors.emplace_back(trainer_error_field_string(err, f));
      }
    } else if (st != TRAINER_OK) {
      r.failure = trainer_error_message(err);
    }
    trainer_error_free(err);
    err = nullptr;
  }
  trainer_document_list_free(list);
  return r;
}

// The C++ wrapper of the C ABI (trainer.hpp), the same way.
FaceResult via_cpp_wrapper(const std::string& text) {
  FaceResult r;
  auto list = trainer::abi::DocumentList::parse(text);
  if (!list) {
    r.failure = list.error().message;
    return r;
  }
  auto documents = list->documents();
  for (auto& doc : documents) {
    if (!doc.apply_defaults()) r.failure = "apply_defaults failed";
  }
  for (const auto& doc : documents) {
    if (!r.failure.empty()) break;
    if (!typed_kind(std::string(doc.kind()))) continue;
    for (auto& w : doc.warnings()) r.warnings.push_back(std::move(w));
    auto validation = doc.validate(&*list);
    if (!validation) {
      r.failure = validation.error().message;
      break;
    }
    for (auto& w : validation->warnings) r.warnings.push_back(std::move(w));
    if (!validation->error) continue;
    if (validation->error->fields.empty()) r.failure = validation->error->message;
    for (const auto& f : validation->error->fields) r.errors.push_back(f.to_string());
  }
  return r;
}

// `trainerctl validate -f <inputs>`: warnings are `Warning: ` lines of stderr, a failure an
// `error: ` line, every other line a field error.
FaceResult via_cli(const std::string& trainerctl, const std::string& text,
                   const std::filesystem::path& input) {
  FaceResult r;
  {
    std::ofstream out(input, std::ios::binary);
    out << text;
  }
  const std::string command =
      "'" + trainerctl + "' validate -f '" + input.string() + "' 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    r.failure = "cannot run " + trainerctl;
    return r;
  }
  std::string output;
  char buf[4096];
  for (size_t got; (got = fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, got);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (auto& line : lines_of(output)) {
    if (line.rfind("Warning: ", 0) == 0) {
      r.warnings.push_back(line.substr(9));
    } else if (line.rfind("error: ", 0) == 0) {
      r.failure = line.substr(7);
    } else {
      r.errors.push_back(std::move(line));
    }
  }
  std::filesystem::remove(input);
  return r;
}

void print_lines(const char* what, const std::vector<std::string>& lines) {
  std::cerr << "  " << what << ":\n";
  for (const auto& l : lines) std::cerr << "    " << l << "\n";
}

bool same(const char* face, const FaceResult& want, const FaceResult& got) {
  bool ok = true;
  if (got.errors != want.errors) {
    std::cerr << "FAIL: " << face << " reports other field errors than trainerctl validate\n";
    print_lines("trainerctl validate (the C++ core)", want.errors);
    print_lines(face, got.errors);
    ok = false;
  }
  if (got.warnings != want.warnings) {
    std::cerr << "FAIL: " << face << " reports other warnings than trainerctl validate\n";
    print_lines("trainerctl validate (the C++ core)", want.warnings);
    print_lines(face, got.warnings);
    ok = false;
  }
  if (got.failure != want.failure) {
    std::cerr << "FAIL: " << face << " failed with \"" << got.failure << "\", the core with \""
              << want.failure << "\"\n";
    ok = false;
  }
  return ok;
}

}  // namespace

int check_validate_faces(const std::filesystem::path& dir, const std::string& inputs,
                         const std::map<std::string, std::string>& expected_error,
                         const std::string& trainerctl) {
  const FaceResult core = via_core(inputs);
  int rc = 0;
  if (!core.failure.empty() || core.errors.empty()) {
    std::cerr << "FAIL: validation did not reject the case with field errors"
              << (core.failure.empty() ? "" : ": " + core.failure) << "\n";
    return 1;
  }
  // The upstream expectation (expected/error.txt): the field and the message.
  if (auto it = expected_error.find("field"); it != expected_error.end()) {
    if (std::none_of(core.errors.begin(), core.errors.end(), [&](const std::string& e) {
          return e.find(it->second) != std::string::npos;
        })) {
      std::cerr << "FAIL: no field error references " << it->second << "\n";
      rc = 1;
    }
  }
  if (auto it = expected_error.find("message"); it != expected_error.end()) {
    if (std::none_of(core.errors.begin(), core.errors.end(), [&](const std::string& e) {
          return e.find(it->second) != std::string::npos;
        })) {
      std::cerr << "FAIL: no field error says: " << it->second << "\n";
      rc = 1;
    }
  }
  // The exact field errors every face must report (the Go and Rust tests read the same file).
  const auto field_errors_file = dir / "expected" / "field-errors.txt";
  if (std::getenv("GOLDEN_UPDATE") != nullptr) {
    std::ofstream out(field_errors_file, std::ios::binary);
    for (const auto& e : core.errors) out << e << "\n";
  }
  if (!std::filesystem::exists(field_errors_file)) {
    std::cerr << "FAIL: " << field_errors_file << " is missing (GOLDEN_UPDATE=1 writes it)\n";
    print_lines("field errors", core.errors);
    return 1;
  }
  if (lines_of(read_text(field_errors_file)) != core.errors) {
    std::cerr << "FAIL: the field errors differ from " << field_errors_file << "\n";
    print_lines("actual", core.errors);
    rc = 1;
  }
  if (!same("the C ABI (trainer_document_validate)", core, via_c(inputs))) rc = 1;
  if (!same("trainer.hpp (Document::validate)", core, via_cpp_wrapper(inputs))) rc = 1;
  if (!trainerctl.empty()) {
    const auto input = std::filesystem::temp_directory_path() /
                       ("golden-validate-" + dir.filename().string() + "-" +
                        std::to_string(static_cast<long>(getpid())) + ".yaml");
    const FaceResult cli = via_cli(trainerctl, inputs, input);
    if (cli.exit_code != 1) {
      std::cerr << "FAIL: trainerctl validate exited with " << cli.exit_code << ", not 1\n";
      rc = 1;
    }
    if (!same("trainerctl validate", core, cli)) rc = 1;
  }
  return rc;
}

}  // namespace golden
