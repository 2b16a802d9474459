// SPDX-License-Identifier: Apache-2.0
// Controller::run against the real kube-apiserver (tests/kube/support): many TrainJobs at once,
// watches that survive an API server restart, rate-limited retries, resync, leader election
// between two controllers, graceful stop and `once` mode.
#include "controller/leader_election.hpp"
#include "support/api_server.hpp"
#include "support/tcp_proxy.hpp"
#include "support/test_client.hpp"
#include "trainer/controller.hpp"
#include "trainer/kube.hpp"
#include "wait_until.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using trainer::ErrorCode;
using trainer::controller::Controller;
using trainer::controller::ControllerOptions;
using trainer::controller::ReconcileResult;
using trainer::kube::Client;
using trainer::kube::ClientOptions;
using trainer::kube::Resource;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::need;
using trainer::testing::TcpProxy;
using trainer::testing::test_client_options;
using trainer::testing::unique_namespace;
using trainer::testing::url_port;

namespace {

boost::json::object json(const std::string& text) {
  return boost::json::parse(text).as_object();
}

boost::json::object runtime(const std::string& name) {
  return json(
      R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime",)"
      R"("metadata":{"name":")" +
      name +
      R"("},"spec":{"mlPolicy":{"numNodes":1,"torch":{}},"template":{"spec":{"replicatedJobs":[)"
      R"({"name":"node","replicas":1,"template":{"metadata":{"labels":)"
      R"({"trainer.kubeflow.org/trainjob-ancestor-step":"trainer"}},"spec":{"template":{"spec":)"
      R"({"containers":[{"name":"node","image":"test:runtime"}]}}}}}]}}}})");
}

boost::json::object train_job(const std::string& name, const std::string& runtime_name = "rt") {
  return json(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",)"
              R"("metadata":{"name":")" +
              name + R"("},"spec":{"runtimeRef":{"name":")" + runtime_name +
              R"(","apiGroup":"trainer.kubeflow.org","kind":"TrainingRuntime"}}})");
}

// The cluster objects a test works with, in one namespace of its own.
struct Fixture {
  Client client;
  std::string ns;
  Resource train_jobs;
  Resource runtimes;
  Resource job_sets;

  Fixture(ApiServer& server, const std::string& prefix, const std::string& url = "")
      : client(client_for(server, test_client_options(), url)),
        ns(unique_namespace(server, prefix)),
        train_jobs(need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob")),
        runtimes(need(client, "trainer.kubeflow.org/v1alpha1", "TrainingRuntime")),
        job_sets(need(client, "jobset.x-k8s.io/v1alpha2", "JobSet")) {}

  void create_runtime(const std::string& name = "rt") {
    REQUIRE(client.create(runtimes, ns, runtime(name)));
  }
  void create_job(const std::string& name, const std::string& runtime_name = "rt") {
    auto created = client.create(train_jobs, ns, train_job(name, runtime_name));
    if (!created) FAIL(trainer::kube::kubectl_text(created.error()));
  }
  std::set<std::string> job_set_names() {
    auto list = client.list(job_sets, ns);
    REQUIRE(list);
    std::set<std::string> names;
    for (const auto& item : list->at("items").as_array()) {
      names.insert(std::string(item.at("metadata").at("name").as_string()));
    }
    return names;
  }
  bool has_job_set(const std::string& name) { return job_set_names().count(name) != 0; }
};

// Every 50 ms: a poll often lists JobSets on the API server.
bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  return trainer::testing::wait_until(done, timeout, 50ms);
}

