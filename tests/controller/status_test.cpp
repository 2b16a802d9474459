// SPDX-License-Identifier: Apache-2.0
// The pure status steps of the controller: apimachinery's SetStatusCondition, the Suspended /
// Resumed condition, the JobSet status copy (reference 4.1.6), the DeadlineExceeded condition
// kept across it, activeDeadlineSeconds with the resume time, and the merge patch and event note.
#include "controller/controller_internal.hpp"
#include "trainer/controller.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace json = boost::json;
using trainer::Condition;
using trainer::TrainJob;
using trainer::TrainJobStatus;
namespace controller = trainer::controller;
using namespace std::chrono_literals;

namespace {

controller::Clock::time_point at(const std::string& text) {
  auto t = controller::detail::parse_time(text);
  REQUIRE(t);
  return *t;
}

Condition cond(std::string type, std::string status, std::string reason, std::string message,
               std::string ltt = "", std::optional<std::int64_t> generation = std::nullopt) {
  return Condition{std::move(type), std::move(status), generation,
                   std::move(ltt),  std::move(reason), std::move(message)};
}

TrainJob job(const std::string& created = "2026-01-01T00:00:00Z") {
  TrainJob j;
  j.metadata.name = "x";
  j.metadata.namespace_ = "ns";
  j.metadata.creation_timestamp = created;
  return j;
}

json::object jobset(const std::string& status_json) {
  return json::object{{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
                      {"kind", "JobSet"},
                      {"status", json::parse(status_json)}};
}

std::vector<std::string> types(const std::vector<Condition>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.type + "=" + c.status + "/" + c.reason);
  return out;
}

}  // namespace

TEST_CASE("set_status_condition appends a new condition with the given or current time") {
  std::vector<Condition> cs;
  CHECK(controller::set_status_condition(cs, cond("A", "True", "R", "m"), "NOW"));
  CHECK(controller::set_status_condition(cs, cond("B", "False", "R", "m", "T0"), "NOW"));
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].last_transition_time == "NOW");
  CHECK(cs[1].last_transition_time == "T0");
}

TEST_CASE("set_status_condition updates in place: the time only when the status changes") {
  std::vector<Condition> cs{cond("A", "True", "R", "m", "T0", 1),
                            cond("B", "True", "R", "m", "T0")};
  // Same status, new reason/message/generation: the time stays.
  CHECK(controller::set_status_condition(cs, cond("A", "True", "R2", "m2", "T9", 2), "NOW"));
  CHECK(cs[0].last_transition_time == "T0");
  CHECK(cs[0].reason == "R2");
  CHECK(cs[0].message == "m2");
  CHECK(cs[0].observed_generation == 2);
  // Nothing differs: no change.
  CHECK_FALSE(controller::set_status_condition(cs, cond("A", "True", "R2", "m2", "T7", 2), "NOW"));
  // Status changes: the given time, or now; the position in the list is kept.
  CHECK(controller::set_status_condition(cs, cond("A", "False", "R3", "m3", "T5"), "NOW"));
  CHECK(cs[0].last_transition_time == "T5");
  CHECK_FALSE(cs[0].observed_generation.has_value());
  CHECK(controller::set_status_condition(cs, cond("A", "True", "R3", "m3"), "NOW"));
  CHECK(cs[0].last_transition_time == "NOW");
  CHECK(cs[0].type == "A");
  CHECK(cs.size() == 2);
}

TEST_CASE("derive_status: a never-suspended TrainJob has no Suspended condition") {
  const auto now = at("2026-01-01T00:10:00Z");
  auto d = controller::derive_status(job(), nullptr, now);
  CHECK(d.status.conditions.empty());
  CHECK_FALSE(d.deadline_exceeded);
  CHECK_FALSE(d.requeue_after);
}

