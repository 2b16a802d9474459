// SPDX-License-Identifier: Apache-2.0
// kube::Client against a real kube-apiserver (support/api_server.hpp): discovery, writes, Status
// errors, pagination, watch resumption and relisting, and against the loopback fault server for
// logs and scripted watch streams.
#include "kube/client/list_pager.hpp"
#include "support/api_server.hpp"
#include "support/fault_server.hpp"
#include "support/tcp_proxy.hpp"
#include "support/test_client.hpp"
#include "trainer/kube.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace std::chrono_literals;
using trainer::ErrorCode;
using trainer::kube::ApplyOptions;
using trainer::kube::Client;
using trainer::kube::ClientOptions;
using trainer::kube::Config;
using trainer::kube::DeleteOptions;
using trainer::kube::kubectl_text;
using trainer::kube::ListOptions;
using trainer::kube::PatchType;
using trainer::kube::Resource;
using trainer::kube::WatchEvent;
using trainer::kube::WatchEventType;
using trainer::kube::WatchOptions;
using trainer::kube::WriteOptions;
using trainer::testing::admin_config;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::FaultResponse;
using trainer::testing::FaultServer;
using trainer::testing::need;
using trainer::testing::TcpProxy;
using trainer::testing::test_client_options;
using trainer::testing::unique_namespace;
using trainer::testing::url_port;

namespace {

Client client_for_fault(const FaultServer& server) {
  Config config;
  config.server = server.url();
  config.token = "t";
  auto client = Client::create(config, test_client_options());
  REQUIRE(client);
  return std::move(*client);
}

boost::json::object json(const std::string& text) {
  return boost::json::parse(text).as_object();
}

boost::json::object config_map(const std::string& name, const std::string& value) {
  return json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
              R"("},"data":{"k":")" + value + R"("}})");
}

boost::json::object train_job(const std::string& name, const std::string& spec_extra = "") {
  return json(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",)"
              R"("metadata":{"name":")" +
              name + R"("},"spec":{"runtimeRef":{"name":"torch-distributed"})" + spec_extra + "}}");
}

std::string rv_of(const boost::json::object& object) {
  return std::string(object.at("metadata").at("resourceVersion").as_string());
}

std::string name_of(const boost::json::object& object) {
  return std::string(object.at("metadata").at("name").as_string());
}

// A watch running on its own thread, recording what it delivers; destroyed, it cancels the
// watch and joins (bounded: cancellation wakes the transfer).
class Recorder {
 public:
  struct Seen {
    WatchEventType type;
    std::string name;
    std::string rv;
  };

  Recorder(Client& client, Resource resource, std::string ns, WatchOptions options)
      : options_(std::move(options)) {
    thread_ = std::thread([this, &client, resource = std::move(resource), ns = std::move(ns)] {
      auto result = client.watch(resource, ns, options_, [this](const WatchEvent& event) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (event.type != WatchEventType::kBookmark) {
          seen_.push_back({event.type, name_of(event.object), rv_of(event.object)});
        }
        changed_.notify_all();
        return true;
      });
      const std::lock_guard<std::mutex> lock(mutex_);
      result_ = std::move(result);
      done_ = true;
      changed_.notify_all();
    });
  }
  ~Recorder() {
    options_.cancel.cancel();
    thread_.join();
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Waits until at least `count` events arrived (or the watch ended); returns them.
  std::vector<Seen> wait_for(std::size_t count, std::chrono::seconds timeout = 60s) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return seen_.size() >= count || done_; });
    return seen_;
  }
  std::vector<Seen> seen() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }
  bool done() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return done_;
  }

 private:
  WatchOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Seen> seen_;
  bool done_ = false;
  trainer::Result<void> result_;
  std::thread thread_;
};

std::vector<std::string> describe(const std::vector<Recorder::Seen>& seen, std::size_t from = 0) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < seen.size(); ++i) {
    out.push_back(std::string(trainer::kube::to_string(seen[i].type)) + " " + seen[i].name);
  }
  return out;
}

