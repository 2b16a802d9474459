// SPDX-License-Identifier: Apache-2.0
//
// The measured test: on f(x, lr, n) = (x - 0.3)^2 + (log10(lr) + 2.5)^2 + 0.01 (n - 3)^2
// (x uniform [0, 1], lr logUniform [1e-5, 1e-1], n Int [1, 8]; minimum 0 at x = 0.3,
// lr = 10^-2.5, n = 3) each sampler's best trial gets within kTolerance, and TPE reaches it in
// fewer trials than random: the median over seeds 1..10 (docs/tuning.md states the numbers).
#include "tuning_fixtures.hpp"

#include "api/number_text.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace trainer;
using namespace trainer::tuning;
using tuning_test::categorical;
using tuning_test::range;

namespace {

constexpr double kTolerance = 0.05;
constexpr std::size_t kMaxTrials = 200;

double value(const Assignment& a, const std::string& name) {
  for (const auto& p : a) {
    if (p.name == name) return trainer::detail::parse_float(p.value).value_or(NAN);
  }
  return NAN;
}

double f(const Assignment& a) {
  const double x = value(a, "x");
  const double l = std::log10(value(a, "lr"));
  const double n = value(a, "n");
  return (x - 0.3) * (x - 0.3) + (l + 2.5) * (l + 2.5) + 0.01 * (n - 3) * (n - 3);
}

struct Run {
  std::size_t trials_to_tolerance = kMaxTrials + 1;  // not reached
  double best = INFINITY;
};

// One trial at a time, as a job with parallelTrials 1 runs; `sign` -1 reports -f (Maximize).
Run run(const OptimizationJob& job, std::vector<Assignment>* seen = nullptr, double sign = 1) {
  auto sampler = make_sampler(job);
  REQUIRE(sampler);
  std::vector<Trial> history;
  Run r;
  while (history.size() < kMaxTrials) {
    auto next = (*sampler)->suggest(history, 1);
    REQUIRE(next);
    if (next->empty()) break;
    const double loss = f(next->front());
    if (seen != nullptr) seen->push_back(next->front());
    history.push_back(
        tuning_test::done("t" + std::to_string(history.size()), next->front(), sign * loss));
    r.best = std::min(r.best, loss);
    if (loss <= kTolerance && r.trials_to_tolerance > kMaxTrials) {
      r.trials_to_tolerance = history.size();
    }
  }
  return r;
}

std::vector<OptimizationParameter> space() {
  return {range("x", "0", "1"), range("lr", "1e-5", "1e-1", true),
          range("n", "1", "8", false, true)};
}

std::size_t median(std::vector<std::size_t> v) {
  std::sort(v.begin(), v.end());
  return (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

TEST_CASE("random and TPE reach the known optimum, TPE in fewer trials (median of 10 seeds)") {
  std::vector<std::size_t> random_counts, tpe_counts;
  int random_reached = 0;
  for (std::int64_t seed = 1; seed <= 10; ++seed) {
    const Run random = run(tuning_test::job(space(), "random", seed));
    const Run tpe = run(tuning_test::job(space(), "tpe", seed));
    CHECK(tpe.best <= kTolerance);  // every seed
    random_reached += random.best <= kTolerance ? 1 : 0;
    random_counts.push_back(random.trials_to_tolerance);
    tpe_counts.push_back(tpe.trials_to_tolerance);
    std::printf("seed %2lld: random %3zu trials (best %.5f), tpe %3zu trials (best %.5f)\n",
                static_cast<long long>(seed), random.trials_to_tolerance, random.best,
                tpe.trials_to_tolerance, tpe.best);
  }
  const std::size_t random_median = median(random_counts);
  const std::size_t tpe_median = median(tpe_counts);
  std::printf("median trials to f <= %g: random %zu, tpe %zu\n", kTolerance, random_median,
              tpe_median);
  // Measured (docs/tuning.md): random 126, TPE 18; random misses the tolerance for 1 seed of 10.
  CHECK(random_reached >= 8);
  CHECK(random_median <= kMaxTrials);
  CHECK(tpe_median < random_median / 2);
}

TEST_CASE("TPE maximizing -f suggests exactly what it suggests minimizing f") {
  std::vector<Assignment> minimizing, maximizing;
  const Run min = run(tuning_test::job(space(), "tpe", 3), &minimizing);
  const Run max = run(tuning_test::job(space(), "tpe", 3, true), &maximizing, -1);
  CHECK(minimizing.size() == kMaxTrials);
  CHECK(minimizing == maximizing);
  CHECK(min.best == max.best);
  CHECK(max.best <= kTolerance);
}

TEST_CASE("grid over categorical values around the optimum finds it within the tolerance") {
  auto j = tuning_test::job(
      {categorical("x", {"0.1", "0.2", "0.3", "0.4", "0.5"}),
       categorical("lr", {"1e-4", "1e-3", "3e-3", "1e-2"}), categorical("n", {"2", "3", "4"})},
      "grid");
  auto sampler = make_sampler(j);
  REQUIRE(sampler);
  std::vector<Trial> history;
  for (;;) {
    auto next = (*sampler)->suggest(history, 4);
    REQUIRE(next);
    if (next->empty()) break;
    for (const auto& a : *next) {
      history.push_back(tuning_test::done("t" + std::to_string(history.size()), a, f(a)));
    }
  }
  CHECK(history.size() == 5 * 4 * 3);
  const auto result = best_result(j, history);
  REQUIRE(result);
  const Assignment expected{{"x", "0.3"}, {"lr", "3e-3"}, {"n", "3"}};
  CHECK(result->parameters == expected);
  CHECK(f(result->parameters) <= kTolerance);
}