TEST_CASE("derive_status: suspend then resume, Resumed keeps the condition's position") {
  auto j = job();
  j.spec.suspend = true;
  auto d = controller::derive_status(j, nullptr, at("2026-01-01T00:01:00Z"));
  REQUIRE(types(d.status.conditions) == std::vector<std::string>{"Suspended=True/Suspended"});
  CHECK(d.status.conditions[0].message == "TrainJob is suspended");
  CHECK(d.status.conditions[0].last_transition_time == "2026-01-01T00:01:00Z");
  // Still suspended: unchanged.
  j.status = d.status;
  d = controller::derive_status(j, nullptr, at("2026-01-01T00:02:00Z"));
  CHECK(d.status.conditions[0].last_transition_time == "2026-01-01T00:01:00Z");
  // Resumed.
  j.spec.suspend = false;
  d = controller::derive_status(j, nullptr, at("2026-01-01T00:03:00Z"));
  REQUIRE(types(d.status.conditions) == std::vector<std::string>{"Suspended=False/Resumed"});
  CHECK(d.status.conditions[0].message == "TrainJob is resumed");
  CHECK(d.status.conditions[0].last_transition_time == "2026-01-01T00:03:00Z");
  // Once resumed, nothing more changes it.
  j.status = d.status;
  d = controller::derive_status(j, nullptr, at("2026-01-01T00:04:00Z"));
  CHECK(d.status.conditions[0].last_transition_time == "2026-01-01T00:03:00Z");
  // Then Complete is appended after it: the State column shows the last one.
  const auto js = jobset(R"({"conditions":[
      {"type":"Completed","status":"True","reason":"AllJobsCompleted",
       "message":"jobset completed successfully","lastTransitionTime":"2026-01-01T00:09:00Z",
       "observedGeneration":3}]})");
  d = controller::derive_status(j, &js, at("2026-01-01T00:10:00Z"));
  REQUIRE(types(d.status.conditions) ==
          std::vector<std::string>{"Suspended=False/Resumed", "Complete=True/AllJobsCompleted"});
  const auto& c = d.status.conditions[1];
  CHECK(c.message == "jobset completed successfully");
  CHECK(c.last_transition_time == "2026-01-01T00:09:00Z");
  CHECK(c.observed_generation == 3);
}

TEST_CASE("derive_status copies the JobSet's Completed and Failed only when True") {
  const auto js = jobset(R"({"conditions":[
      {"type":"StartupPolicyCompleted","status":"True","reason":"r","message":"m",
       "lastTransitionTime":"2026-01-01T00:00:01Z"},
      {"type":"Suspended","status":"True","reason":"r","message":"m",
       "lastTransitionTime":"2026-01-01T00:00:01Z"},
      {"type":"Completed","status":"False","reason":"r","message":"m",
       "lastTransitionTime":"2026-01-01T00:00:01Z"},
      {"type":"Failed","status":"True","reason":"ReachedMaxRestarts",
       "message":"jobset failed due to reaching max number of restarts",
       "lastTransitionTime":"2026-01-01T00:05:00Z"}],
      "restarts":3})");
  auto d = controller::derive_status(job(), &js, at("2026-01-01T00:06:00Z"));
  REQUIRE(types(d.status.conditions) == std::vector<std::string>{"Failed=True/ReachedMaxRestarts"});
  CHECK(d.status.conditions[0].last_transition_time == "2026-01-01T00:05:00Z");
  CHECK_FALSE(d.status.conditions[0].observed_generation.has_value());
}

TEST_CASE("derive_status: jobsStatus mirrors replicatedJobsStatus in JobSet order") {
  const auto js = jobset(R"({"replicatedJobsStatus":[
      {"name":"node","ready":2,"succeeded":1,"failed":0,"active":2,"suspended":0},
      {"name":"launcher","ready":0,"succeeded":0,"failed":1,"active":0,"suspended":1}]})");
  auto j = job();
  j.status.emplace();
  j.status->jobs_status.push_back({"old", 9, 9, 9, 9, 9});
  j.status->trainer_status = trainer::TrainerStatus{};
  j.status->trainer_status->progress_percentage = 42;
  auto d = controller::derive_status(j, &js, at("2026-01-01T00:06:00Z"));
  REQUIRE(d.status.jobs_status.size() == 2);
  CHECK(d.status.jobs_status[0].name == "node");
  CHECK(d.status.jobs_status[0].ready == 2);
  CHECK(d.status.jobs_status[0].succeeded == 1);
  CHECK(d.status.jobs_status[0].active == 2);
  CHECK(d.status.jobs_status[1].name == "launcher");
  CHECK(d.status.jobs_status[1].failed == 1);
  CHECK(d.status.jobs_status[1].suspended == 1);
  // The status server's field is carried through.
  REQUIRE(d.status.trainer_status);
  CHECK(d.status.trainer_status->progress_percentage == 42);
  // A JobSet without replicatedJobsStatus clears the list.
  const auto empty = jobset("{}");
  j.status = d.status;
  d = controller::derive_status(j, &empty, at("2026-01-01T00:07:00Z"));
  CHECK(d.status.jobs_status.empty());
}

