// SPDX-License-Identifier: Apache-2.0
// The loop's informer stores (lib/controller/object_cache.hpp) against the real kube-apiserver:
// the loop reads from them (a new TrainJob costs its writes and nothing else, counted by the
// client's own counter), a read after an own write waits for the watch to deliver it or reads
// the server past its bound, deletions leave the store, objects no TrainJob controls are kept by
// name only, a relist after 410 replaces the contents, and the workers wait for the first lists
// with a bound. The store's rules themselves are checked first, with events made by hand.
#include "controller/object_cache.hpp"
#include "controller/cluster_lookup.hpp"
#include "support/api_server.hpp"
#include "support/cluster_data.hpp"
#include "support/tcp_proxy.hpp"
#include "support/test_client.hpp"
#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/kube.hpp"
#include "wait_until.hpp"

#include <boost/json/parse.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
namespace json = boost::json;
namespace kube = trainer::kube;
using trainer::controller::detail::ClusterLookup;
using trainer::controller::detail::Keep;
using trainer::controller::detail::ObjectCache;
using trainer::controller::detail::run_informer;
using trainer::controller::detail::version_at_least;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::need;
using trainer::testing::TcpProxy;
using trainer::testing::test_client_options;
using trainer::testing::unique_namespace;
using trainer::testing::url_port;
using trainer::testing::wait_until;

namespace {

using Steady = std::chrono::steady_clock;

json::object object(const std::string& text) {
  return json::parse(text).as_object();
}

json::object config_map(const std::string& name, const std::string& value,
                        const std::string& owner_uid = "") {
  std::string owners;
  if (!owner_uid.empty()) {
    owners = R"(,"ownerReferences":[{"apiVersion":"trainer.kubeflow.org/v1alpha1",)"
             R"("kind":"TrainJob","name":"owner","uid":")" +
             owner_uid + R"(","controller":true}])";
  }
  return object(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + "\"" +
                owners + R"(},"data":{"k":")" + value + R"("}})");
}

// An event as a watch delivers it, for the store's rules without a server.
kube::WatchEvent event(kube::WatchEventType type, const std::string& name,
                       const std::string& version, const std::string& value = "v") {
  return {type, object(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                       R"(","namespace":"ns","resourceVersion":")" + version +
                       R"(","managedFields":[{"manager":"m"}]},"data":{"k":")" + value + R"("}})")};
}

kube::Resource config_maps_resource() {
  kube::Resource r;
  r.version = "v1";
  r.resource = "configmaps";
  r.kind = "ConfigMap";
  return r;
}

std::string data_of(const ObjectCache::Read& read) {
  REQUIRE(read.object);
  return std::string(read.object->at("data").at("k").as_string());
}

// No silent watch is dropped and resumed during a test (a resumed watch is a request).
kube::ClientOptions quiet_watch_options() {
  kube::ClientOptions options = test_client_options();
  options.stream_idle_timeout = std::chrono::minutes(10);
  return options;
}

// run_informer on a thread of its own, stopped and joined on destruction.
class Informer {
 public:
  Informer(kube::Client& client, const kube::Resource& resource, const std::string& ns,
           ObjectCache& cache)
      : thread_([&, resource, ns] {
          (void)run_informer(client, resource, ns, cancel_, cache, nullptr, [this] { ++lists_; });
        }) {}
  ~Informer() {
    cancel_.cancel();
    thread_.join();
  }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;
  [[nodiscard]] int lists() const { return lists_.load(); }

 private:
  kube::CancelToken cancel_;
  std::atomic<int> lists_{0};
  std::thread thread_;
};

}  // namespace

