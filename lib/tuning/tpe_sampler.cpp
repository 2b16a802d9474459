// SPDX-License-Identifier: Apache-2.0
//
// Tree-structured Parzen Estimator after hyperopt's `tpe.suggest` (reference 6.1), written for
// libtrainer: the finished trials are split into a good set (the ceil(gamma * sqrt(n)) best,
// at most 25) and the rest; per parameter, independently, a Parzen estimator l(x) is fitted to
// the good values and g(x) to the rest (each with a prior component), `n_candidates` values are
// drawn from l and the one maximising log l(x) - log g(x) (the expected-improvement ratio) is
// suggested. docs/tuning.md lists the settings.
#include "tuning/rng.hpp"
#include "tuning/samplers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace trainer::tuning::detail {
namespace {

constexpr std::size_t kForgetAfter = 25;  // hyperopt's linear forgetting (LF)
constexpr std::size_t kMaxGood = 25;
constexpr int kRejectionTries = 100;
constexpr double kLogSqrtTwoPi = 0.91893853320467274178;  // log(sqrt(2 pi))

// hyperopt's linear forgetting: with more than 25 observations the oldest get a ramp
// linspace(1/n, 1, n - 25), the newest 25 weight 1. `n` observations in creation order.
std::vector<double> forgetting_weights(std::size_t n) {
  std::vector<double> w(n, 1.0);
  if (n <= kForgetAfter) return w;
  const std::size_t ramp = n - kForgetAfter;
  const double first = 1.0 / static_cast<double>(n);
  for (std::size_t i = 0; i < ramp; ++i) {
    w[i] = ramp == 1
               ? first
               : first + (1.0 - first) * static_cast<double>(i) / static_cast<double>(ramp - 1);
  }
  return w;
}

std::size_t pick_weighted(const std::vector<double>& w, std::mt19937_64& rng) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  double u = unit(rng) * total;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (u < w[i]) return i;
    u -= w[i];
  }
  return w.size() - 1;
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

// A mixture of normals truncated to [low, high] (the internal interval of one parameter).
struct Parzen {
  std::vector<double> mu, sigma, weight;
  double low = 0, high = 0;

  // hyperopt's adaptive_parzen_normal: the prior (midpoint, width of the interval) joins the
  // observations; each component's sigma is the larger gap to its sorted neighbours, clipped to
  // [prior_sigma / min(100, 1 + components), prior_sigma]; the prior keeps prior_sigma.
  static Parzen fit(const std::vector<double>& obs, double low, double high, double prior_w) {
    Parzen p;
    p.low = low;
    p.high = high;
    const double prior_mu = 0.5 * (low + high);
    const double prior_sigma = high - low;
    const auto ow = forgetting_weights(obs.size());
    struct C {
      double mu, w;
      bool prior;
    };
    std::vector<C> cs;
    for (std::size_t i = 0; i < obs.size(); ++i) cs.push_back({obs[i], ow[i], false});
    cs.push_back({prior_mu, prior_w, true});
    std::stable_sort(cs.begin(), cs.end(), [](const C& a, const C& b) { return a.mu < b.mu; });
    const std::size_t n = cs.size();
    const double min_sigma = prior_sigma / std::min(100.0, 1.0 + static_cast<double>(n));
    for (std::size_t i = 0; i < n; ++i) {
      double s = prior_sigma;
      if (cs[i].prior) {
        s = prior_sigma;
      } else if (n == 2) {
        s = 0.5 * prior_sigma;  // one observation: half the prior's width
      } else {
        const double left = i > 0 ? cs[i].mu - cs[i - 1].mu : 0.0;
        const double right = i + 1 < n ? cs[i + 1].mu - cs[i].mu : 0.0;
        s = std::clamp(std::max(left, right), min_sigma, prior_sigma);
      }
      p.mu.push_back(cs[i].mu);
      p.sigma.push_back(s);
      p.weight.push_back(cs[i].w);
    }
    const double total = std::accumulate(p.weight.begin(), p.weight.end(), 0.0);
    for (auto& w : p.weight) w /= total;
    return p;
  }

  double sample(std::mt19937_64& rng) const {
    const std::size_t k = pick_weighted(weight, rng);
    for (int t = 0; t < kRejectionTries; ++t) {
      const double x = mu[k] + sigma[k] * normal(rng);
      if (x >= low && x <= high) return x;
    }
    return std::clamp(mu[k], low, high);  // bounded: a component far outside the interval
  }

  double log_pdf(double x) const {
    // log sum_k w_k N(x; mu_k, sigma_k) / mass_k, by log-sum-exp.
    std::vector<double> terms;
    double top = -std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < mu.size(); ++k) {
      const double z = (x - mu[k]) / sigma[k];
      const double mass =
          normal_cdf((high - mu[k]) / sigma[k]) - normal_cdf((low - mu[k]) / sigma[k]);
      const double t = std::log(weight[k]) - 0.5 * z * z - std::log(sigma[k]) - kLogSqrtTwoPi -
                       std::log(std::max(mass, 1e-300));
      terms.push_back(t);
      top = std::max(top, t);
    }
    double sum = 0;
    for (const double t : terms) sum += std::exp(t - top);
    return top + std::log(sum);
  }
};

