// SPDX-License-Identifier: Apache-2.0
// C++ consumer of trainer.hpp, the header-only wrapper of the C ABI: its results are
// tl::expected, its field error values Boost.JSON, and its error text comes from the error model
// (libtrainer_base.a) that the trainer_hpp component links.
#include <trainer.hpp>

#include <iostream>

namespace {

constexpr const char* kJob = R"(apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: mnist}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: -1}
)";

}  // namespace

int main() {
  if (trainer::abi::version_number() != TRAINER_VERSION_NUMBER) {
    std::cerr << "header " << TRAINER_VERSION_STRING << ", library "
              << trainer::abi::version_string() << "\n";
    return 1;
  }
  auto docs = trainer::abi::DocumentList::parse(kJob);
  if (!docs || docs->size() != 1) {
    std::cerr << "parse: " << (docs ? "not one document" : docs.error().message) << "\n";
    return 1;
  }
  auto doc = docs->documents().at(0);
  if (!doc.apply_defaults()) return 1;
  auto checked = doc.validate();
  // numNodes: -1 is rejected with a field error at spec.trainer.numNodes, whose value is -1.
  if (!checked || checked->ok() || checked->error->fields.empty() ||
      checked->error->fields.at(0).path != "spec.trainer.numNodes" ||
      checked->error->fields.at(0).value != boost::json::value(-1)) {
    std::cerr << "expected a field error at spec.trainer.numNodes\n";
    return 1;
  }
  std::cout << "test_package_cpp: libtrainer " << trainer::abi::version_string() << ": "
            << checked->error->fields.at(0).to_string() << "\n";
  return 0;
}