TEST_CASE("the store's rules: sync, own writes, the apply memo, deletion") {
  const kube::Resource cms = config_maps_resource();
  ObjectCache cache(150ms);
  cache.add_kind(cms, Keep::kAll, "ns");
  using Hit = ObjectCache::Hit;
  using Type = kube::WatchEventType;

  // Before its first list the store answers nothing: the server does.
  CHECK(cache.get("v1", "ConfigMap", "ns", "a").hit == Hit::kUnknown);
  (void)cache.apply(cms, event(Type::kAdded, "a", "5", "one"));
  CHECK_FALSE(cache.synced());
  cache.listed(cms);
  CHECK(cache.synced());
  auto read = cache.get("v1", "ConfigMap", "ns", "a");
  REQUIRE(read.hit == Hit::kFound);
  CHECK(data_of(read) == "one");
  CHECK(read.object->at("metadata").as_object().count("managedFields") == 0);  // not kept
  CHECK(cache.get("v1", "ConfigMap", "ns", "missing").hit == Hit::kAbsent);
  // Another namespace than the watched one, another kind: not the store's to answer.
  CHECK(cache.get("v1", "ConfigMap", "other", "a").hit == Hit::kUnknown);
  CHECK(cache.get("v1", "Secret", "ns", "a").hit == Hit::kUnknown);

  // An own apply at version 7: reads wait for it; past the bound they go to the server.
  cache.wrote("v1", "ConfigMap", "ns", "a", event(Type::kModified, "a", "7").object, "digest-1");
  const auto asked = Steady::now();
  CHECK(cache.get("v1", "ConfigMap", "ns", "a").hit == Hit::kUnknown);
  CHECK(Steady::now() - asked >= 140ms);
  CHECK_FALSE(cache.unchanged_since_apply("v1", "ConfigMap", "ns", "a", "digest-1"));
  // An older event does not answer it; the write's own does.
  (void)cache.apply(cms, event(Type::kModified, "a", "6", "stale"));
  CHECK(cache.get("v1", "ConfigMap", "ns", "a").hit == Hit::kUnknown);
  std::thread late([&] {
    std::this_thread::sleep_for(50ms);
    (void)cache.apply(cms, event(Type::kModified, "a", "7", "mine"));
  });
  read = cache.get("v1", "ConfigMap", "ns", "a");
  late.join();
  REQUIRE(read.hit == Hit::kFound);
  CHECK(data_of(read) == "mine");
  // Applying the same body again would change nothing; another body would.
  CHECK(cache.unchanged_since_apply("v1", "ConfigMap", "ns", "a", "digest-1"));
  CHECK_FALSE(cache.unchanged_since_apply("v1", "ConfigMap", "ns", "a", "digest-2"));
  CHECK(cache.size().writes == 1);
  // Someone else changes it: the memo goes.
  (void)cache.apply(cms, event(Type::kModified, "a", "8", "theirs"));
  CHECK_FALSE(cache.unchanged_since_apply("v1", "ConfigMap", "ns", "a", "digest-1"));
  CHECK(cache.size().writes == 0);

  // The watch may deliver a write before the writer records it.
  (void)cache.apply(cms, event(Type::kModified, "a", "9", "fast"));
  cache.wrote("v1", "ConfigMap", "ns", "a", event(Type::kModified, "a", "9").object, "digest-3");
  CHECK(cache.unchanged_since_apply("v1", "ConfigMap", "ns", "a", "digest-3"));
  // A patch (no digest) is forgotten once seen.
  cache.wrote("v1", "ConfigMap", "ns", "a", event(Type::kModified, "a", "9").object);
  CHECK(cache.size().writes == 0);

  // An own delete: reads wait for the DELETED event, never answer the stale object.
  cache.deleted("v1", "ConfigMap", "ns", "a", json::object{});
  CHECK(cache.get("v1", "ConfigMap", "ns", "a").hit == Hit::kUnknown);
  (void)cache.apply(cms, event(Type::kDeleted, "a", "10"));
  CHECK(cache.get("v1", "ConfigMap", "ns", "a").hit == Hit::kAbsent);
  CHECK(cache.size().writes == 0);
  CHECK(cache.size().kept == 0);
  CHECK(cache.keys(cms).empty());

  CHECK(version_at_least("10", "9"));
  CHECK(version_at_least("9", "9"));
  CHECK_FALSE(version_at_least("9", "10"));
  CHECK(version_at_least("abc", "abc"));
  CHECK_FALSE(version_at_least("abd", "abc"));
}