void check_no_duplicates(const std::vector<Recorder::Seen>& seen) {
  std::set<std::tuple<WatchEventType, std::string, std::string>> unique;
  for (const auto& s : seen) {
    CAPTURE(trainer::kube::to_string(s.type), s.name, s.rv);
    CHECK(unique.emplace(s.type, s.name, s.rv).second);
  }
}

}  // namespace

TEST_CASE("discovery finds TrainJob, JobSet and core kinds by every kubectl name") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const Resource trainjobs = need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  CHECK(trainjobs.resource == "trainjobs");
  CHECK(trainjobs.namespaced);
  CHECK(trainjobs.kind_group() == "trainjob.trainer.kubeflow.org");
  CHECK(need(client, "jobset.x-k8s.io/v1alpha2", "JobSet").resource == "jobsets");
  for (const char* name : {"trainjobs", "trainjob", "TrainJob", "trainjobs.trainer.kubeflow.org"}) {
    CAPTURE(name);
    auto found = client.resource_named(name);
    REQUIRE(found);
    CHECK(found->kind == "TrainJob");
  }
  auto namespaces = client.resource_named("ns");
  REQUIRE(namespaces);
  CHECK(namespaces->api_version() == "v1");
  CHECK_FALSE(namespaces->namespaced);
  auto missing = client.resource_for("trainer.kubeflow.org/v1alpha1", "NoSuchKind");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kNotFound);
  CHECK(missing.error().message ==
        "the server doesn't have a resource type \"NoSuchKind\" in "
        "\"trainer.kubeflow.org/v1alpha1\"");
}

TEST_CASE("a kind installed after the first lookup is found by refreshing discovery") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  (void)need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");  // discovery is now cached
  const std::string group = unique_namespace(server, "refresh") + ".example.com";
  const Resource crds = need(client, "apiextensions.k8s.io/v1", "CustomResourceDefinition");
  REQUIRE(client.create(
      crds, "",
      json(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
           R"("metadata":{"name":"widgets.)" +
           group + R"("},"spec":{"group":")" + group +
           R"(","scope":"Namespaced","names":{"plural":"widgets","singular":"widget",)"
           R"("kind":"Widget","shortNames":["wdg"]},"versions":[{"name":"v1","served":true,)"
           R"("storage":true,"schema":{"openAPIV3Schema":{"type":"object",)"
           R"("x-kubernetes-preserve-unknown-fields":true}}}]}})")));
  // The server publishes a new CRD within seconds; every miss until then refreshes the cache.
  trainer::Result<Resource> found = tl::unexpected(trainer::Error());
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!(found = client.resource_for(group + "/v1", "Widget")) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(200ms);
  }
  REQUIRE(found);
  CHECK(found->resource == "widgets");
  auto named = client.resource_named("wdg");
  REQUIRE(named);
  CHECK(named->group == group);
  CHECK(client.remove(crds, "", "widgets." + group));
}

TEST_CASE("a refused connection is kubectl's text") {
  Config config;
  config.server = "https://127.0.0.1:1";
  config.token = "t";
  auto client = Client::create(config, test_client_options());
  REQUIRE(client);
  auto answer = client->resource_named("pods");
  REQUIRE_FALSE(answer);
  CHECK(answer.error().code == ErrorCode::kIo);
  CHECK(kubectl_text(answer.error()) ==
        "The connection to the server 127.0.0.1:1 was refused - did you specify the right host "
        "or port?");
}

