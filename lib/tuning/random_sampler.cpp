// SPDX-License-Identifier: Apache-2.0
#include "tuning/rng.hpp"
#include "tuning/samplers.hpp"

namespace trainer::tuning::detail {

std::string draw_uniform(const ParamSpace& p, std::mt19937_64& rng) {
  if (p.kind == SpaceKind::kCategorical) return p.choices[index(rng, p.choices.size())];
  const double lo = p.internal_low();
  const double hi = p.internal_high();
  return p.value_text(lo + unit(rng) * (hi - lo));
}

namespace {

class RandomSampler final : public Sampler {
 public:
  RandomSampler(std::vector<ParamSpace> space, std::uint64_t seed)
      : space_(std::move(space)), seed_(seed) {}

  Result<std::vector<Assignment>> suggest(const std::vector<Trial>& history,
                                          std::size_t count) override {
    // One stream for the whole job, positioned by the number of trials so far, so that the
    // suggestions depend only on the seed and how many trials exist (not on their results).
    std::mt19937_64 rng(seed_);
    rng.discard(static_cast<unsigned long long>(history.size()) * space_.size());
    std::vector<Assignment> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      Assignment a;
      for (const auto& p : space_) a.push_back({p.name, draw_uniform(p, rng)});
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  std::vector<ParamSpace> space_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Sampler> make_random_sampler(std::vector<ParamSpace> space, std::uint64_t seed) {
  return std::make_unique<RandomSampler>(std::move(space), seed);
}

}  // namespace trainer::tuning::detail
