// SPDX-License-Identifier: Apache-2.0
// The controller's work queue (lib/controller/work_queue.hpp): client-go's semantics.
#include "controller/work_queue.hpp"
#include "controller/owner_key.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using trainer::controller::detail::WorkQueue;

TEST_CASE("a key waiting in the queue is added once") {
  WorkQueue queue(5ms, 1000s);
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/a");
  CHECK(queue.depth() == 2);
  CHECK(queue.get(0ms) == "ns/a");
  CHECK(queue.get(0ms) == "ns/b");
  CHECK_FALSE(queue.get(10ms));
}

TEST_CASE(
    "a key being processed is not handed out again, and added meanwhile, it comes back on done") {
  WorkQueue queue(5ms, 1000s);
  queue.add("ns/a");
  const auto first = queue.get(0ms);
  REQUIRE(first == "ns/a");
  queue.add("ns/a");
  queue.add("ns/a");
  CHECK(queue.depth() == 0);
  CHECK_FALSE(queue.get(20ms));
  queue.done("ns/a");
  CHECK(queue.depth() == 1);
  CHECK(queue.get(0ms) == "ns/a");
  queue.done("ns/a");
  CHECK_FALSE(queue.get(10ms));
}

TEST_CASE("many workers never process one key at the same time and lose no add") {
  WorkQueue queue(1ms, 10ms);
  std::mutex mutex;
  std::set<std::string> busy;
  std::atomic<bool> overlap{false};
  std::atomic<int> processed{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> workers;
  for (int i = 0; i < 8; ++i) {
    workers.emplace_back([&] {
      while (!stop) {
        auto key = queue.get(20ms);
        if (!key) continue;
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (!busy.insert(*key).second) overlap = true;
        }
        std::this_thread::sleep_for(200us);
        {
          std::lock_guard<std::mutex> lock(mutex);
          busy.erase(*key);
        }
        ++processed;
        queue.done(*key);
      }
    });
  }
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 5; ++k) queue.add("ns/k" + std::to_string(k));
  }
  // The last add of each key happened after its last hand-out began: it is processed again.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while ((queue.depth() > 0 || queue.processing() > 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  stop = true;
  for (auto& worker : workers) worker.join();
  CHECK_FALSE(overlap);
  CHECK(processed >= 5);
  CHECK(queue.depth() == 0);
  CHECK(queue.processing() == 0);
}

TEST_CASE("add_after delays a key and the earliest ready time wins") {
  WorkQueue queue(5ms, 1000s);
  const auto start = std::chrono::steady_clock::now();
  queue.add_after("ns/a", 5s);
  queue.add_after("ns/a", 100ms);
  queue.add_after("ns/a", 10s);
  CHECK(queue.delayed() == 1);
  CHECK(queue.depth() == 0);
  const auto key = queue.get(3s);
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE(key == "ns/a");
  CHECK(waited >= 100ms);
  CHECK(waited < 2s);
  CHECK(queue.delayed() == 0);
}

TEST_CASE("a delayed key that is already queued is handed out once") {
  WorkQueue queue(5ms, 1000s);
  queue.add("ns/a");
  queue.add_after("ns/a", 20ms);
  std::this_thread::sleep_for(40ms);
  CHECK(queue.get(0ms) == "ns/a");
  CHECK_FALSE(queue.get(30ms));
}

TEST_CASE("rate-limited requeues back off per key, exponentially and capped, and forget resets") {
  WorkQueue queue(5ms, 100ms);
  CHECK(queue.when("ns/a") == 5ms);
  CHECK(queue.when("ns/a") == 10ms);
  CHECK(queue.when("ns/a") == 20ms);
  CHECK(queue.when("ns/a") == 40ms);
  CHECK(queue.when("ns/a") == 80ms);
  CHECK(queue.when("ns/a") == 100ms);
  for (int i = 0; i < 100; ++i) (void)queue.when("ns/a");  // no overflow past the cap
  CHECK(queue.when("ns/a") == 100ms);
  CHECK(queue.failures("ns/a") == 107);
  CHECK(queue.when("ns/b") == 5ms);  // per key
  queue.forget("ns/a");
  CHECK(queue.failures("ns/a") == 0);
  CHECK(queue.when("ns/a") == 5ms);

  WorkQueue limited(50ms, 1000s);
  const auto start = std::chrono::steady_clock::now();
  limited.add_rate_limited("ns/x");  // 50 ms
  REQUIRE(limited.get(2s) == "ns/x");
  CHECK(std::chrono::steady_clock::now() - start >= 50ms);
  limited.done("ns/x");
  limited.add_rate_limited("ns/x");  // 100 ms
  CHECK_FALSE(limited.get(60ms));
  CHECK(limited.get(2s) == "ns/x");
}

TEST_CASE("shut_down wakes a waiting get, stops intake and lets processing keys finish") {
  WorkQueue queue(5ms, 1000s);
  queue.add("ns/a");
  queue.add("ns/b");
  const auto first = queue.get(0ms);
  REQUIRE(first == "ns/a");

  std::atomic<bool> returned{false};
  WorkQueue empty(5ms, 1000s);
  std::thread blocked([&] {
    CHECK_FALSE(empty.get(30s));
    returned = true;
  });
  std::this_thread::sleep_for(50ms);
  const auto stopped_at = std::chrono::steady_clock::now();
  empty.shut_down();
  blocked.join();
  CHECK(returned);
  CHECK(std::chrono::steady_clock::now() - stopped_at < 1s);

  queue.shut_down();
  CHECK(queue.shutting_down());
  queue.add("ns/c");
  queue.add_after("ns/d", 1ms);
  CHECK_FALSE(queue.get(10ms));  // waiting keys are dropped, new ones refused
  CHECK(queue.processing() == 1);
  CHECK_FALSE(queue.wait_idle(20ms));
  std::thread finisher([&] {
    std::this_thread::sleep_for(50ms);
    queue.done("ns/a");
  });
  CHECK(queue.wait_idle(5s));
  finisher.join();
  CHECK(queue.depth() == 0);
}

TEST_CASE("owned objects map to the TrainJob of their controller ownerReference") {
  using trainer::controller::detail::controller_owner_key;
  using trainer::controller::detail::object_key;
  using trainer::controller::detail::split_key;
  const auto object = [](const char* owners) {
    return boost::json::parse(
               std::string(R"({"metadata":{"name":"x","namespace":"team","ownerReferences":)") +
               owners + "}}")
        .as_object();
  };
  CHECK(controller_owner_key(object(
            R"([{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"job",)"
            R"("uid":"u","controller":true}])")) == "team/job");
  // The version is ignored; the group and kind must match.
  CHECK(
      controller_owner_key(object(
          R"([{"apiVersion":"trainer.kubeflow.org/v2","kind":"TrainJob","name":"j","controller":true}])")) ==
      "team/j");
  CHECK_FALSE(controller_owner_key(object(
      R"([{"apiVersion":"other.io/v1alpha1","kind":"TrainJob","name":"j","controller":true}])")));
  CHECK_FALSE(controller_owner_key(object(
      R"([{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime","name":"j","controller":true}])")));
  // Only the controller owner counts.
  CHECK_FALSE(controller_owner_key(
      object(R"([{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"j"}])")));
  CHECK_FALSE(controller_owner_key(
      object(R"([{"apiVersion":"apps/v1","kind":"Deployment","name":"d","controller":true},)"
             R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"j"}])")));
  CHECK_FALSE(controller_owner_key(object("[]")));
  CHECK(object_key(object("[]")) == "team/x");
  CHECK(split_key("team/x") == std::pair<std::string_view, std::string_view>{"team", "x"});
}