TEST_CASE("applying the same objects twice changes nothing, and conflicts need force") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "apply");
  const Resource trainjobs = need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  const Resource config_maps = need(client, "v1", "ConfigMap");

  auto job1 = client.apply(trainjobs, ns, train_job("t1"));
  auto map1 = client.apply(config_maps, ns, config_map("c1", "a"));
  REQUIRE(job1);
  REQUIRE(map1);
  auto job2 = client.apply(trainjobs, ns, train_job("t1"));
  auto map2 = client.apply(config_maps, ns, config_map("c1", "a"));
  REQUIRE(job2);
  REQUIRE(map2);
  CHECK(rv_of(*job1) == rv_of(*job2));
  CHECK(rv_of(*map1) == rv_of(*map2));

  ApplyOptions dry;
  dry.dry_run = true;
  auto dry_run = client.apply(config_maps, ns, config_map("c1", "dry"), dry);
  REQUIRE(dry_run);
  CHECK(dry_run->at("data").at("k") == "dry");
  CHECK(client.get(config_maps, ns, "c1")->at("data").at("k") == "a");

  ApplyOptions other;
  other.field_manager = "someone-else";
  auto conflict = client.apply(config_maps, ns, config_map("c1", "b"), other);
  REQUIRE_FALSE(conflict);
  CHECK(conflict.error().code == ErrorCode::kConflict);
  CHECK(conflict.error().http_status == 409);
  CHECK(kubectl_text(conflict.error())
            .rfind("Error from server (Conflict): Apply failed with 1 "
                   "conflict: conflict with \"libtrainer\"",
                   0) == 0);
  other.force = true;
  auto forced = client.apply(config_maps, ns, config_map("c1", "b"), other);
  REQUIRE(forced);
  CHECK(forced->at("data").at("k") == "b");

  ApplyOptions no_manager;
  no_manager.field_manager.clear();
  CHECK(client.apply(config_maps, ns, config_map("c1", "b"), no_manager).error().code ==
        ErrorCode::kInvalidArgument);
}

TEST_CASE("create, get, list, patch, status and delete with preconditions and dry run") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "crud");
  const Resource config_maps = need(client, "v1", "ConfigMap");
  const Resource trainjobs = need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");

  auto created = client.create(config_maps, ns, config_map("c1", "a"));
  REQUIRE(created);
  auto again = client.create(config_maps, ns, config_map("c1", "a"));
  REQUIRE_FALSE(again);
  CHECK(again.error().code == ErrorCode::kConflict);
  CHECK(kubectl_text(again.error()) ==
        "Error from server (AlreadyExists): configmaps \"c1\" already exists");

  auto got = client.get(config_maps, ns, "c1");
  REQUIRE(got);
  CHECK(got->at("data").at("k") == "a");

  auto merged = client.patch(config_maps, ns, "c1", PatchType::kMerge, R"({"data":{"m":"1"}})");
  REQUIRE(merged);
  CHECK(merged->at("data").at("m") == "1");
  auto patched = client.patch(config_maps, ns, "c1", PatchType::kJson,
                              R"([{"op":"replace","path":"/data/k","value":"j"}])");
  REQUIRE(patched);
  CHECK(patched->at("data").at("k") == "j");
  auto strategic =
      client.patch(config_maps, ns, "c1", PatchType::kStrategic, R"({"data":{"s":"1"}})");
  REQUIRE(strategic);
  CHECK(strategic->at("data").at("s") == "1");

  auto list = client.list(config_maps, ns);
  REQUIRE(list);
  CHECK(list->at("kind") == "ConfigMapList");
  CHECK(list->at("apiVersion") == "v1");
  CHECK(list->at("items").as_array().size() == 1);
  CHECK(list->at("items").as_array()[0].at("kind") == "ConfigMap");

  // The status subresource: the main resource ignores status, /status takes it.
  REQUIRE(client.create(trainjobs, ns, train_job("t1")));
  const std::string status =
      R"({"status":{"conditions":[{"type":"Complete","status":"True","reason":"Done",)"
      R"("message":"done","lastTransitionTime":"2026-01-02T03:04:05Z"}]}})";
  auto ignored = client.patch(trainjobs, ns, "t1", PatchType::kMerge, status);
  REQUIRE(ignored);
  CHECK_FALSE(ignored->contains("status"));
  WriteOptions on_status;
  on_status.subresource = "status";
  auto with_status = client.patch(trainjobs, ns, "t1", PatchType::kMerge, status, on_status);
  REQUIRE(with_status);
  CHECK(with_status->at("status").at("conditions").as_array()[0].at("reason") == "Done");

  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  auto refused = client.remove(config_maps, ns, "c1", wrong_uid);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::kConflict);
  CHECK(refused.error().reason == "Conflict");

  DeleteOptions dry;
  dry.dry_run = true;
  REQUIRE(client.remove(config_maps, ns, "c1", dry));
  REQUIRE(client.get(config_maps, ns, "c1"));

  DeleteOptions exact;
  exact.precondition_uid = std::string(got->at("metadata").at("uid").as_string());
  exact.propagation = trainer::kube::Propagation::kBackground;
  exact.grace_period_seconds = 0;
  REQUIRE(client.remove(config_maps, ns, "c1", exact));
  auto gone = client.get(config_maps, ns, "c1");
  REQUIRE_FALSE(gone);
  CHECK(gone.error().code == ErrorCode::kNotFound);
  CHECK(gone.error().http_status == 404);
  CHECK(kubectl_text(gone.error()) == "Error from server (NotFound): configmaps \"c1\" not found");

  for (const char* bad : {"../x", "..", "", "a%2Fb"}) {
    CAPTURE(bad);
    auto bad_name = client.get(config_maps, ns, bad);
    REQUIRE_FALSE(bad_name);
    CHECK(bad_name.error().code == ErrorCode::kInvalidArgument);
    CHECK(client.remove(config_maps, ns, bad).error().code == ErrorCode::kInvalidArgument);
  }
}