// Reconciles seen through on_reconcile, by key.
class Seen {
 public:
  std::function<void(const ReconcileResult&, const trainer::Error*)> callback() {
    return [this](const ReconcileResult& result, const trainer::Error* error) {
      std::lock_guard<std::mutex> lock(mutex_);
      ++count_[result.key];
      if (error != nullptr) {
        ++errors_;
        last_error_ = error->message;
        if (error->code == ErrorCode::kCancelled) ++cancelled_;
      }
    };
  }
  int count(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = count_.find(key);
    return it == count_.end() ? 0 : it->second;
  }
  int total() {
    std::lock_guard<std::mutex> lock(mutex_);
    int sum = 0;
    for (const auto& [key, n] : count_) sum += n;
    return sum;
  }
  int errors() {
    std::lock_guard<std::mutex> lock(mutex_);
    return errors_;
  }
  int cancelled() {
    std::lock_guard<std::mutex> lock(mutex_);
    return cancelled_;
  }
  std::string last_error() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_error_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, int> count_;
  int errors_ = 0;
  int cancelled_ = 0;
  std::string last_error_;
};

// Controller::run on a thread of its own; destroyed, it stops and joins (run's waits are
// bounded by the shutdown timeout).
class Running {
 public:
  Running(Client& client, ControllerOptions options)
      : controller_(client, std::move(options)), thread_([this] {
          auto result = controller_.run();
          std::lock_guard<std::mutex> lock(mutex_);
          result_ = std::move(result);
          finished_at_ = std::chrono::steady_clock::now();
        }) {}
  ~Running() { stop(); }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;

  Controller& controller() { return controller_; }
  /// stop() and join; run()'s result.
  trainer::Result<void> stop() {
    controller_.stop();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    return result_ ? *result_ : trainer::Result<void>{};
  }
  bool finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    return result_.has_value();
  }
  std::optional<trainer::Result<void>> result() {
    std::lock_guard<std::mutex> lock(mutex_);
    return result_;
  }
  std::chrono::steady_clock::time_point finished_at() {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_at_;
  }

 private:
  Controller controller_;
  std::mutex mutex_;
  std::optional<trainer::Result<void>> result_;
  std::chrono::steady_clock::time_point finished_at_{};
  std::thread thread_;
};

ControllerOptions options_for(const std::string& ns, Seen& seen) {
  ControllerOptions options;
  options.namespace_ = ns;
  options.reconciler.record_events = false;
  options.on_reconcile = seen.callback();
  options.shutdown_timeout = 20s;
  return options;
}

}  // namespace

TEST_CASE("200 TrainJobs created at once are all reconciled: every JobSet exists") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-many");
  f.create_runtime();
  Seen seen;
  Running running(f.client, options_for(f.ns, seen));

  // Four clients create them at once; Catch's macros stay on this thread (they are not
  // thread-safe), failures are counted.
  std::vector<Client> clients;
  for (int t = 0; t < 4; ++t) clients.push_back(client_for(server));
  std::atomic<int> failed{0};
  std::vector<std::thread> creators;
  for (int t = 0; t < 4; ++t) {
    creators.emplace_back([&, t] {
      for (int i = t; i < 200; i += 4) {
        auto& client = clients[static_cast<std::size_t>(t)];
        if (!client.create(f.train_jobs, f.ns, train_job("job-" + std::to_string(i)))) ++failed;
      }
    });
  }
  for (auto& creator : creators) creator.join();
  REQUIRE(failed.load() == 0);

  CHECK(wait_until([&] { return f.job_set_names().size() == 200; }, 180s));
  const auto names = f.job_set_names();
  CHECK(names.size() == 200);
  for (int i = 0; i < 200; ++i) CHECK(names.count("job-" + std::to_string(i)) == 1);
  const auto metrics = running.controller().metrics();
  CHECK(metrics.reconciles >= 200);
  CHECK(metrics.leader);
  CHECK(seen.errors() == 0);
  INFO(seen.last_error());
  const std::string text = running.controller().metrics_text();
  CHECK(text.find("# TYPE trainer_reconcile_total counter\ntrainer_reconcile_total ") !=
        std::string::npos);
  CHECK(text.find("trainer_reconcile_duration_seconds_count ") != std::string::npos);
  CHECK(text.find("trainer_leader 1\n") != std::string::npos);
  CHECK(text.find("trainer_workqueue_depth ") != std::string::npos);
  REQUIRE(running.stop());
  CHECK_FALSE(running.controller().metrics().leader);
}

