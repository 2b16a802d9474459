// SPDX-License-Identifier: Apache-2.0
#include "tuning/samplers.hpp"

#include <random>

namespace trainer::tuning {

Result<std::unique_ptr<Sampler>> make_sampler(const OptimizationJob& job) {
  auto space = detail::parse_space(job);
  if (!space) return tl::unexpected(space.error());
  const auto& algo = job.spec.search_algorithm;
  // An unset seed is drawn once here: the sampler stays reproducible for its own lifetime.
  std::uint64_t seed = 0;
  if (algo && algo->random && algo->random->seed) {
    seed = static_cast<std::uint64_t>(*algo->random->seed);
  } else {
    std::random_device device;
    seed = (std::uint64_t{device()} << 32) ^ device();
  }
  std::string name = algo && algo->grid ? "grid" : "random";
  const auto& annotations = job.metadata.annotations;
  if (const auto it = annotations.find(kAlgorithmAnnotation); it != annotations.end()) {
    name = it->second;
  }
  if (name == "grid") return detail::make_grid_sampler(std::move(*space));
  if (name == "random") return detail::make_random_sampler(std::move(*space), seed);
  if (name == "tpe") {
    if (job.spec.objectives.empty()) {
      return tl::unexpected(
          Error::invalid({field_required("spec.objectives", "tpe needs an objective")}));
    }
    const auto& objective = job.spec.objectives.front();
    const bool maximize = objective.direction.value_or(ObjectiveDirection::kMinimize) ==
                          ObjectiveDirection::kMaximize;
    return detail::make_tpe_sampler(std::move(*space), seed, objective.metric, maximize,
                                    detail::TpeSettings{});
  }
  return tl::unexpected(Error::invalid(
      {field_not_supported(std::string("metadata.annotations[") + kAlgorithmAnnotation + "]",
                           boost::json::string_view(name), {"grid", "random", "tpe"})}));
}

}  // namespace trainer::tuning