TEST_CASE("fieldValidation=Strict refuses an unknown field with the server's text") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "strict");
  const Resource trainjobs = need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  auto refused = client.create(trainjobs, ns, train_job("t1", R"(,"foo":1)"));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().http_status == 400);
  CHECK(refused.error().reason == "BadRequest");
  CAPTURE(kubectl_text(refused.error()));
  CHECK(kubectl_text(refused.error()).rfind("Error from server (BadRequest): ", 0) == 0);
  CHECK(kubectl_text(refused.error()).find("strict decoding error: unknown field \"spec.foo\"") !=
        std::string::npos);

  WriteOptions ignore;
  ignore.field_validation = trainer::kube::FieldValidation::kIgnore;
  CHECK(client.create(trainjobs, ns, train_job("t1", R"(,"foo":1)"), ignore));
}

TEST_CASE("a TrainJob the CRD's schema and CEL rules reject is 422 with its field paths") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "invalid");
  const Resource trainjobs = need(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  auto refused = client.create(
      trainjobs, ns, train_job("bad", R"(,"managedBy":"other","trainer":{"numNodes":-1})"));
  REQUIRE_FALSE(refused);
  const auto& error = refused.error();
  CHECK(error.code == ErrorCode::kInvalid);
  CHECK(error.http_status == 422);
  CHECK(error.reason == "Invalid");
  std::set<std::string> paths;
  for (const auto& field : error.fields) paths.insert(field.path);
  CHECK(paths == std::set<std::string>{"spec.managedBy", "spec.trainer.numNodes"});
  const std::string text = kubectl_text(error);
  CAPTURE(text);
  CHECK(text.rfind("The TrainJob \"bad\" is invalid: \n* ", 0) == 0);
  CHECK(text.find("\n* spec.trainer.numNodes: Invalid value: -1: spec.trainer.numNodes in body "
                  "should be greater than or equal to 0") != std::string::npos);
  CHECK(text.find("\n* spec.managedBy: Invalid value: \"string\": ManagedBy must be") !=
        std::string::npos);
}

TEST_CASE("list follows continue tokens over more objects than one page") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "pages");
  const Resource config_maps = need(client, "v1", "ConfigMap");
  for (int i = 0; i < 23; ++i) {
    REQUIRE(client.create(config_maps, ns, config_map("c" + std::to_string(i), "v")));
  }
  ListOptions options;
  options.limit = 5;
  auto list = client.list(config_maps, ns, options);
  REQUIRE(list);
  std::set<std::string> names;
  for (const auto& item : list->at("items").as_array()) names.insert(name_of(item.as_object()));
  CHECK(names.size() == 23);
  CHECK_FALSE(list->at("metadata").at("resourceVersion").as_string().empty());

  options.label_selector = "nothing=here";
  auto none = client.list(config_maps, ns, options);
  REQUIRE(none);
  CHECK(none->at("items").as_array().empty());
}