TEST_CASE("derive_status: without a JobSet a finished TrainJob keeps its status") {
  auto j = job();
  j.status.emplace();
  j.status->conditions.push_back(cond("Complete", "True", "AllJobsCompleted", "m", "T"));
  j.status->jobs_status.push_back({"node", 0, 2, 0, 0, 0});
  auto d = controller::derive_status(j, nullptr, at("2026-01-01T00:06:00Z"));
  CHECK(types(d.status.conditions) == std::vector<std::string>{"Complete=True/AllJobsCompleted"});
  CHECK(d.status.jobs_status.size() == 1);
}

TEST_CASE("derive_status: the deadline from creation, requeue after the remaining time") {
  auto j = job("2026-01-01T00:00:00Z");
  j.spec.active_deadline_seconds = 60;
  auto d = controller::derive_status(j, nullptr, at("2026-01-01T00:00:20Z") + 300ms);
  CHECK_FALSE(d.deadline_exceeded);
  REQUIRE(d.requeue_after);
  CHECK(*d.requeue_after == 40s);  // 39.7 s rounded up
  // Exactly at the deadline: not yet (now > deadline), at least 1 s.
  d = controller::derive_status(j, nullptr, at("2026-01-01T00:01:00Z"));
  CHECK_FALSE(d.deadline_exceeded);
  CHECK(d.requeue_after == 1s);
  d = controller::derive_status(j, nullptr, at("2026-01-01T00:01:01Z"));
  CHECK(d.deadline_exceeded);
  CHECK_FALSE(d.requeue_after);
  REQUIRE(types(d.status.conditions) == std::vector<std::string>{"Failed=True/DeadlineExceeded"});
  CHECK(d.status.conditions[0].message == "TrainJob exceeded its active deadline");
  CHECK(d.status.conditions[0].last_transition_time == "2026-01-01T00:01:01Z");
}

TEST_CASE("derive_status: no deadline while suspended, and the resume restarts the clock") {
  auto j = job("2026-01-01T00:00:00Z");
  j.spec.active_deadline_seconds = 60;
  j.spec.suspend = true;
  auto d = controller::derive_status(j, nullptr, at("2026-01-01T01:00:00Z"));
  CHECK_FALSE(d.deadline_exceeded);
  CHECK_FALSE(d.requeue_after);
  j.status = d.status;
  j.spec.suspend = false;
  d = controller::derive_status(j, nullptr, at("2026-01-01T02:00:00Z"));
  CHECK_FALSE(d.deadline_exceeded);  // resumed now: 60 s from now
  CHECK(d.requeue_after == 60s);
  j.status = d.status;
  d = controller::derive_status(j, nullptr, at("2026-01-01T02:01:01Z"));
  CHECK(d.deadline_exceeded);
  CHECK(types(d.status.conditions) ==
        std::vector<std::string>{"Suspended=False/Resumed", "Failed=True/DeadlineExceeded"});
}

TEST_CASE("derive_status: no deadline once finished; DeadlineExceeded survives the copy") {
  auto j = job("2026-01-01T00:00:00Z");
  j.spec.active_deadline_seconds = 60;
  j.status.emplace();
  j.status->conditions.push_back(
      cond("Failed", "True", "DeadlineExceeded", "TrainJob exceeded its active deadline", "T1"));
  // The JobSet reports its own failure afterwards (its Jobs were deleted): the TrainJob keeps
  // the deadline's reason and message.
  const auto js = jobset(R"({"conditions":[
      {"type":"Failed","status":"True","reason":"FailedJobs","message":"jobset failed",
       "lastTransitionTime":"2026-01-01T00:03:00Z"}]})");
  auto d = controller::derive_status(j, &js, at("2026-01-01T00:05:00Z"));
  CHECK_FALSE(d.deadline_exceeded);
  CHECK_FALSE(d.requeue_after);
  REQUIRE(types(d.status.conditions) == std::vector<std::string>{"Failed=True/DeadlineExceeded"});
  CHECK(d.status.conditions[0].message == "TrainJob exceeded its active deadline");
  CHECK(d.status.conditions[0].last_transition_time == "T1");
  // A Failed of another reason is overwritten by the JobSet's.
  j.status->conditions[0] = cond("Failed", "True", "Other", "x", "T1");
  d = controller::derive_status(j, &js, at("2026-01-01T00:05:00Z"));
  CHECK(types(d.status.conditions) == std::vector<std::string>{"Failed=True/FailedJobs"});
}