TEST_CASE("a store of owned objects keeps whole what a TrainJob controls, the rest by name only") {
  auto& server = ApiServer::shared();
  kube::Client client = client_for(server, quiet_watch_options());
  const std::string ns = unique_namespace(server, "cache-owned");
  const kube::Resource cms = need(client, "v1", "ConfigMap");
  REQUIRE(client.create(cms, ns, config_map("theirs", "1")));
  REQUIRE(client.create(cms, ns, config_map("ours", "1", "00000000-0000-0000-0000-000000000001")));
  ObjectCache cache(1s);
  cache.add_kind(cms, Keep::kOwned, ns);
  Informer informer(client, cms, ns, cache);
  REQUIRE(wait_until([&] { return cache.synced(); }, 30s));

  ClusterLookup lookup(client, {}, &cache);
  const auto before = client.request_counts();
  auto ours = lookup.get("v1", "ConfigMap", ns, "ours");
  REQUIRE(ours);
  REQUIRE(*ours);
  CHECK(client.request_counts().total() == before.total());  // from the store
  auto missing = lookup.get("v1", "ConfigMap", ns, "nobody");
  REQUIRE(missing);
  CHECK_FALSE(*missing);
  CHECK(client.request_counts().total() == before.total());  // every name is known
  // Kept by name only: the server answers (one GET).
  CHECK(cache.get("v1", "ConfigMap", ns, "theirs").hit == ObjectCache::Hit::kUnknown);
  auto theirs = lookup.get("v1", "ConfigMap", ns, "theirs");
  REQUIRE(theirs);
  REQUIRE(*theirs);
  CHECK((*theirs)->at("data").at("k").as_string() == "1");
  CHECK(client.request_counts().get == before.get + 1);
  const auto size = cache.size();
  CHECK(size.kept == 1);
  CHECK(size.names >= 1);
}

TEST_CASE("a deleted object leaves the store: not found, without a request") {
  auto& server = ApiServer::shared();
  kube::Client client = client_for(server, quiet_watch_options());
  const std::string ns = unique_namespace(server, "cache-deleted");
  const kube::Resource cms = need(client, "v1", "ConfigMap");
  REQUIRE(client.create(cms, ns, config_map("gone", "1")));
  ObjectCache cache(1s);
  cache.add_kind(cms, Keep::kAll, ns);
  Informer informer(client, cms, ns, cache);
  REQUIRE(wait_until(
      [&] { return cache.get("v1", "ConfigMap", ns, "gone").hit == ObjectCache::Hit::kFound; },
      30s));
  kube::Client other = client_for(server);
  REQUIRE(other.remove(cms, ns, "gone"));
  CHECK(wait_until(
      [&] { return cache.get("v1", "ConfigMap", ns, "gone").hit == ObjectCache::Hit::kAbsent; },
      30s));
  const auto before = client.request_counts();
  ClusterLookup lookup(client, {}, &cache);
  auto read = lookup.get("v1", "ConfigMap", ns, "gone");
  REQUIRE(read);
  CHECK_FALSE(*read);
  CHECK(client.request_counts().total() == before.total());
}