TEST_CASE("an expired continue token restarts the list without a limit") {
  auto server = ApiServer::start_private("--watch-cache=false");
  Client client = client_for(*server);
  const std::string ns = unique_namespace(*server, "expired");
  const std::string other_ns = unique_namespace(*server, "other");
  const Resource config_maps = need(client, "v1", "ConfigMap");
  for (int i = 0; i < 23; ++i) {
    REQUIRE(client.create(config_maps, ns, config_map("c" + std::to_string(i), "v")));
  }
  // The pager's own loop with the page requests made here, so that the server can be compacted
  // between page 1 and page 2.
  std::vector<std::pair<std::int64_t, bool>> requests;  // (limit, with continue)
  std::vector<trainer::Error> errors;
  auto list = trainer::kube::detail::collect_pages(
      config_maps, 5,
      [&](std::int64_t limit, const std::string& token) -> trainer::Result<boost::json::object> {
        requests.emplace_back(limit, !token.empty());
        trainer::kube::RawRequest raw;
        raw.path = "/api/v1/namespaces/" + ns + "/configmaps";
        if (limit > 0) raw.query = "limit=" + std::to_string(limit);
        if (!token.empty()) raw.query += "&continue=" + token;
        auto answer = client.raw(raw);
        if (!answer) {
          errors.push_back(answer.error());
          return tl::unexpected(answer.error());
        }
        if (requests.size() == 1) {
          // A write after the page's snapshot, then compaction past it: the token expires.
          REQUIRE(client.create(config_maps, other_ns, config_map("later", "v")));
          server->compact();
        }
        return boost::json::parse(answer->body).as_object();
      });
  REQUIRE(list);
  CHECK(list->at("items").as_array().size() == 23);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].http_status == 410);
  CHECK(errors[0].reason == "Expired");
  REQUIRE(requests.size() == 3);
  CHECK(requests[1] == std::make_pair(std::int64_t{5}, true));
  CHECK(requests[2] == std::make_pair(std::int64_t{0}, false));
}

TEST_CASE("a watch resumes after the server restarts: events made meanwhile arrive, none twice") {
  auto server = ApiServer::start_private("--watch-cache=false");
  TcpProxy proxy(url_port(server->url()));
  Client via_proxy = client_for(*server, test_client_options(),
                                "https://127.0.0.1:" + std::to_string(proxy.port()));
  const std::string ns = unique_namespace(*server, "resume");
  const Resource config_maps = need(via_proxy, "v1", "ConfigMap");
  REQUIRE(via_proxy.create(config_maps, ns, config_map("a", "1")));

  WatchOptions options;
  Recorder recorder(via_proxy, config_maps, ns, options);
  REQUIRE(describe(recorder.wait_for(1)) == std::vector<std::string>{"ADDED a"});

  proxy.set_paused(true);  // the stream drops; reconnecting fails until resumed
  server->stop();
  server->restart();
  proxy.set_target(url_port(server->url()));
  Client direct = client_for(*server, test_client_options(), server->url());
  REQUIRE(direct.create(config_maps, ns, config_map("b", "1")));
  REQUIRE(direct.patch(config_maps, ns, "a", PatchType::kMerge, R"({"data":{"k":"2"}})"));
  CHECK_FALSE(recorder.done());
  proxy.set_paused(false);

  const auto seen = recorder.wait_for(3, 90s);
  CHECK(describe(seen) == std::vector<std::string>{"ADDED a", "ADDED b", "MODIFIED a"});
  check_no_duplicates(seen);
  std::this_thread::sleep_for(500ms);
  CHECK(recorder.seen().size() == 3);
  CHECK_FALSE(recorder.done());
}

