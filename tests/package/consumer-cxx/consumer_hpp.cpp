// SPDX-License-Identifier: Apache-2.0
// trainer.hpp alone (libtrainer::trainer_hpp / pkg-config libtrainer-hpp): the C ABI through its
// C++ wrapper, with its field errors rendered as Kubernetes does.
#include <trainer.hpp>

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
  if (trainer::abi::version_number() != TRAINER_VERSION_NUMBER) {
    std::cerr << "header " << TRAINER_VERSION_STRING << " != library "
              << trainer::abi::version_string() << "\n";
    return 1;
  }
  auto docs = trainer::abi::DocumentList::parse(kJob);
  if (!docs || docs->size() != 1) {
    std::cerr << "parse failed\n";
    return 1;
  }
  auto doc = docs->documents().at(0);
  if (!doc.apply_defaults()) return 1;
  auto checked = doc.validate();
  if (!checked || checked->ok() || checked->error->fields.at(0).path != "spec.trainer.numNodes") {
    std::cerr << "expected a rejection of spec.trainer.numNodes\n";
    return 1;
  }
  std::cout << "consumer_hpp: libtrainer " << trainer::abi::version_string() << ": "
            << checked->error->fields.at(0).to_string() << "\n";
  return 0;
}
