// SPDX-License-Identifier: Apache-2.0
//
// A run folder's executor, alive or gone (lib/local/liveness.cpp, docs/local.md "Run folder"):
// a recorded pid is the executor only with its start time, boot and PID namespace; an unfinished
// run whose executor is gone reads as Failed/ExecutorLost.
#include <catch2/catch.hpp>

#include "local/liveness.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace json = boost::json;
using trainer::local::detail::executor_identity;
using trainer::local::detail::executor_liveness;
using trainer::local::detail::Liveness;
using trainer::local::detail::mark_lost_executor;

json::value run_state(const json::object& executor, bool finished) {
  auto v = json::parse(std::string(R"({"phase": "Running", "finished": )") +
                       (finished ? "true" : "false") +
                       R"(, "conditions": [], "podCounts": {"pending": 1, "running": 1,
                          "succeeded": 1, "failed": 0, "restarts": 0},
                          "pods": [{"name": "a-0", "phase": "Running"},
                                   {"name": "b-0", "phase": "Pending"},
                                   {"name": "c-0", "phase": "Succeeded"}]})");
  v.as_object()["executor"] = executor;
  return v;
}

}  // namespace

TEST_CASE("liveness: this process is alive, and another start time is a reused pid") {
  auto self = executor_identity();
  CHECK(self.at("pid").as_int64() == getpid());
  CHECK_FALSE(self.at("startTime").as_string().empty());
  CHECK(executor_liveness(self) == Liveness::kAlive);
  auto reused = self;
  reused["startTime"] = std::string(self.at("startTime").as_string()) + "0";
  CHECK(executor_liveness(reused) == Liveness::kGone);
  auto rebooted = self;
  rebooted["bootId"] = "00000000-0000-0000-0000-000000000000";
  CHECK(executor_liveness(rebooted) == Liveness::kGone);
  auto vanished = self;
  vanished["pid"] = 2147483647;  // above pid_max
  CHECK(executor_liveness(vanished) == Liveness::kGone);
}

TEST_CASE("liveness: an executor that ended but was not reaped yet (a zombie) is gone") {
  int go[2];
  REQUIRE(pipe(go) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(go[1]);
    char c = 0;
    (void)!read(go[0], &c, 1);
    _exit(0);
  }
  close(go[0]);
  // The child's record, as it would have written it: pid and start time from /proc.
  auto record = executor_identity();
  record["pid"] = static_cast<std::int64_t>(child);
  std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
  std::string line;
  std::getline(stat, line);
  std::istringstream fields(line.substr(line.rfind(')') + 1));
  std::string field;
  for (int n = 3; n <= 22 && fields >> field; ++n) {
  }
  record["startTime"] = field;
  CHECK(executor_liveness(record) == Liveness::kAlive);
  close(go[1]);  // the child exits; not reaped yet
  for (int i = 0; i < 500 && executor_liveness(record) == Liveness::kAlive; ++i) usleep(10000);
  CHECK(executor_liveness(record) == Liveness::kGone);
  REQUIRE(waitpid(child, nullptr, 0) == child);
  CHECK(executor_liveness(record) == Liveness::kGone);
}

TEST_CASE("liveness: undecidable from another PID namespace or without a record") {
  auto other = executor_identity();
  other["pidNamespace"] = "pid:[1]";
  other["startTime"] = "1";
  CHECK(executor_liveness(other) == Liveness::kUnknown);
  CHECK(executor_liveness(json::value()) == Liveness::kUnknown);
  CHECK(executor_liveness(json::object{{"pid", 1}}) == Liveness::kUnknown);
}

TEST_CASE("mark_lost_executor: an unfinished run whose executor is gone is Failed/ExecutorLost") {
  auto gone = executor_identity();
  gone["startTime"] = "1";
  auto s = run_state(gone, false);
  mark_lost_executor(s);
  const auto& o = s.as_object();
  CHECK(o.at("phase") == "Failed");
  CHECK(o.at("finished") == true);
  CHECK(o.at("executorLost") == true);
  const auto& c = o.at("conditions").as_array().at(0).as_object();
  CHECK(c.at("type") == "Failed");
  CHECK(c.at("reason") == "ExecutorLost");
  CHECK(std::string(c.at("message").as_string())
            .find("the executor of this run (pid " + std::to_string(getpid()) + ")") == 0);
  const auto& pods = o.at("pods").as_array();
  CHECK(pods[0].at("phase") == "Failed");
  CHECK(pods[0].at("reason") == "ExecutorLost");
  CHECK(pods[1].at("phase") == "Failed");
  CHECK(pods[2].at("phase") == "Succeeded");
  CHECK(o.at("podCounts").at("failed") == 2);
  CHECK(o.at("podCounts").at("running") == 0);
  CHECK(o.at("podCounts").at("pending") == 0);
}

TEST_CASE("mark_lost_executor: live, finished and unrecorded runs are left as they are") {
  auto gone = executor_identity();
  gone["startTime"] = "1";
  for (const auto& s : {run_state(executor_identity(), false), run_state(gone, true)}) {
    auto copy = s;
    mark_lost_executor(copy);
    CHECK(copy == s);
  }
  auto unrecorded = run_state(gone, false);
  unrecorded.as_object().erase("executor");
  auto copy = unrecorded;
  mark_lost_executor(copy);
  CHECK(copy == unrecorded);
}