TEST_CASE("a watch whose version was compacted relists and delivers the difference") {
  auto server = ApiServer::start_private("--watch-cache=false");
  TcpProxy proxy(url_port(server->url()));
  Client via_proxy = client_for(*server, test_client_options(),
                                "https://127.0.0.1:" + std::to_string(proxy.port()));
  Client direct = client_for(*server);
  const std::string ns = unique_namespace(*server, "relist");
  const Resource config_maps = need(direct, "v1", "ConfigMap");
  for (const char* name : {"a", "b", "c"}) {
    REQUIRE(direct.create(config_maps, ns, config_map(name, "1")));
  }
  Recorder recorder(via_proxy, config_maps, ns, WatchOptions{});
  REQUIRE(describe(recorder.wait_for(3)) ==
          std::vector<std::string>{"ADDED a", "ADDED b", "ADDED c"});

  proxy.set_paused(true);
  REQUIRE(direct.patch(config_maps, ns, "b", PatchType::kMerge, R"({"data":{"k":"2"}})"));
  REQUIRE(direct.remove(config_maps, ns, "c"));
  REQUIRE(direct.create(config_maps, ns, config_map("d", "1")));
  server->compact();
  proxy.set_paused(false);

  const auto seen = recorder.wait_for(6, 90s);
  CHECK(describe(seen, 3) == std::vector<std::string>{"MODIFIED b", "ADDED d", "DELETED c"});
  check_no_duplicates(seen);
  CHECK_FALSE(recorder.done());
}

TEST_CASE("a watch of one object through a field selector, and its cancellation") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "single");
  const Resource config_maps = need(client, "v1", "ConfigMap");
  REQUIRE(client.create(config_maps, ns, config_map("x", "1")));
  REQUIRE(client.create(config_maps, ns, config_map("y", "1")));

  WatchOptions options;
  options.field_selector = "metadata.name=x";
  Recorder recorder(client, config_maps, ns, options);
  REQUIRE(describe(recorder.wait_for(1)) == std::vector<std::string>{"ADDED x"});
  REQUIRE(client.patch(config_maps, ns, "y", PatchType::kMerge, R"({"data":{"k":"2"}})"));
  REQUIRE(client.patch(config_maps, ns, "x", PatchType::kMerge, R"({"data":{"k":"2"}})"));
  CHECK(describe(recorder.wait_for(2)) == std::vector<std::string>{"ADDED x", "MODIFIED x"});

  // A watch blocked on a silent stream ends with kCancelled promptly when cancelled elsewhere.
  WatchOptions blocked;
  blocked.field_selector = "metadata.name=nothing";
  std::optional<trainer::Result<void>> result;
  std::thread watcher([&] {
    result = client.watch(config_maps, ns, blocked, [](const WatchEvent&) { return true; });
  });
  std::this_thread::sleep_for(500ms);
  const auto cancelled_at = std::chrono::steady_clock::now();
  blocked.cancel.cancel();
  watcher.join();
  CHECK(std::chrono::steady_clock::now() - cancelled_at < 5s);
  REQUIRE(result);
  REQUIRE_FALSE(*result);
  CHECK(result->error().code == ErrorCode::kCancelled);
}

TEST_CASE("on_event returning false ends a watch with success, and a 401 ends it with the error") {
  auto& server = ApiServer::shared();
  Client client = client_for(server);
  const std::string ns = unique_namespace(server, "stop");
  const Resource config_maps = need(client, "v1", "ConfigMap");
  REQUIRE(client.create(config_maps, ns, config_map("x", "1")));
  int calls = 0;
  auto stopped = client.watch(config_maps, ns, WatchOptions{}, [&](const WatchEvent&) {
    ++calls;
    return false;
  });
  CHECK(stopped);
  CHECK(calls == 1);

  Config anonymous = admin_config(server);
  anonymous.token = "not-a-token";
  anonymous.user = "nobody";
  auto refused_client = Client::create(anonymous, test_client_options());
  REQUIRE(refused_client);
  auto refused = refused_client->watch(config_maps, ns, WatchOptions{},
                                       [](const WatchEvent&) { return true; });
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::kUnauthorized);
  // The server does not say whom it refused; the text names the credentials that were sent.
  CHECK(kubectl_text(refused.error()) ==
        "error: You must be logged in to the server (Unauthorized; the client sent user "
        "\"nobody\" of context \"local\" (bearer token))");
}

