// SPDX-License-Identifier: Apache-2.0
#include "runtimes/builtin_inputs.hpp"
#include "trainer/runtimes.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

TEST_CASE("the not-found hint names only built-in ClusterTrainingRuntimes") {
  using trainer::detail::builtin_runtime_hint;
  CHECK(builtin_runtime_hint({"torch-distributed", std::nullopt, std::nullopt}) ==
        "; \"torch-distributed\" is a built-in ClusterTrainingRuntime of libtrainer: add "
        "--builtin-runtimes (trainerctl) or set the builtin_runtimes option to use it");
  CHECK_FALSE(builtin_runtime_hint({"xgboost-distributed", std::string("trainer.kubeflow.org"),
                                    std::string("ClusterTrainingRuntime")})
                  .empty());
  for (const auto& runtime : trainer::builtin_runtimes()) {
    CHECK_FALSE(
        builtin_runtime_hint({std::string(runtime.name), std::nullopt, std::nullopt}).empty());
  }
  // Not built-in, a TrainingRuntime (built-ins are cluster-scoped), or another group: no hint.
  CHECK(builtin_runtime_hint({"my-runtime", std::nullopt, std::nullopt}).empty());
  CHECK(builtin_runtime_hint({"torch-distributed", std::nullopt, std::string("TrainingRuntime")})
            .empty());
  CHECK(builtin_runtime_hint({"torch-distributed", std::string("example.com"), std::nullopt})
            .empty());
}