TEST_CASE(
    "the watches resume after the API server restarts: a TrainJob created meanwhile is "
    "reconciled") {
  auto server = ApiServer::start_private("--watch-cache=false");
  TcpProxy proxy(url_port(server->url()));
  Fixture f(*server, "loop-restart", "https://127.0.0.1:" + std::to_string(proxy.port()));
  f.create_runtime();
  f.create_job("before");
  Seen seen;
  Running running(f.client, options_for(f.ns, seen));
  REQUIRE(wait_until([&] { return f.has_job_set("before"); }, 60s));

  proxy.set_paused(true);  // every stream drops; reconnecting fails until resumed
  server->stop();
  server->restart();
  proxy.set_target(url_port(server->url()));
  {
    Client direct = client_for(*server);
    auto created = direct.create(f.train_jobs, f.ns, train_job("after"));
    REQUIRE(created);
  }
  CHECK_FALSE(running.finished());
  proxy.set_paused(false);

  CHECK(wait_until([&] { return f.has_job_set("after"); }, 90s));
  CHECK(wait_until([&] { return seen.count(f.ns + "/after") >= 1; }, 30s));
  CHECK_FALSE(running.finished());
  CHECK(running.stop());
}

TEST_CASE("a failing reconcile is retried with backoff until it succeeds, and resync requeues") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-retry");
  f.create_job("early", "later-runtime");  // its runtime does not exist yet
  Seen seen;
  ControllerOptions options = options_for(f.ns, seen);
  options.backoff_base = 20ms;
  options.backoff_max = 300ms;
  options.resync_period = 1s;
  Running running(f.client, options);

  REQUIRE(wait_until([&] { return seen.count(f.ns + "/early") >= 3; }, 30s));
  CHECK(seen.errors() >= 3);
  CHECK(running.controller().metrics().errors >= 3);
  f.create_runtime("later-runtime");
  CHECK(wait_until([&] { return f.has_job_set("early"); }, 30s));

  // Without any event, the resync queues the TrainJob again.
  const int before = seen.count(f.ns + "/early");
  CHECK(wait_until([&] { return seen.count(f.ns + "/early") >= before + 2; }, 10s));
  CHECK(running.stop());
}

TEST_CASE("stop() lets in-flight reconciles finish and returns within the shutdown timeout") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-stop");
  f.create_runtime();
  for (int i = 0; i < 30; ++i) f.create_job("job-" + std::to_string(i));

  std::atomic<int> in_callback{0};
  std::atomic<int> finished_callbacks{0};
  std::atomic<int> errors{0};
  std::atomic<bool> stop_seen_in_flight{false};
  ControllerOptions options;
  options.namespace_ = f.ns;
  options.workers = 3;
  options.reconciler.record_events = false;
  options.shutdown_timeout = 10s;
  // A slow observer keeps each worker busy after its reconcile: stop() arrives mid-flight.
  options.on_reconcile = [&](const ReconcileResult&, const trainer::Error* error) {
    ++in_callback;
    if (error != nullptr) ++errors;
    std::this_thread::sleep_for(300ms);
    ++finished_callbacks;
    --in_callback;
  };
  Running running(f.client, options);
  REQUIRE(wait_until([&] { return in_callback.load() > 0; }, 60s));
  const auto stop_at = std::chrono::steady_clock::now();
  running.controller().stop();
  stop_seen_in_flight = in_callback.load() > 0;
  const auto result = running.stop();
  CHECK(result);
  CHECK(stop_seen_in_flight);
  CHECK(in_callback.load() == 0);  // nothing still running after run() returned
  CHECK(running.finished_at() - stop_at < 10s);
  CHECK(errors.load() == 0);  // graceful: nothing was cancelled
  // Not every TrainJob was reached: the queue stopped taking work.
  CHECK(finished_callbacks.load() < 30);
}

