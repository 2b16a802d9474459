// SPDX-License-Identifier: Apache-2.0
// Uses both C++ faces of the installed package: trainer.hpp over libtrainer.so, and the static
// C++ core (typed decoding and validation).
#include <trainer.hpp>
#include <trainer/admission.hpp>
#include <trainer/codec.hpp>

#include <iostream>

namespace {

constexpr const char* kJob = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: demo}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: -1}
)";

}  // namespace

int main() {
  // The C ABI through its C++ wrapper.
  auto docs = trainer::abi::DocumentList::parse(kJob);
  if (!docs || docs->size() != 1) {
    std::cerr << "parse failed\n";
    return 1;
  }
  auto doc = docs->documents().at(0);
  if (!doc.apply_defaults()) return 1;
  auto checked = doc.validate();
  if (!checked || checked->ok()) {
    std::cerr << "expected a rejection\n";
    return 1;
  }
  const std::string abi_text = checked->error->fields.at(0).to_string();

  // The same document through the static C++ core.
  auto parsed = trainer::parse_documents(kJob);
  if (!parsed) return 1;
  auto admitted = trainer::admit(*parsed);
  if (!admitted || admitted->ok() || admitted->errors.at(0).to_string() != abi_text) {
    std::cerr << "C++ core and C ABI disagree\n";
    return 1;
  }
  std::cout << "consumer_cpp: libtrainer " << trainer::abi::version_string() << ": " << abi_text
            << "\n";
  return 0;
}
