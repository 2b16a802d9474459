// SPDX-License-Identifier: Apache-2.0
//
// The samplers behind trainer::tuning::make_sampler (docs/tuning.md describes each).
#pragma once

#include "trainer/tuning.hpp"
#include "tuning/search_space.hpp"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace trainer::tuning::detail {

/// One value of `p` drawn uniformly (in log space for logUniform, Int rounded) from one word.
[[nodiscard]] std::string draw_uniform(const ParamSpace& p, std::mt19937_64& rng);

/// Trial n, parameter j takes word n*P+j (P parameters) of mt19937_64(seed).
[[nodiscard]] std::unique_ptr<Sampler> make_random_sampler(std::vector<ParamSpace> space,
                                                           std::uint64_t seed);

/// Every combination of the categorical choices, first parameter slowest; `kInvalid` naming
/// the first range parameter.
[[nodiscard]] Result<std::unique_ptr<Sampler>> make_grid_sampler(std::vector<ParamSpace> space);

/// libtrainer's Tree-structured Parzen Estimator (hyperopt's univariate TPE).
struct TpeSettings {
  double gamma = 0.25;            ///< good set size ceil(gamma * sqrt(n)), at most 25
  std::size_t n_startup = 10;     ///< random trials before the model is used
  std::size_t n_candidates = 24;  ///< candidates drawn from l(x) per parameter
  double prior_weight = 1.0;      ///< weight of the prior component / per-choice pseudo-count
};
[[nodiscard]] std::unique_ptr<Sampler> make_tpe_sampler(std::vector<ParamSpace> space,
                                                        std::uint64_t seed, std::string metric,
                                                        bool maximize, TpeSettings settings);

}  // namespace trainer::tuning::detail
