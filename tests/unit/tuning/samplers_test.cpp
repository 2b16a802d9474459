// SPDX-License-Identifier: Apache-2.0
#include "tuning_fixtures.hpp"

#include "api/number_text.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>

using namespace trainer;
using namespace trainer::tuning;
using tuning_test::categorical;
using tuning_test::range;

namespace {

double num(const std::string& s) {
  const auto v = trainer::detail::parse_float(s);
  REQUIRE(v);
  return *v;
}

std::vector<OptimizationParameter> mixed_space() {
  return {range("x", "0.5", "2"), range("lr", "1e-4", "0.1", true),
          range("layers", "1.5", "5.7", false, true), range("batch", "1", "1000", true, true),
          categorical("opt", {"adam", "sgd", "rmsprop"})};
}

std::vector<Assignment> suggest(Sampler& s, std::size_t history, std::size_t count) {
  std::vector<Trial> h(history);
  auto r = s.suggest(h, count);
  REQUIRE(r);
  return *r;
}

void check_in_space(const Assignment& a) {
  REQUIRE(a.size() == 5);
  CHECK(a[0].name == "x");
  CHECK(num(a[0].value) >= 0.5);
  CHECK(num(a[0].value) <= 2);
  CHECK(num(a[1].value) >= 1e-4);
  CHECK(num(a[1].value) <= 0.1);
  const double layers = num(a[2].value);
  CHECK(layers == std::round(layers));
  CHECK(a[2].value.find('.') == std::string::npos);
  CHECK(layers >= 2);
  CHECK(layers <= 5);
  const double batch = num(a[3].value);
  CHECK(batch == std::round(batch));
  CHECK(batch >= 1);
  CHECK(batch <= 1000);
  CHECK((a[4].value == "adam" || a[4].value == "sgd" || a[4].value == "rmsprop"));
}

}  // namespace

TEST_CASE("random sampler stays in the space: bounds, Int rounding, log scale, choices") {
  auto s = make_sampler(tuning_test::job(mixed_space(), "random", 7));
  REQUIRE(s);
  const auto all = suggest(**s, 0, 1000);
  REQUIRE(all.size() == 1000);
  std::set<std::string> layers, opts;
  int lr_below_geometric_mid = 0, x_below_mid = 0, batch_below_32 = 0;
  for (const auto& a : all) {
    check_in_space(a);
    layers.insert(a[2].value);
    opts.insert(a[4].value);
    if (num(a[1].value) < std::sqrt(1e-4 * 0.1)) ++lr_below_geometric_mid;
    if (num(a[0].value) < 1.25) ++x_below_mid;
    if (num(a[3].value) < 32) ++batch_below_32;
  }
  CHECK(layers == std::set<std::string>{"2", "3", "4", "5"});
  CHECK(opts.size() == 3);
  // logUniform: half the draws below the geometric midpoint (uniform would give ~3%).
  CHECK(lr_below_geometric_mid > 400);
  CHECK(lr_below_geometric_mid < 600);
  CHECK(x_below_mid > 400);
  CHECK(x_below_mid < 600);
  // log Int [1, 1000]: values below 32 take about half (log 32 / log 1000 ~ 0.5).
  CHECK(batch_below_32 > 400);
  CHECK(batch_below_32 < 600);
}

TEST_CASE("random sampler is reproducible with a seed and depends only on the trial count") {
  const auto j = tuning_test::job(mixed_space(), "random", 123);
  auto a = make_sampler(j);
  auto b = make_sampler(j);
  REQUIRE(a);
  REQUIRE(b);
  const auto first = suggest(**a, 0, 12);
  CHECK(suggest(**b, 0, 12) == first);
  // Asking in batches gives the same sequence as asking once.
  const auto batch1 = suggest(**b, 0, 5);
  const auto batch2 = suggest(**b, 5, 7);
  CHECK(std::vector<Assignment>(first.begin(), first.begin() + 5) == batch1);
  CHECK(std::vector<Assignment>(first.begin() + 5, first.end()) == batch2);
  auto other = make_sampler(tuning_test::job(mixed_space(), "random", 124));
  REQUIRE(other);
  CHECK(suggest(**other, 0, 12) != first);
}

TEST_CASE("random sampler maps mt19937_64 words as documented (stable across libraries)") {
  // docs/tuning.md: trial n, parameter j uses word n*P+j; a range value is
  // low + (word >> 11) * 2^-53 * (high - low); a choice is floor(u * k).
  auto s = make_sampler(tuning_test::job(
      {range("x", "0", "10"), categorical("c", {"a", "b", "c", "d"})}, "random", 2024));
  REQUIRE(s);
  const auto got = suggest(**s, 0, 3);
  std::mt19937_64 rng(2024);
  for (const auto& a : got) {
    const double ux = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    const double uc = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    CHECK(a[0].value == trainer::detail::double_text(ux * 10));
    CHECK(a[1].value == std::string(1, static_cast<char>('a' + static_cast<int>(uc * 4))));
  }
}