TEST_CASE("merge_patch: changed keys, removed keys as null, arrays whole") {
  const auto a = json::parse(R"({"conditions":[{"type":"A"}],"jobsStatus":[1],"x":{"y":1,"z":2}})");
  const auto b = json::parse(R"({"conditions":[{"type":"A"},{"type":"B"}],"x":{"y":1,"z":3}})");
  CHECK(json::serialize(controller::detail::merge_patch(a, b)) ==
        R"({"jobsStatus":null,"conditions":[{"type":"A"},{"type":"B"}],"x":{"z":3}})");
  CHECK(controller::detail::merge_patch(a, a).is_null());
}

TEST_CASE("the creation-failed note cuts the error at 950 bytes and appends ' ...'") {
  const std::string prefix = "TrainJob resources reconciliation failed: ";
  CHECK(controller::detail::creation_failed_note("boom") == prefix + "boom");
  const std::string exact(950, 'e');
  CHECK(controller::detail::creation_failed_note(exact) == prefix + exact);
  const std::string longer(951, 'e');
  CHECK(controller::detail::creation_failed_note(longer) == prefix + exact + " ...");
  // A multi-byte character across the cut is left out whole.
  const std::string utf8 = std::string(949, 'e') + "\xC3\xA9" + "tail";
  CHECK(controller::detail::creation_failed_note(utf8) == prefix + std::string(949, 'e') + " ...");
}

TEST_CASE("a refused TrainJob's note and condition message are cut within their limits") {
  CHECK(controller::detail::validation_failed_note("spec.x: Invalid value") ==
        "TrainJob refused by admission: spec.x: Invalid value");
  const std::string long_errors(950, 'e');
  CHECK(controller::detail::validation_failed_note(long_errors + "x") ==
        "TrainJob refused by admission: " + long_errors + " ...");
  // metav1.Condition's message is at most 32768 bytes.
  CHECK(controller::detail::condition_message("short") == "short");
  const std::string huge(40000, 'm');
  const std::string message = controller::detail::condition_message(huge);
  CHECK(message.size() == 32768);
  CHECK(message.substr(message.size() - 4) == " ...");
}

TEST_CASE("the Warning event is controller-runtime's, written as a core/v1 object") {
  auto j = job();
  j.metadata.uid = "u-1";
  j.metadata.resource_version = "7";
  const auto t = at("2026-01-01T00:00:00Z") + 123456789ns;
  const auto e =
      controller::detail::warning_event(j, "TrainJobResourcesCreationFailed", "note", t, "host");
  CHECK(e.at("apiVersion") == "v1");
  CHECK(e.at("type") == "Warning");
  CHECK(e.at("action") == "Reconciling");
  CHECK(e.at("reason") == "TrainJobResourcesCreationFailed");
  CHECK(e.at("message") == "note");
  CHECK(e.at("eventTime") == "2026-01-01T00:00:00.123456Z");
  CHECK(e.at("reportingComponent") == "trainer-trainjob-controller");
  CHECK(e.at("reportingInstance") == "trainer-trainjob-controller-host");
  CHECK(e.at("firstTimestamp") == "2026-01-01T00:00:00Z");
  CHECK(e.at("lastTimestamp") == "2026-01-01T00:00:00Z");
  CHECK(e.at("count") == 1);
  CHECK(e.at("source").at("component") == "trainer-trainjob-controller");
  CHECK(e.at("source").at("host") == "host");
  CHECK(e.at("metadata").at("name") == "x.18867251f555cd15");
  CHECK(e.at("metadata").at("namespace") == "ns");
  CHECK(e.at("involvedObject").at("uid") == "u-1");
  CHECK(e.at("involvedObject").at("kind") == "TrainJob");
  CHECK(e.at("involvedObject").at("resourceVersion") == "7");
}