TEST_CASE(
    "once mode reconciles every TrainJob present at start once and reports the first "
    "error") {
  auto& server = ApiServer::shared();
  SECTION("every reconcile succeeds") {
    Fixture f(server, "loop-once");
    f.create_runtime();
    for (const char* name : {"a", "b", "c"}) f.create_job(name);
    Seen seen;
    ControllerOptions options = options_for(f.ns, seen);
    options.once = true;
    Controller controller(f.client, options);
    const auto result = controller.run();
    INFO(seen.last_error());
    CHECK(result);
    CHECK(seen.total() == 3);
    for (const char* name : {"a", "b", "c"}) CHECK(seen.count(f.ns + "/" + name) == 1);
    CHECK(f.job_set_names() == std::set<std::string>{"a", "b", "c"});
  }
  SECTION("one fails") {
    Fixture f(server, "loop-once-fail");
    f.create_runtime();
    f.create_job("good");
    f.create_job("bad", "missing-runtime");
    Seen seen;
    ControllerOptions options = options_for(f.ns, seen);
    options.once = true;
    Controller controller(f.client, options);
    const auto result = controller.run();
    REQUIRE_FALSE(result);
    CHECK(seen.total() == 2);  // no retries
    CHECK(seen.errors() == 1);
    CHECK(f.has_job_set("good"));
    CHECK(controller.metrics().errors == 1);
  }
  SECTION("no TrainJob: done at once") {
    Fixture f(server, "loop-once-empty");
    Seen seen;
    ControllerOptions options = options_for(f.ns, seen);
    options.once = true;
    Controller controller(f.client, options);
    const auto started = std::chrono::steady_clock::now();
    CHECK(controller.run());
    CHECK(std::chrono::steady_clock::now() - started < 10s);
    CHECK(seen.total() == 0);
  }
}

TEST_CASE(
    "two controllers with leader election: only the leader reconciles, and the other takes "
    "over when it stops") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-leader");
  f.create_runtime();
  Seen seen_a;
  Seen seen_b;
  ControllerOptions a = options_for(f.ns, seen_a);
  ControllerOptions b = options_for(f.ns, seen_b);
  for (auto* options : {&a, &b}) {
    options->leader_election.enabled = true;
    options->leader_election.lease_namespace = f.ns;
    options->leader_election.lease_name = "trainer-test";
    options->leader_election.lease_duration = 3s;
    options->leader_election.renew_deadline = 2s;
    options->leader_election.retry_period = 500ms;
  }
  a.leader_election.identity = "controller-a";
  b.leader_election.identity = "controller-b";
  const Resource leases = need(f.client, "coordination.k8s.io/v1", "Lease");
  const auto holder = [&]() -> std::string {
    auto lease = f.client.get(leases, f.ns, "trainer-test");
    if (!lease) return "<none>";
    const auto* h = lease->at("spec").as_object().if_contains("holderIdentity");
    return h != nullptr && h->is_string() ? std::string(h->as_string()) : "";
  };

  auto first = std::make_unique<Running>(f.client, a);
  REQUIRE(wait_until([&] { return first->controller().metrics().leader; }, 20s));
  Client client_b = client_for(server);
  Running second(client_b, b);
  std::this_thread::sleep_for(1500ms);
  CHECK(holder() == "controller-a");
  CHECK_FALSE(second.controller().metrics().leader);

  for (const char* name : {"x", "y", "z"}) f.create_job(name);
  REQUIRE(wait_until([&] { return f.job_set_names().size() == 3; }, 60s));
  std::this_thread::sleep_for(1s);
  CHECK(seen_a.total() >= 3);
  CHECK(seen_b.total() == 0);  // the follower never wrote

  // The leader stops and releases the lease: the follower leads within the lease duration.
  const auto stopped_at = std::chrono::steady_clock::now();
  CHECK(first->stop());
  first.reset();
  REQUIRE(wait_until([&] { return second.controller().metrics().leader; }, 10s));
  CHECK(std::chrono::steady_clock::now() - stopped_at < 3s);
  CHECK(holder() == "controller-b");
  auto lease = f.client.get(leases, f.ns, "trainer-test");
  REQUIRE(lease);
  CHECK(lease->at("spec").at("leaseTransitions").to_number<std::int64_t>() >= 1);
  CHECK(lease->at("spec").at("leaseDurationSeconds").to_number<std::int64_t>() == 3);
  f.create_job("w");
  CHECK(wait_until([&] { return f.has_job_set("w"); }, 60s));
  CHECK(wait_until([&] { return seen_b.count(f.ns + "/w") >= 1; }, 30s));
  CHECK(second.stop());
  CHECK(holder().empty());  // released on stop
}