TEST_CASE(
    "a read after an own write waits for the watch to deliver it, and reads the server past "
    "the bound") {
  auto& server = ApiServer::shared();
  TcpProxy proxy(url_port(server.url()));
  const std::string via = "https://127.0.0.1:" + std::to_string(proxy.port());
  kube::Client watching = client_for(server, quiet_watch_options(), via);
  kube::Client direct = client_for(server);
  const std::string ns = unique_namespace(server, "cache-own");
  const kube::Resource cms = need(direct, "v1", "ConfigMap");
  for (const char* name : {"patched", "deleted", "late"}) {
    REQUIRE(direct.create(cms, ns, config_map(name, "1")));
  }
  // One store whose bound outlasts the watch's reconnection (its first retry comes within 1.6
  // s), one whose bound does not.
  ObjectCache patient(8s);
  ObjectCache hasty(300ms);
  for (ObjectCache* cache : {&patient, &hasty}) cache->add_kind(cms, Keep::kAll, ns);
  Informer patient_informer(watching, cms, ns, patient);
  Informer hasty_informer(watching, cms, ns, hasty);
  REQUIRE(wait_until(
      [&] {
        return patient.get("v1", "ConfigMap", ns, "late").hit == ObjectCache::Hit::kFound &&
               hasty.get("v1", "ConfigMap", ns, "late").hit == ObjectCache::Hit::kFound;
      },
      30s));

  // The watches stop delivering while the writes are made (the proxy closes their streams
  // within 100 ms).
  proxy.set_paused(true);
  std::this_thread::sleep_for(300ms);
  auto patched = direct.patch(cms, ns, "patched", kube::PatchType::kMerge, R"({"data":{"k":"2"}})");
  REQUIRE(patched);
  patient.wrote("v1", "ConfigMap", ns, "patched", *patched);
  REQUIRE(direct.remove(cms, ns, "deleted"));
  patient.deleted("v1", "ConfigMap", ns, "deleted", json::object{});
  auto late = direct.patch(cms, ns, "late", kube::PatchType::kMerge, R"({"data":{"k":"3"}})");
  REQUIRE(late);
  hasty.wrote("v1", "ConfigMap", ns, "late", *late);

  // Past its bound the hasty store gives up and the lookup reads the server.
  ClusterLookup lookup(direct, {}, &hasty);
  const auto gets = direct.request_counts().get;
  auto through = lookup.get("v1", "ConfigMap", ns, "late");
  REQUIRE(through);
  REQUIRE(*through);
  CHECK((*through)->at("data").at("k").as_string() == "3");
  CHECK(direct.request_counts().get == gets + 1);

  std::thread resume([&] {
    std::this_thread::sleep_for(500ms);
    proxy.set_paused(false);
  });
  const auto asked = Steady::now();
  const auto read = patient.get("v1", "ConfigMap", ns, "patched");
  const auto waited = Steady::now() - asked;
  resume.join();
  REQUIRE(read.hit == ObjectCache::Hit::kFound);
  CHECK(data_of(read) == "2");  // never the version before the write
  CHECK(waited >= 450ms);
  CHECK(patient.get("v1", "ConfigMap", ns, "deleted").hit == ObjectCache::Hit::kAbsent);
  // Once delivered, the hasty store answers too, without a request.
  CHECK(wait_until(
      [&] {
        const auto now = hasty.get("v1", "ConfigMap", ns, "late");
        return now.hit == ObjectCache::Hit::kFound && data_of(now) == "3";
      },
      30s));
  CHECK(patient.size().writes == 0);
  CHECK(hasty.size().writes == 0);
}

