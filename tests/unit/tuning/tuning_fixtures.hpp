// SPDX-License-Identifier: Apache-2.0
//
// OptimizationJobs and trials for the tuning tests.
#pragma once

#include "trainer/tuning.hpp"

#include <string>
#include <vector>

namespace trainer {
// model.hpp declares no comparison; found by ADL for Assignment and result comparisons.
inline bool operator==(const ParameterAssignment& a, const ParameterAssignment& b) {
  return a.name == b.name && a.value == b.value;
}
inline bool operator!=(const ParameterAssignment& a, const ParameterAssignment& b) {
  return !(a == b);
}
}  // namespace trainer

namespace tuning_test {

inline trainer::OptimizationParameter range(std::string name, std::string min, std::string max,
                                            bool log = false, bool is_int = false) {
  trainer::OptimizationParameter p;
  p.name = std::move(name);
  trainer::RangeSearchSpace r{
      std::move(min), std::move(max),
      is_int ? trainer::ParameterType::kInt : trainer::ParameterType::kFloat};
  if (log) {
    p.search_space.log_uniform = r;
  } else {
    p.search_space.uniform = r;
  }
  return p;
}

inline trainer::OptimizationParameter categorical(std::string name,
                                                  std::vector<std::string> choices) {
  trainer::OptimizationParameter p;
  p.name = std::move(name);
  p.search_space.categorical = trainer::CategoricalSearchSpace{std::move(choices)};
  return p;
}

inline trainer::OptimizationJob job(std::vector<trainer::OptimizationParameter> params,
                                    std::string algorithm = "random", std::int64_t seed = 42,
                                    bool maximize = false) {
  trainer::OptimizationJob j;
  j.metadata.name = "tune";
  j.metadata.namespace_ = "ml";
  j.metadata.uid = "uid-1";
  j.spec.objectives.push_back({"loss", maximize ? trainer::ObjectiveDirection::kMaximize
                                                : trainer::ObjectiveDirection::kMinimize});
  j.spec.parameters = std::move(params);
  trainer::SearchAlgorithm a;
  if (algorithm == "grid") {
    a.grid = trainer::GridSearch{};
  } else {
    a.random = trainer::RandomSearch{seed};
  }
  if (algorithm == "tpe") j.metadata.annotations[trainer::tuning::kAlgorithmAnnotation] = "tpe";
  j.spec.search_algorithm = a;
  j.spec.num_trials = 10;
  j.spec.train_job_template.spec.runtime_ref.name = "torch-distributed";
  return j;
}

/// A finished trial with one objective report.
inline trainer::tuning::Trial done(
    std::string name, trainer::tuning::Assignment a, double loss,
    trainer::tuning::TrialState state = trainer::tuning::TrialState::kSucceeded) {
  trainer::tuning::Trial t;
  t.name = std::move(name);
  t.parameters = std::move(a);
  t.state = state;
  t.metrics.push_back({"loss", loss, 0});
  return t;
}

}  // namespace tuning_test