TEST_CASE("a leader whose lease is taken stops with 'leader election lost'") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-lost");
  Seen seen;
  ControllerOptions options = options_for(f.ns, seen);
  options.leader_election.enabled = true;
  options.leader_election.lease_namespace = f.ns;
  options.leader_election.lease_name = "stolen";
  options.leader_election.identity = "victim";
  options.leader_election.lease_duration = 3s;
  options.leader_election.renew_deadline = 2s;
  options.leader_election.retry_period = 500ms;
  Running running(f.client, options);
  REQUIRE(wait_until([&] { return running.controller().metrics().leader; }, 20s));

  // Someone else writes the lease (as a candidate with a clock that says it expired would).
  const Resource leases = need(f.client, "coordination.k8s.io/v1", "Lease");
  REQUIRE(f.client.patch(leases, f.ns, "stolen", trainer::kube::PatchType::kMerge,
                         R"({"spec":{"holderIdentity":"thief","leaseDurationSeconds":60}})"));
  const auto stolen_at = std::chrono::steady_clock::now();
  REQUIRE(wait_until([&] { return running.finished(); }, 15s));
  CHECK(running.finished_at() - stolen_at < 6s);
  const auto result = running.result();
  REQUIRE(result);
  REQUIRE_FALSE(*result);
  CHECK(result->error().message == "leader election lost");
  CHECK_FALSE(running.controller().metrics().leader);
  auto lease = f.client.get(leases, f.ns, "stolen");
  REQUIRE(lease);
  CHECK(lease->at("spec").at("holderIdentity").as_string() == "thief");  // not released
}

TEST_CASE("leader election settings are checked as client-go checks them") {
  trainer::controller::LeaderElection config;
  CHECK(trainer::controller::detail::validate(config));
  config.renew_deadline = config.lease_duration;
  CHECK_FALSE(trainer::controller::detail::validate(config));
  config.renew_deadline = 2s;
  config.retry_period = 2s;  // 1.2 * 2 s > 2 s
  CHECK_FALSE(trainer::controller::detail::validate(config));
  CHECK(trainer::controller::detail::default_identity().find('_') != std::string::npos);
}

TEST_CASE(
    "a leader that stops renewing without releasing is replaced after the lease duration, "
    "judged by the follower's clock") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-expire");
  trainer::controller::LeaderElection config;
  config.enabled = true;
  config.lease_namespace = f.ns;
  config.lease_name = "expiring";
  config.lease_duration = 3s;
  config.renew_deadline = 2s;
  config.retry_period = 500ms;
  config.identity = "crashed";
  // A leader that took the lease once and then vanished (no renewal, no release).
  trainer::controller::detail::LeaderElector crashed(f.client, config);
  REQUIRE(crashed.try_acquire_or_renew(trainer::kube::CancelToken(), 5s));
  REQUIRE(crashed.is_leader());
  const auto acquired_at = std::chrono::steady_clock::now();

  Seen seen;
  ControllerOptions options = options_for(f.ns, seen);
  options.leader_election = config;
  options.leader_election.identity = "successor";
  Running running(f.client, options);
  REQUIRE(wait_until([&] { return running.controller().metrics().leader; }, 15s));
  const auto waited = std::chrono::steady_clock::now() - acquired_at;
  CHECK(waited >= 3s);      // a full lease duration after it first saw the record
  CHECK(waited < 3s + 2s);  // and within about two retry periods more
  // The old leader's next renewal finds the lease taken.
  CHECK_FALSE(crashed.try_acquire_or_renew(trainer::kube::CancelToken(), 5s));
  CHECK_FALSE(crashed.is_leader());
  CHECK(running.stop());
}

