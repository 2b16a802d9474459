// SPDX-License-Identifier: Apache-2.0
#include "tuning/samplers.hpp"

#include <limits>

namespace trainer::tuning::detail {
namespace {

class GridSampler final : public Sampler {
 public:
  explicit GridSampler(std::vector<ParamSpace> space) : space_(std::move(space)) {
    // Saturate: 100 parameters of 100 choices overflow, and no job runs that many trials.
    for (const auto& p : space_) {
      const std::size_t k = p.choices.size();
      total_ = total_ > std::numeric_limits<std::size_t>::max() / k
                   ? std::numeric_limits<std::size_t>::max()
                   : total_ * k;
    }
  }

  Result<std::vector<Assignment>> suggest(const std::vector<Trial>& history,
                                          std::size_t count) override {
    // Deterministic order (Optuna's GridSampler picks unvisited points at random): point n is
    // n written in mixed radix, the last parameter the fastest digit.
    std::vector<Assignment> out;
    for (std::size_t n = history.size(); n < total_ && out.size() < count; ++n) {
      Assignment a(space_.size());
      std::size_t rest = n;
      for (std::size_t j = space_.size(); j-- > 0;) {
        const auto& c = space_[j].choices;
        a[j] = {space_[j].name, c[rest % c.size()]};
        rest /= c.size();
      }
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  std::vector<ParamSpace> space_;
  std::size_t total_ = 1;
};

}  // namespace

Result<std::unique_ptr<Sampler>> make_grid_sampler(std::vector<ParamSpace> space) {
  for (std::size_t i = 0; i < space.size(); ++i) {
    if (space[i].kind != SpaceKind::kCategorical) {
      return tl::unexpected(Error::invalid(
          {field_invalid("spec.parameters[" + std::to_string(i) + "].searchSpace",
                         boost::json::string_view(space[i].name),
                         "grid search needs a categorical search space for every parameter")}));
    }
  }
  return std::unique_ptr<Sampler>(std::make_unique<GridSampler>(std::move(space)));
}

}  // namespace trainer::tuning::detail
