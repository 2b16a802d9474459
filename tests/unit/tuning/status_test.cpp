// SPDX-License-Identifier: Apache-2.0
#include "tuning_fixtures.hpp"

#include <catch2/catch.hpp>

using namespace trainer;
using namespace trainer::tuning;
using tuning_test::range;

namespace {

Trial with_reports(std::string name, TrialState state, std::vector<double> losses) {
  Trial t;
  t.name = std::move(name);
  t.state = state;
  std::int64_t step = 0;
  for (const double l : losses) {
    t.metrics.push_back({"loss", l, step});
    t.metrics.push_back({"accuracy", 1 - l, step});  // other metrics do not count
    ++step;
  }
  return t;
}

const Condition* find(const OptimizationJobStatus& s, const std::string& type) {
  for (const auto& c : s.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("median stop: mean of succeeded trials' first start_step averages, Katib's rule") {
  const auto j = tuning_test::job({range("x", "0", "1")});
  const MedianStop rule{3, 2};
  // averages of the first 2 reports: 1.0, 2.0, 3.0 -> rule value 2.0 (later reports ignored)
  std::vector<Trial> history{with_reports("a", TrialState::kSucceeded, {1.5, 0.5, 9}),
                             with_reports("b", TrialState::kSucceeded, {2, 2}),
                             with_reports("c", TrialState::kFailed, {0, 0}),
                             with_reports("d", TrialState::kSucceeded, {3, 3, 0})};
  // best of the first 2 reports 2.5 > 2.0: stop (minimize)
  CHECK(should_stop_early(rule, j, with_reports("r", TrialState::kRunning, {3, 2.5}), history));
  // best 1.9 < 2.0: keep going; later reports do not change the single decision
  CHECK_FALSE(
      should_stop_early(rule, j, with_reports("r", TrialState::kRunning, {3, 1.9, 7}), history));
  // before start_step reports: never
  CHECK_FALSE(should_stop_early(rule, j, with_reports("r", TrialState::kRunning, {9}), history));
  // not running: never
  CHECK_FALSE(
      should_stop_early(rule, j, with_reports("r", TrialState::kSucceeded, {9, 9}), history));
  // fewer than min_trials_required succeeded trials: never
  CHECK_FALSE(should_stop_early(MedianStop{4, 2}, j,
                                with_reports("r", TrialState::kRunning, {9, 9}), history));
  // maximize: stop when the best so far is below the rule value
  const auto jm = tuning_test::job({range("x", "0", "1")}, "random", 1, true);
  CHECK(should_stop_early(rule, jm, with_reports("r", TrialState::kRunning, {1, 1.9}), history));
  CHECK_FALSE(
      should_stop_early(rule, jm, with_reports("r", TrialState::kRunning, {1, 2.1}), history));
}

TEST_CASE("best_result follows the direction and uses each trial's latest report") {
  auto a = with_reports("tune-trial-0", TrialState::kSucceeded, {0.1, 0.5});  // latest 0.5
  a.parameters = {{"x", "0.1"}};
  auto b = with_reports("tune-trial-1", TrialState::kSucceeded, {0.3});
  b.parameters = {{"x", "0.3"}};
  auto c = with_reports("tune-trial-2", TrialState::kFailed, {0.0});  // failed: not counted
  auto d = with_reports("tune-trial-3", TrialState::kSucceeded, {});  // no value
  const std::vector<Trial> trials{a, b, c, d};
  const auto min = best_result(tuning_test::job({range("x", "0", "1")}), trials);
  REQUIRE(min);
  CHECK(min->train_job_name == "tune-trial-1");
  CHECK(min->parameters == std::vector<ParameterAssignment>{{"x", "0.3"}});
  const auto max = best_result(tuning_test::job({range("x", "0", "1")}, "random", 1, true), trials);
  REQUIRE(max);
  CHECK(max->train_job_name == "tune-trial-0");
  CHECK_FALSE(best_result(tuning_test::job({range("x", "0", "1")}), {c, d}));
}

TEST_CASE("derive_status: Created, Running/TrialsRunning, Complete, Failed/AllTrialsFailed") {
  auto j = tuning_test::job({range("x", "0", "1")});
  j.spec.num_trials = 2;
  j.metadata.generation = 3;
  auto running = with_reports("tune-trial-0", TrialState::kRunning, {0.5});
  auto s1 = derive_status(j, {running}, {}, "2026-01-01T00:00:00Z");
  REQUIRE(find(s1, "Created"));
  CHECK(find(s1, "Created")->status == "True");
  CHECK(find(s1, "Created")->observed_generation == 3);
  REQUIRE(find(s1, "Running"));
  CHECK(find(s1, "Running")->status == "True");
  CHECK(find(s1, "Running")->reason == "TrialsRunning");
  CHECK(find(s1, "Running")->message == "1 trial(s) actively running");
  CHECK_FALSE(find(s1, "Complete"));
  CHECK_FALSE(s1.result);

  // one finished, fewer than numTrials: not complete yet, transition times kept
  auto done0 = with_reports("tune-trial-0", TrialState::kSucceeded, {0.2});
  done0.parameters = {{"x", "0.2"}};
  auto s2 = derive_status(j, {done0, with_reports("tune-trial-1", TrialState::kRunning, {})}, s1,
                          "2026-01-01T00:01:00Z");
  CHECK(find(s2, "Running")->last_transition_time == "2026-01-01T00:00:00Z");
  CHECK_FALSE(find(s2, "Complete"));

  auto done1 = with_reports("tune-trial-1", TrialState::kEarlyStopped, {0.9});
  auto s3 = derive_status(j, {done0, done1}, s2, "2026-01-01T00:02:00Z");
  REQUIRE(find(s3, "Complete"));
  CHECK(find(s3, "Complete")->status == "True");
  CHECK(find(s3, "Complete")->reason == "OptimizationJobCompleted");
  CHECK(find(s3, "Complete")->message == "All trials have completed successfully");
  CHECK(find(s3, "Complete")->last_transition_time == "2026-01-01T00:02:00Z");
  CHECK(find(s3, "Running")->status == "False");
  CHECK(find(s3, "Running")->last_transition_time == "2026-01-01T00:02:00Z");
  REQUIRE(s3.result);
  CHECK(s3.result->train_job_name == "tune-trial-0");
  CHECK_FALSE(find(s3, "Failed"));

  auto f0 = with_reports("tune-trial-0", TrialState::kFailed, {});
  auto f1 = with_reports("tune-trial-1", TrialState::kFailed, {});
  auto s4 = derive_status(j, {f0, f1}, s1, "2026-01-01T00:03:00Z");
  REQUIRE(find(s4, "Failed"));
  CHECK(find(s4, "Failed")->status == "True");
  CHECK(find(s4, "Failed")->reason == "AllTrialsFailed");
  CHECK(find(s4, "Failed")->message == "2 out of 2 trials failed");
  CHECK_FALSE(find(s4, "Complete"));
  CHECK_FALSE(s4.result);
}

TEST_CASE("failed_status: Failed with the cause, Complete gone, the best trial so far kept") {
  auto j = tuning_test::job({range("x", "0", "1")});
  j.spec.num_trials = 2;
  j.metadata.generation = 4;
  auto done0 = with_reports("tune-trial-0", TrialState::kSucceeded, {0.2});
  done0.parameters = {{"x", "0.2"}};
  auto failed1 = with_reports("tune-trial-1", TrialState::kFailed, {});
  const auto complete = derive_status(j, {done0, failed1}, {}, "2026-01-01T00:00:00Z");
  REQUIRE(find(complete, "Complete"));
  const auto s = failed_status(j, complete, "TrialsFailedToStart", "3 trials in a row",
                               "2026-01-01T00:01:00Z");
  CHECK_FALSE(find(s, "Complete"));
  REQUIRE(find(s, "Failed"));
  CHECK(find(s, "Failed")->status == "True");
  CHECK(find(s, "Failed")->reason == "TrialsFailedToStart");
  CHECK(find(s, "Failed")->message == "3 trials in a row");
  CHECK(find(s, "Failed")->observed_generation == 4);
  CHECK(find(s, "Failed")->last_transition_time == "2026-01-01T00:01:00Z");
  REQUIRE(find(s, "Running"));
  CHECK(find(s, "Running")->status == "False");
  CHECK(find(s, "Running")->reason == "TrialsFailedToStart");
  REQUIRE(s.result);
  CHECK(s.result->train_job_name == "tune-trial-0");
  CHECK(find(s, "Created"));
}