TEST_CASE("a scripted watch stream: split events, an ERROR 410 inside the stream, relist") {
  FaultServer fault;
  Client client = client_for_fault(fault);
  Resource jobs;
  jobs.group = "trainer.kubeflow.org";
  jobs.version = "v1alpha1";
  jobs.resource = "trainjobs";
  jobs.kind = "TrainJob";
  const auto ev = [](const char* type, const char* name, const char* rv) {
    return std::string(R"({"type":")") + type +
           R"(","object":{"kind":"TrainJob","metadata":{"name":")" + name +
           R"(","namespace":"ns","resourceVersion":")" + rv + "\"}}}\n";
  };
  FaultResponse stream;
  const std::string added = ev("ADDED", "a", "6");
  stream.chunks = {{0ms, added.substr(0, 17)},
                   {50ms, added.substr(17) + ev("MODIFIED", "a", "7")},
                   {50ms, R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1",)"
                          R"j("status":"Failure","message":"too old resource version: 5 (8)",)j"
                          R"("reason":"Expired","code":410}})"
                          "\n"}};
  fault.push(stream);
  fault.push(
      FaultResponse(200, {{"Content-Type", "application/json"}},
                    R"({"kind":"TrainJobList","metadata":{"resourceVersion":"10"},"items":[)"
                    R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":"8"}},)"
                    R"({"metadata":{"name":"b","namespace":"ns","resourceVersion":"9"}}]})"));
  FaultResponse bookmark;
  bookmark.chunks = {{0ms, ev("BOOKMARK", "", "11")}};
  bookmark.hold = true;
  fault.push(bookmark);

  WatchOptions options;
  options.resource_version = "5";
  options.request_timeout = 120s;
  std::vector<std::string> seen;
  auto result = client.watch(jobs, "ns", options, [&](const WatchEvent& event) {
    seen.push_back(std::string(to_string(event.type)) + " " +
                   std::string(event.object.at("metadata").at("name").as_string()) + " " +
                   rv_of(event.object));
    return event.type != WatchEventType::kBookmark;
  });
  REQUIRE(result);
  CHECK(seen == std::vector<std::string>{"ADDED a 6", "MODIFIED a 7", "MODIFIED a 8", "ADDED b 9",
                                         "BOOKMARK  11"});
  const auto requests = fault.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].target ==
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs?watch=true&resourceVersion=5"
        "&allowWatchBookmarks=true&timeoutSeconds=120");
  CHECK(requests[1].target ==
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs?limit=500");
  CHECK(requests[2].target.find("resourceVersion=10&") != std::string::npos);

  // Errors other than 410 end the watch.
  fault.push(FaultResponse(
      403, {{"Content-Type", "application/json"}},
      R"({"kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"no"})"));
  auto forbidden = client.watch(jobs, "ns", options, [](const WatchEvent&) { return true; });
  REQUIRE_FALSE(forbidden);
  CHECK(forbidden.error().code == ErrorCode::kForbidden);
}

TEST_CASE("pod logs are streamed with their query parameters, and errors are Status errors") {
  FaultServer fault;
  Client client = client_for_fault(fault);
  FaultResponse log;
  log.headers = {{"Content-Type", "text/plain"}};
  log.chunks = {{0ms, "line 1\n"}, {50ms, "line 2\n"}};
  fault.push(log);
  trainer::kube::LogOptions options;
  options.container = "trainer";
  options.follow = true;
  options.tail_lines = 10;
  options.since_seconds = 60;
  options.timestamps = true;
  std::string text;
  auto result = client.logs("ns", "pod-0", options, [&](std::string_view data) {
    text += data;
    return true;
  });
  REQUIRE(result);
  CHECK(text == "line 1\nline 2\n");
  REQUIRE(fault.requests().size() == 1);
  CHECK(fault.requests()[0].target ==
        "/api/v1/namespaces/ns/pods/pod-0/log?container=trainer&follow=true&tailLines=10&"
        "sinceSeconds=60&timestamps=true");

  fault.push(
      FaultResponse(400, {{"Content-Type", "application/json"}},
                    R"({"kind":"Status","status":"Failure","reason":"BadRequest","code":400,)"
                    R"("message":"container x is not valid for pod pod-0"})"));
  auto refused = client.logs("ns", "pod-0", {}, [](std::string_view) { return true; });
  REQUIRE_FALSE(refused);
  CHECK(kubectl_text(refused.error()) ==
        "Error from server (BadRequest): container x is not valid for pod pod-0");
}
