// SPDX-License-Identifier: Apache-2.0
#include "support/cluster_data.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace trainer::testing {

std::string small_runtime_yaml() {
  const std::string path = std::string(TRAINER_SOURCE_DIR) + "/tests/cli/data/cluster/runtime.yaml";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string small_train_job_yaml(const std::string& name, const std::string& extra) {
  return "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: " + name +
         "\nspec:\n  runtimeRef:\n    name: torch-small\n    kind: TrainingRuntime\n"
         "  trainer:\n    numNodes: 2\n" +
         extra;
}

}  // namespace trainer::testing