TEST_CASE("grid sampler enumerates every combination, first parameter slowest, then stops") {
  auto s = make_sampler(
      tuning_test::job({categorical("a", {"1", "2"}), categorical("b", {"x", "y", "z"})}, "grid"));
  REQUIRE(s);
  const auto all = suggest(**s, 0, 100);
  REQUIRE(all.size() == 6);
  std::vector<std::string> seen;
  for (const auto& a : all) seen.push_back(a[0].value + a[1].value);
  CHECK(seen == std::vector<std::string>{"1x", "1y", "1z", "2x", "2y", "2z"});
  CHECK(suggest(**s, 4, 1) == std::vector<Assignment>{all[4]});
  CHECK(suggest(**s, 5, 3).size() == 1);
  CHECK(suggest(**s, 6, 3).empty());
}

TEST_CASE("grid over a range parameter is kInvalid naming the parameter") {
  auto s =
      make_sampler(tuning_test::job({categorical("a", {"1"}), range("lr", "0.1", "1")}, "grid"));
  REQUIRE_FALSE(s);
  CHECK(s.error().code == ErrorCode::kInvalid);
  REQUIRE(s.error().fields.size() == 1);
  CHECK(s.error().fields[0].path == "spec.parameters[1].searchSpace");
}

TEST_CASE("bad search spaces are kInvalid with the field path") {
  auto bad = make_sampler(
      tuning_test::job({range("x", "1", "0.5"), range("y", "abc", "1"), range("lr", "0", "1", true),
                        range("n", "1.2", "1.8", false, true)}));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::kInvalid);
  std::vector<std::string> paths;
  for (const auto& f : bad.error().fields) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"spec.parameters[0].searchSpace.uniform.max",
                                          "spec.parameters[1].searchSpace.uniform.min",
                                          "spec.parameters[2].searchSpace.logUniform.min",
                                          "spec.parameters[3].searchSpace.uniform"});
  CHECK(bad.error().fields[0].to_string() ==
        "spec.parameters[0].searchSpace.uniform.max: Invalid value: \"0.5\": must be greater "
        "than min");
  auto j = tuning_test::job({range("x", "0", "1")});
  j.metadata.annotations[kAlgorithmAnnotation] = "cmaes";
  auto unknown = make_sampler(j);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ErrorCode::kInvalid);
  CHECK(unknown.error().fields.at(0).path ==
        "metadata.annotations[tuning.trainer.kubeflow.org/algorithm]");
}

TEST_CASE("TPE stays in the space, is reproducible, and uses finished trials") {
  const auto j = tuning_test::job(mixed_space(), "tpe", 5);
  auto a = make_sampler(j);
  auto b = make_sampler(j);
  REQUIRE(a);
  REQUIRE(b);
  std::vector<Trial> history;
  for (int round = 0; round < 30; ++round) {
    auto next_a = (*a)->suggest(history, 2);
    auto next_b = (*b)->suggest(history, 2);
    REQUIRE(next_a);
    REQUIRE(next_b);
    REQUIRE(next_a->size() == 2);
    CHECK(*next_a == *next_b);
    CHECK((*next_a)[0] != (*next_a)[1]);
    for (auto& s : *next_a) {
      check_in_space(s);
      // loss: prefers small x and the "sgd" choice
      const double loss = num(s[0].value) + (s[4].value == "sgd" ? 0 : 1);
      history.push_back(tuning_test::done("t" + std::to_string(history.size()), s, loss));
    }
  }
  // After the model takes over the good choice is suggested more often than at random (~10 of
  // 30); TPE's good set stays small (ceil(0.25 sqrt(n)) trials), so not always.
  int sgd = 0;
  for (std::size_t i = 30; i < history.size(); ++i) sgd += history[i].parameters[4].value == "sgd";
  CHECK(sgd >= 14);
}

TEST_CASE("without a seed the sampler draws one and keeps it") {
  auto j = tuning_test::job({range("x", "0", "1"), categorical("c", {"a", "b"})});
  j.spec.search_algorithm->random->seed.reset();
  auto s = make_sampler(j);
  REQUIRE(s);
  const auto first = suggest(**s, 0, 4);
  REQUIRE(first.size() == 4);
  CHECK(suggest(**s, 0, 4) == first);
  CHECK(suggest(**s, 2, 2) == std::vector<Assignment>(first.begin() + 2, first.end()));
}

TEST_CASE("a parameter needs exactly one search space") {
  auto none = tuning_test::job({categorical("c", {"a"})});
  none.spec.parameters[0].search_space.categorical.reset();
  auto r = make_sampler(none);
  REQUIRE_FALSE(r);
  CHECK(r.error().fields.at(0).to_string() ==
        "spec.parameters[0].searchSpace: Required value: one of uniform, logUniform, categorical");
  auto two = tuning_test::job({categorical("c", {"a"})});
  two.spec.parameters[0].search_space.uniform = RangeSearchSpace{"0", "1", std::nullopt};
  r = make_sampler(two);
  REQUIRE_FALSE(r);
  CHECK(r.error().fields.at(0).type == FieldErrorType::kForbidden);
  auto empty = tuning_test::job({categorical("c", {})});
  r = make_sampler(empty);
  REQUIRE_FALSE(r);
  CHECK(r.error().fields.at(0).path == "spec.parameters[0].searchSpace.categorical.choices");
}
