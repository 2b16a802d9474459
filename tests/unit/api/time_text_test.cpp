// SPDX-License-Identifier: Apache-2.0
// Ages as kubectl prints them (apimachinery's duration.HumanDuration, case for case).
#include "api/time_text.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using trainer::detail::human_duration;
using namespace std::chrono_literals;

TEST_CASE("human_duration: kubectl's ages") {
  CHECK(human_duration(-3s) == "<invalid>");
  CHECK(human_duration(-1500ms) == "0s");  // clock skew up to 2 s counts as now
  CHECK(human_duration(0s) == "0s");
  CHECK(human_duration(59999ms) == "59s");
  CHECK(human_duration(119s) == "119s");
  CHECK(human_duration(120s) == "2m");
  CHECK(human_duration(150s) == "2m30s");
  CHECK(human_duration(9min + 59s) == "9m59s");
  CHECK(human_duration(10min + 30s) == "10m");
  CHECK(human_duration(179min) == "179m");
  CHECK(human_duration(3h) == "3h");
  CHECK(human_duration(5h + 20min) == "5h20m");
  CHECK(human_duration(8h + 20min) == "8h");
  CHECK(human_duration(47h) == "47h");
  CHECK(human_duration(48h) == "2d");
  CHECK(human_duration(76h) == "3d4h");
  CHECK(human_duration(24h * 20) == "20d");
  CHECK(human_duration(24h * (365 * 2 + 10)) == "2y10d");
  CHECK(human_duration(24h * 365 * 3) == "3y");
  CHECK(human_duration(24h * 365 * 9) == "9y");
}