TEST_CASE("a stop before run makes run return at once, with success") {
  trainer::kube::Config config;
  config.server = "https://127.0.0.1:1";  // never contacted
  config.token = "t";
  auto client = Client::create(config);
  REQUIRE(client);
  for (bool once : {false, true}) {
    ControllerOptions options;
    options.once = once;
    Controller controller(*client, options);
    controller.stop();
    const auto started = std::chrono::steady_clock::now();
    CHECK(controller.run());
    CHECK(std::chrono::steady_clock::now() - started < 1s);
    CHECK(controller.metrics().reconciles == 0);
  }
}

TEST_CASE("an event of an owned object queues its TrainJob: a deleted JobSet comes back") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-owned");
  f.create_runtime();
  f.create_job("owner");
  Seen seen;
  Running running(f.client, options_for(f.ns, seen));
  REQUIRE(wait_until([&] { return f.has_job_set("owner"); }, 60s));
  REQUIRE(wait_until([&] { return seen.count(f.ns + "/owner") >= 1; }, 30s));
  auto job_set = f.client.get(f.job_sets, f.ns, "owner");
  REQUIRE(job_set);
  const std::string old_uid(job_set->at("metadata").at("uid").as_string());

  // Nothing runs the garbage collector here: the JobSet goes at once; its DELETED event (and
  // nothing else: no resync, no TrainJob change) queues the TrainJob, which applies it again.
  REQUIRE(f.client.remove(f.job_sets, f.ns, "owner"));
  CHECK(wait_until(
      [&] {
        auto again = f.client.get(f.job_sets, f.ns, "owner");
        return again && std::string(again->at("metadata").at("uid").as_string()) != old_uid;
      },
      30s));
  CHECK(running.stop());
}

TEST_CASE("cancelling the caller's token (ReconcilerOptions::cancel) stops run() as stop() does") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-token");
  f.create_runtime();
  f.create_job("t");
  Seen seen;
  ControllerOptions options = options_for(f.ns, seen);
  trainer::kube::CancelToken token;
  options.reconciler.cancel = token;
  Running running(f.client, options);
  REQUIRE(wait_until([&] { return seen.count(f.ns + "/t") >= 1; }, 60s));
  const auto cancelled_at = std::chrono::steady_clock::now();
  token.cancel();
  REQUIRE(wait_until([&] { return running.finished(); }, 10s));
  CHECK(running.finished_at() - cancelled_at < 5s);
  const auto result = running.result();
  REQUIRE(result);
  CHECK(*result);
}

TEST_CASE("an owned object whose controller ownerReference changes queues the old owner too") {
  auto& server = ApiServer::shared();
  Fixture f(server, "loop-reowned");
  f.create_runtime();
  for (const char* name : {"first", "second"}) f.create_job(name);
  Seen seen;
  Running running(f.client, options_for(f.ns, seen));
  REQUIRE(wait_until([&] { return f.job_set_names().size() == 2; }, 60s));
  auto first = f.client.get(f.train_jobs, f.ns, "first");
  REQUIRE(first);
  const std::string first_uid(first->at("metadata").at("uid").as_string());
  const Resource config_maps = need(f.client, "v1", "ConfigMap");
  REQUIRE(f.client.create(
      config_maps, f.ns,
      json(
          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"moving","ownerReferences":[)"
          R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","name":"first",)"
          R"("uid":")" +
          first_uid + R"(","controller":true}]}})")));
  REQUIRE(wait_until([&] { return seen.count(f.ns + "/first") >= 2; }, 30s));

  // The ConfigMap loses its controller: its old owner is queued once more (after the
  // reconciles of the earlier events have settled).
  std::this_thread::sleep_for(1s);
  const int before = seen.count(f.ns + "/first");
  REQUIRE(f.client.patch(config_maps, f.ns, "moving", trainer::kube::PatchType::kMerge,
                         R"({"metadata":{"ownerReferences":null}})"));
  CHECK(wait_until([&] { return seen.count(f.ns + "/first") > before; }, 30s));
  CHECK(running.stop());
}