// Categorical: weighted counts plus prior_weight per choice, normalised.
std::vector<double> choice_probabilities(const std::vector<std::size_t>& obs, std::size_t k,
                                         double prior_w) {
  std::vector<double> p(k, prior_w);
  const auto ow = forgetting_weights(obs.size());
  for (std::size_t i = 0; i < obs.size(); ++i) p[obs[i]] += ow[i];
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (auto& v : p) v /= total;
  return p;
}

class TpeSampler final : public Sampler {
 public:
  TpeSampler(std::vector<ParamSpace> space, std::uint64_t seed, std::string metric, bool maximize,
             TpeSettings s)
      : space_(std::move(space)),
        seed_(seed),
        metric_(std::move(metric)),
        maximize_(maximize),
        s_(s) {}

  Result<std::vector<Assignment>> suggest(const std::vector<Trial>& history,
                                          std::size_t count) override {
    // The trials the model learns from: finished ones with an objective (as Katib's services
    // use SUCCEEDED and EARLYSTOPPED trials), in creation order, loss = value or -value.
    std::vector<std::pair<double, const Trial*>> done;
    for (const auto& t : history) {
      if (t.state != TrialState::kSucceeded && t.state != TrialState::kEarlyStopped) continue;
      const auto v = t.objective(metric_);
      if (!v || !std::isfinite(*v)) continue;
      done.emplace_back(maximize_ ? -*v : *v, &t);
    }
    std::vector<const Trial*> good, bad;
    if (done.size() >= s_.n_startup && !done.empty()) split(done, good, bad);

    std::vector<Assignment> out;
    for (std::size_t i = 0; i < count; ++i) {
      // One stream per trial number, so a batch's suggestions differ and a rerun repeats them;
      // the seed is mixed first so that seed s + 1 does not replay seed s one trial later.
      std::mt19937_64 rng(mix(mix(seed_) + history.size() + i));
      Assignment a;
      for (const auto& p : space_) {
        a.push_back({p.name, good.empty() ? draw_uniform(p, rng) : suggest_one(p, good, bad, rng)});
      }
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  void split(std::vector<std::pair<double, const Trial*>> done, std::vector<const Trial*>& good,
             std::vector<const Trial*>& bad) const {
    const auto n = static_cast<double>(done.size());
    auto n_good = static_cast<std::size_t>(std::ceil(s_.gamma * std::sqrt(n)));
    n_good = std::clamp<std::size_t>(n_good, 1, std::min(kMaxGood, done.size()));
    std::vector<std::size_t> order(done.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return done[x].first < done[y].first; });
    std::vector<bool> is_good(done.size(), false);
    for (std::size_t r = 0; r < n_good; ++r) is_good[order[r]] = true;
    for (std::size_t i = 0; i < done.size(); ++i) {
      (is_good[i] ? good : bad).push_back(done[i].second);  // creation order kept for forgetting
    }
  }

  static const std::string* value_of(const Trial& t, const std::string& name) {
    for (const auto& a : t.parameters) {
      if (a.name == name) return &a.value;
    }
    return nullptr;
  }

  std::string suggest_one(const ParamSpace& p, const std::vector<const Trial*>& good,
                          const std::vector<const Trial*>& bad, std::mt19937_64& rng) const {
    if (p.kind == SpaceKind::kCategorical) {
      const auto obs = [&](const std::vector<const Trial*>& set) {
        std::vector<std::size_t> v;
        for (const auto* t : set) {
          const auto* text = value_of(*t, p.name);
          if (text == nullptr) continue;
          const std::size_t i = choice_index(p, *text);
          if (i < p.choices.size()) v.push_back(i);
        }
        return v;
      };
      const auto l = choice_probabilities(obs(good), p.choices.size(), s_.prior_weight);
      const auto g = choice_probabilities(obs(bad), p.choices.size(), s_.prior_weight);
      std::size_t best = 0;
      double best_score = -std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < s_.n_candidates; ++c) {
        const std::size_t i = pick_weighted(l, rng);
        const double score = std::log(l[i]) - std::log(g[i]);
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      return p.choices[best];
    }
    const auto obs = [&](const std::vector<const Trial*>& set) {
      std::vector<double> v;
      for (const auto* t : set) {
        const auto* text = value_of(*t, p.name);
        if (text == nullptr) continue;
        const double x = p.internal_of(*text);
        if (std::isfinite(x)) v.push_back(x);
      }
      return v;
    };
    const double lo = p.internal_low();
    const double hi = p.internal_high();
    const auto l = Parzen::fit(obs(good), lo, hi, s_.prior_weight);
    const auto g = Parzen::fit(obs(bad), lo, hi, s_.prior_weight);
    std::string best;
    double best_score = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < s_.n_candidates; ++c) {
      // Score the value the trial would receive (Int rounded), not the raw draw.
      const std::string text = p.value_text(l.sample(rng));
      const double x = p.internal_of(text);
      const double score = l.log_pdf(x) - g.log_pdf(x);
      if (best.empty() || score > best_score) {
        best_score = score;
        best = text;
      }
    }
    return best;
  }

  std::vector<ParamSpace> space_;
  std::uint64_t seed_;
  std::string metric_;
  bool maximize_;
  TpeSettings s_;
};

}  // namespace

std::unique_ptr<Sampler> make_tpe_sampler(std::vector<ParamSpace> space, std::uint64_t seed,
                                          std::string metric, bool maximize, TpeSettings settings) {
  return std::make_unique<TpeSampler>(std::move(space), seed, std::move(metric), maximize,
                                      settings);
}

}  // namespace trainer::tuning::detail