TEST_CASE("a watch that relists after 410 replaces the store's contents and stays synced") {
  auto server = ApiServer::start_private("--watch-cache=false");
  TcpProxy proxy(url_port(server->url()));
  kube::Client watching = client_for(*server, quiet_watch_options(),
                                     "https://127.0.0.1:" + std::to_string(proxy.port()));
  kube::Client direct = client_for(*server);
  const std::string ns = unique_namespace(*server, "cache-relist");
  const kube::Resource cms = need(direct, "v1", "ConfigMap");
  for (const char* name : {"a", "b", "c"}) REQUIRE(direct.create(cms, ns, config_map(name, "1")));
  ObjectCache cache(1s);
  cache.add_kind(cms, Keep::kAll, ns);
  Informer informer(watching, cms, ns, cache);
  REQUIRE(wait_until(
      [&] { return cache.get("v1", "ConfigMap", ns, "c").hit == ObjectCache::Hit::kFound; }, 30s));
  CHECK(informer.lists() == 1);

  proxy.set_paused(true);
  std::this_thread::sleep_for(300ms);
  REQUIRE(direct.patch(cms, ns, "b", kube::PatchType::kMerge, R"({"data":{"k":"2"}})"));
  REQUIRE(direct.remove(cms, ns, "c"));
  REQUIRE(direct.create(cms, ns, config_map("d", "1")));
  server->compact();  // the watch's version is gone: it must relist
  proxy.set_paused(false);

  CHECK(wait_until([&] { return informer.lists() == 2; }, 90s));
  CHECK(cache.synced());
  using Hit = ObjectCache::Hit;
  CHECK(cache.get("v1", "ConfigMap", ns, "c").hit == Hit::kAbsent);
  const auto d = cache.get("v1", "ConfigMap", ns, "d");
  CHECK(d.hit == Hit::kFound);
  const auto b = cache.get("v1", "ConfigMap", ns, "b");
  REQUIRE(b.hit == Hit::kFound);
  CHECK(data_of(b) == "2");
  CHECK(cache.get("v1", "ConfigMap", ns, "a").hit == Hit::kFound);
}

TEST_CASE(
    "the loop reads from its stores: new TrainJobs cost their writes, the reconciles their own "
    "writes queue cost nothing") {
  auto& server = ApiServer::shared();
  kube::Client client = client_for(server, quiet_watch_options());  // the controller's, counted
  kube::Client other = client_for(server);
  const std::string ns = unique_namespace(server, "cache-loop");
  {
    auto docs = trainer::parse_documents(trainer::testing::small_runtime_yaml());
    REQUIRE(docs);
    trainer::cluster::ApplyOptions apply;
    apply.namespace_ = ns;
    REQUIRE(trainer::cluster::apply(other, *docs, apply));
  }
  const kube::Resource train_jobs = need(other, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  const auto create = [&](const std::string& name) {
    auto docs =
        trainer::parse_documents(trainer::testing::small_train_job_yaml(name, "  suspend: true\n"));
    REQUIRE(docs);
    json::object job = docs->front().as_object();
    auto created = other.create(train_jobs, ns, job);
    INFO((created ? "" : kube::kubectl_text(created.error())));
    REQUIRE(created);
  };

  std::mutex mutex;
  std::vector<trainer::controller::ReconcileResult> results;
  int errors = 0;
  trainer::controller::ControllerOptions options;
  options.namespace_ = ns;
  options.reconciler.record_events = false;
  options.on_reconcile = [&](const trainer::controller::ReconcileResult& r,
                             const trainer::Error* error) {
    std::lock_guard<std::mutex> lock(mutex);
    results.push_back(r);
    if (error != nullptr) ++errors;
  };
  const auto reconciled = [&] {
    std::lock_guard<std::mutex> lock(mutex);
    return results;
  };
  // Settled: every TrainJob in `names` has its status written and no reconcile ran for 1.5 s.
  const auto settle = [&](const std::vector<std::string>& names) {
    std::size_t seen = 0;
    auto quiet_since = Steady::now();
    return wait_until(
        [&] {
          const auto now = reconciled();
          if (now.size() != seen) {
            seen = now.size();
            quiet_since = Steady::now();
          }
          for (const auto& name : names) {
            bool written = false;
            for (const auto& r : now) written |= r.key == ns + "/" + name && r.status_patched;
            if (!written) return false;
          }
          return Steady::now() - quiet_since > 1500ms;
        },
        60s);
  };

  trainer::controller::Controller controller(client, options);
  std::optional<trainer::Result<void>> ran;
  std::thread loop([&] { ran = controller.run(); });  // Catch's macros stay on this thread
  create("warm");  // the stores are synced once its reconcile ran
  REQUIRE(settle({"warm"}));

  const auto before = client.request_counts();
  const std::size_t first = reconciled().size();
  const std::vector<std::string> names{"a", "b", "c", "d", "e"};
  for (const auto& name : names) create(name);
  REQUIRE(settle(names));
  const auto after = client.request_counts();
  const auto now = reconciled();

  // What the reconciles wrote is every request the controller made: no read at all.
  std::uint64_t writes = 0;
  std::map<std::string, int> count;
  for (std::size_t i = first; i < now.size(); ++i) {
    writes += now[i].applied.size() + (now[i].status_patched ? 1 : 0);
    ++count[now[i].key];
  }
  CHECK(after.get == before.get);
  CHECK(after.patch - before.patch == writes);
  CHECK(after.total() - before.total() == writes);
  CHECK(writes == 3 * names.size());  // the snapshot ConfigMap, the JobSet, the status
  for (const auto& name : names) {
    // Its own writes' events queued it again: that reconcile found everything as it left it.
    CHECK(count[ns + "/" + name] >= 2);
  }
  CHECK(errors == 0);

  // Someone else changes a JobSet: the next reconcile applies it again (and only it).
  const kube::Resource job_sets = need(other, "jobset.x-k8s.io/v1alpha2", "JobSet");
  const auto before_change = client.request_counts();
  const std::size_t before_results = reconciled().size();
  REQUIRE(other.patch(job_sets, ns, "a", kube::PatchType::kMerge,
                      R"({"metadata":{"labels":{"someone":"else"}}})"));
  CHECK(wait_until(
      [&] {
        const auto r = reconciled();
        for (std::size_t i = before_results; i < r.size(); ++i) {
          if (r[i].key == ns + "/a" &&
              r[i].applied == std::vector<std::string>{"jobset.jobset.x-k8s.io/a"}) {
            return true;
          }
        }
        return false;
      },
      30s));
  REQUIRE(settle(names));
  CHECK(client.request_counts().get == before_change.get);
  CHECK(client.request_counts().patch == before_change.patch + 1);

  // A Reconciler of its own reads the server: the TrainJob, the runtime snapshot, the JobSet.
  kube::Client plain = client_for(server);
  trainer::controller::ReconcilerOptions plain_options;
  plain_options.record_events = false;
  trainer::controller::Reconciler reconciler(plain, plain_options);
  const auto plain_before = plain.request_counts();
  REQUIRE(reconciler.reconcile(ns, "b"));
  CHECK(plain.request_counts().get - plain_before.get >= 3);

  controller.stop();
  loop.join();
  REQUIRE(ran);
  CHECK(*ran);
}

TEST_CASE("the workers wait for the first lists, and run() fails past cache_sync_timeout") {
  auto& server = ApiServer::shared();
  TcpProxy proxy(url_port(server.url()));
  kube::Client client = client_for(server, test_client_options(),
                                   "https://127.0.0.1:" + std::to_string(proxy.port()));
  // Discovery is done (and kept by the client) before the server becomes unreachable.
  for (const auto& [api_version, kind] : std::vector<std::pair<const char*, const char*>>{
           {"trainer.kubeflow.org/v1alpha1", "TrainJob"}, {"v1", "ConfigMap"}}) {
    (void)need(client, api_version, kind);
  }
  proxy.set_paused(true);
  trainer::controller::ControllerOptions options;
  options.namespace_ = unique_namespace(server, "cache-sync");
  options.cache_sync_timeout = 1s;
  std::atomic<int> reconciles{0};
  options.on_reconcile = [&](const trainer::controller::ReconcileResult&, const trainer::Error*) {
    ++reconciles;
  };
  trainer::controller::Controller controller(client, options);
  const auto started = Steady::now();
  const auto result = controller.run();
  REQUIRE_FALSE(result);
  CHECK(result.error().code == trainer::ErrorCode::kTimeout);
  CHECK(result.error().message.find("waiting for the first list of") != std::string::npos);
  CHECK(result.error().message.find("TrainJob") != std::string::npos);
  CHECK(Steady::now() - started < 20s);
  CHECK(reconciles.load() == 0);
}
