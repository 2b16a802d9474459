// SPDX-License-Identifier: Apache-2.0
// The TrainJob verbs of lib/cluster (include/trainer/cluster.hpp) where the trainerctl shell
// tests cannot reach: against the real kube-apiserver (local admission completed with the
// cluster's runtime, the observedGeneration rule, cancellation and deletion while waiting, the
// server's Table) and against the loopback fault server for logs (the API server has no kubelet:
// pod selection by the JobSet's labels, node index, concurrent followed streams, stopping).
#include "trainer/cluster.hpp"
#include "support/api_server.hpp"
#include "support/cluster_data.hpp"
#include "support/fault_server.hpp"
#include "support/test_client.hpp"
#include "trainer/codec.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
namespace cluster = trainer::cluster;
namespace kube = trainer::kube;
using trainer::ErrorCode;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::FaultResponse;
using trainer::testing::FaultServer;
using trainer::testing::test_client_options;

namespace {

std::vector<boost::json::value> documents(const std::string& yaml) {
  auto docs = trainer::parse_documents(yaml);
  REQUIRE(docs);
  return *docs;
}

const std::string kRuntime = trainer::testing::small_runtime_yaml();

std::string train_job(const std::string& name, const std::string& extra = "") {
  return trainer::testing::small_train_job_yaml(name, extra);
}

// The controller's status write, through the admin token (curl, as the shell tests do).
void patch_status(ApiServer& server, const std::string& ns, const std::string& name,
                  const std::string& status_json) {
  trainer::testing::run_or_die(
      "curl -sSf --max-time 20 --cacert '" + server.ca_file() + "' -H 'Authorization: Bearer " +
      server.token() + "' -X PATCH -H 'Content-Type: application/merge-patch+json' --data '" +
      R"({"status":)" + status_json + "}' '" + server.url() +
      "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + ns + "/trainjobs/" + name +
      "/status' >/dev/null");
}

std::string condition(const std::string& type, const std::string& extra = "") {
  return R"({"type":")" + type +
         R"(","status":"True","reason":"R","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z")" +
         extra + "}";
}

void apply_or_die(kube::Client& client, const std::string& ns, const std::string& yaml) {
  cluster::ApplyOptions options;
  options.namespace_ = ns;
  auto applied = cluster::apply(client, documents(yaml), options);
  INFO((applied ? std::string() : kube::kubectl_text(applied.error())));
  REQUIRE(applied);
}

}  // namespace

TEST_CASE("parse_kind accepts kubectl's spellings of the Trainer kinds") {
  CHECK(cluster::parse_kind("trainjobs") == cluster::Kind::kTrainJob);
  CHECK(cluster::parse_kind("TrainJob") == cluster::Kind::kTrainJob);
  CHECK(cluster::parse_kind("trainjob.trainer.kubeflow.org") == cluster::Kind::kTrainJob);
  CHECK(cluster::parse_kind("trainjobs.v1alpha1.trainer.kubeflow.org") == cluster::Kind::kTrainJob);
  CHECK(cluster::parse_kind("trainingruntime") == cluster::Kind::kTrainingRuntime);
  CHECK(cluster::parse_kind("ClusterTrainingRuntimes") == cluster::Kind::kClusterTrainingRuntime);
  const auto bad = cluster::parse_kind("trainjobz");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ErrorCode::kInvalidArgument);
  CHECK(bad.error().message == "the server doesn't have a resource type \"trainjobz\"");
}

TEST_CASE(
    "apply admits a TrainJob against the runtime the cluster holds, applying nothing when "
    "it is rejected") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-apply");
  auto client = client_for(server);
  apply_or_die(client, ns, kRuntime);

  // PET_NNODES is the Torch plugin's: only a check against the runtime (read from the cluster,
  // it is not among the documents) can reject it.
  const std::string bad_job =
      train_job("reserved", "    env:\n      - name: PET_NNODES\n        value: \"4\"\n");
  std::vector<std::string> warnings;
  std::vector<std::string> applied_refs;
  cluster::ApplyOptions options;
  options.namespace_ = ns;
  options.on_warning = [&](std::string_view w) { warnings.emplace_back(w); };
  options.on_applied = [&](const cluster::AppliedObject& a) { applied_refs.push_back(a.ref); };
  const std::string config_map =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\ndata:\n  a: b\n---\n";
  auto rejected = cluster::apply(client, documents(config_map + bad_job), options);
  REQUIRE_FALSE(rejected);
  CHECK(rejected.error().code == ErrorCode::kInvalid);
  REQUIRE_FALSE(rejected.error().fields.empty());
  CHECK(rejected.error().fields[0].path.find("spec.trainer.env") == 0);
  CHECK(applied_refs.empty());
  CHECK(warnings.empty());
  auto config_maps = client.resource_for("v1", "ConfigMap");
  REQUIRE(config_maps);
  const auto absent = client.get(*config_maps, ns, "first");
  REQUIRE_FALSE(absent);
  CHECK(absent.error().code == ErrorCode::kNotFound);

  // The same documents with a valid TrainJob: applied in input order, each reported.
  auto applied = cluster::apply(client, documents(config_map + train_job("good")), options);
  REQUIRE(applied);
  CHECK(applied_refs ==
        std::vector<std::string>{"configmap/first", "trainjob.trainer.kubeflow.org/good"});
  REQUIRE(applied->size() == 2);
  CHECK((*applied)[1].object.at("metadata").at("namespace").as_string() == ns);
  CHECK(warnings.empty());
}

TEST_CASE(
    "wait: a condition older than the generation does not count, and "
    "cancellation or deletion ends the wait") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-wait");
  auto client = client_for(server);
  apply_or_die(client, ns, kRuntime + "---\n" + train_job("job"));

  // generation is 1: a Complete condition observed at generation 0 is stale.
  patch_status(server, ns, "job",
               "{\"conditions\":[" + condition("Complete", R"(,"observedGeneration":0)") + "]}");
  cluster::WaitOptions once;
  once.wait_timeout = 0ms;
  auto stale = cluster::wait(client, ns, "job", "Complete", "True", once);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().code == ErrorCode::kTimeout);
  CHECK(stale.error().message == "condition not met for trainjobs/job");
  patch_status(server, ns, "job",
               "{\"conditions\":[" + condition("Complete", R"(,"observedGeneration":1)") + "]}");
  auto met = cluster::wait(client, ns, "job", "complete", "true", once);
  REQUIRE(met);
  CHECK(met->at("metadata").at("name").as_string() == "job");

  // Cancelled from another thread while watching: kCancelled, promptly.
  cluster::WaitOptions cancellable;
  cancellable.wait_timeout = 60s;
  std::thread canceller([token = cancellable.cancel] {
    std::this_thread::sleep_for(300ms);
    token.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  auto cancelled = cluster::wait(client, ns, "job", "Suspended", "True", cancellable);
  canceller.join();
  REQUIRE_FALSE(cancelled);
  CHECK(cancelled.error().code == ErrorCode::kCancelled);
  CHECK(std::chrono::steady_clock::now() - start < 10s);

  // Deleted while waiting: kNotFound.
  cluster::WaitOptions waiting;
  waiting.wait_timeout = 60s;
  std::thread deleter([&] {
    std::this_thread::sleep_for(300ms);
    auto other = client_for(server);
    cluster::DeleteOptions options;
    options.propagation = kube::Propagation::kBackground;
    REQUIRE(cluster::remove(other, cluster::Kind::kTrainJob, ns, "job", options));
  });
  auto gone = cluster::wait(client, ns, "job", "Suspended", "True", waiting);
  deleter.join();
  REQUIRE_FALSE(gone);
  CHECK(gone.error().code == ErrorCode::kNotFound);

  auto missing = cluster::wait(client, ns, "job", "Complete", "True", once);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::kNotFound);
}

TEST_CASE("wait_deleted: done at once when gone, else until the object is deleted") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-wait-deleted");
  auto client = client_for(server);
  apply_or_die(client, ns, kRuntime + "---\n" + train_job("job"));
  auto trainjobs = cluster::resource_of(client, cluster::Kind::kTrainJob);
  REQUIRE(trainjobs);

  cluster::WaitOptions once;
  once.wait_timeout = 0ms;
  auto absent = cluster::wait_deleted(client, *trainjobs, ns, "nope", once);
  REQUIRE(absent);
  CHECK_FALSE(*absent);
  auto present = cluster::wait_deleted(client, *trainjobs, ns, "job", once);
  REQUIRE_FALSE(present);
  CHECK(present.error().code == ErrorCode::kTimeout);
  CHECK(present.error().message == "condition not met for trainjobs/job");

  // Any resource: a ConfigMap that stays is waited for up to the timeout.
  auto config_maps = trainer::testing::need(client, "v1", "ConfigMap");
  REQUIRE(client.create(config_maps, ns,
                        boost::json::parse(R"({"metadata":{"name":"stays"}})").as_object()));
  cluster::WaitOptions briefly;
  briefly.wait_timeout = 500ms;
  auto stays = cluster::wait_deleted(client, config_maps, ns, "stays", briefly);
  REQUIRE_FALSE(stays);
  CHECK(stays.error().message == "timed out waiting for the condition on configmaps/stays");

  cluster::WaitOptions waiting;
  waiting.wait_timeout = 60s;
  std::thread deleter([&] {
    std::this_thread::sleep_for(300ms);
    auto other = client_for(server);
    REQUIRE(cluster::remove(other, cluster::Kind::kTrainJob, ns, "job", {}));
  });
  auto deleted = cluster::wait_deleted(client, *trainjobs, ns, "job", waiting);
  deleter.join();
  REQUIRE(deleted);
  CHECK(*deleted);
}

TEST_CASE("events: kubectl describe's query per object, merged oldest first") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-events");
  auto client = client_for(server);
  auto events_resource = trainer::testing::need(client, "v1", "Event");
  const auto now = std::chrono::system_clock::now();
  const auto at = [&](std::chrono::minutes ago) {
    const std::time_t t = std::chrono::system_clock::to_time_t(now - ago);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf);
  };
  // An event about `kind`/`name` with `uid`; `times` are its timestamp fields.
  const auto create = [&](const std::string& name, const std::string& kind,
                          const std::string& object, const std::string& uid,
                          const std::string& times) {
    const std::string text = R"({"metadata":{"name":")" + name +
                             R"("},"involvedObject":{"kind":")" + kind + R"(","name":")" + object +
                             R"(","namespace":")" + ns + R"(","uid":")" + uid + R"("},"reason":")" +
                             name + R"(","message":"m","type":"Normal",)" + times + "}";
    auto created = client.create(events_resource, ns, boost::json::parse(text).as_object());
    INFO((created ? std::string() : created.error().message));
    REQUIRE(created);
  };
  const std::string job_uid = "11111111-1111-1111-1111-111111111111";
  create("old", "TrainJob", "job", job_uid,
         R"("firstTimestamp":")" + at(300min) + R"(","lastTimestamp":")" + at(180min) + "\"");
  // Only an eventTime (events.k8s.io writers): ordered by it, not first as kubectl describe has it.
  create("micro", "TrainJob", "job", job_uid,
         R"("eventTime":")" + at(60min).substr(0, 19) +
             R"(.000000Z","reportingComponent":"c","reportingInstance":"i","action":"a")");
  // A series: its last observation counts, not the older lastTimestamp.
  create("series", "TrainJob", "job", job_uid,
         R"("eventTime":")" + at(400min).substr(0, 19) +
             R"(.000000Z","reportingComponent":"c","reportingInstance":"i","action":"a",)" +
             R"("lastTimestamp":")" + at(500min) + R"(","series":{"count":4,"lastObservedTime":")" +
             at(120min).substr(0, 19) + R"(.000000Z"})");
  create("pod", "Pod", "job-node-0-0", "22222222-2222-2222-2222-222222222222",
         R"("lastTimestamp":")" + at(30min) + "\"");
  create("other-uid", "TrainJob", "job", "33333333-3333-3333-3333-333333333333",
         R"("lastTimestamp":")" + at(10min) + "\"");
  create("other-kind", "JobSet", "job", job_uid, R"("lastTimestamp":")" + at(10min) + "\"");

  auto found =
      cluster::events(client, {{"TrainJob", ns, "job", job_uid}, {"Pod", ns, "job-node-0-0", ""}});
  REQUIRE(found);
  std::vector<std::string> reasons;
  for (const auto& event : *found) reasons.emplace_back(event.at("reason").as_string());
  CHECK(reasons == std::vector<std::string>{"old", "series", "micro", "pod"});
  auto none = cluster::events(client, {{"TrainJob", ns, "absent", ""}});
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("table: the server computes the CRD's printer columns, for a list and for one object") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-table");
  auto client = client_for(server);
  apply_or_die(client, ns, kRuntime + "---\n" + train_job("a") + "---\n" + train_job("b"));
  patch_status(server, ns, "b", "{\"conditions\":[" + condition("Failed") + "]}");

  auto table = cluster::table(client, cluster::Kind::kTrainJob, ns, "", {});
  REQUIRE(table);
  CHECK(table->at("kind").as_string() == "Table");
  const auto& columns = table->at("columnDefinitions").as_array();
  REQUIRE(columns.size() == 3);
  CHECK(columns[0].at("name").as_string() == "Name");
  CHECK(columns[1].at("name").as_string() == "State");
  CHECK(columns[2].at("name").as_string() == "Age");
  const auto& rows = table->at("rows").as_array();
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].at("cells").as_array()[0].as_string() == "b");
  CHECK(rows[1].at("cells").as_array()[1].as_string() == "Failed");
  CHECK(rows[0].at("object").at("metadata").at("namespace").as_string() == ns);

  auto one = cluster::table(client, cluster::Kind::kTrainJob, ns, "a", {});
  REQUIRE(one);
  REQUIRE(one->at("rows").as_array().size() == 1);
  CHECK(one->at("rows").as_array()[0].at("cells").as_array()[0].as_string() == "a");

  cluster::GetOptions selected;
  selected.label_selector = "team=none";
  auto none = cluster::table(client, cluster::Kind::kTrainJob, ns, "", selected);
  REQUIRE(none);
  CHECK(none->at("rows").as_array().empty());
  auto bad_name = cluster::table(client, cluster::Kind::kTrainJob, ns, "a/b", {});
  REQUIRE_FALSE(bad_name);
  CHECK(bad_name.error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("table and list follow the server's pages past 500 objects") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-pages");
  auto client = client_for(server);
  apply_or_die(client, ns, kRuntime);
  auto resource = cluster::resource_of(client, cluster::Kind::kTrainJob);
  REQUIRE(resource);
  constexpr int kCount = 503;  // one page of 500 and a second one
  for (int i = 0; i < kCount; ++i) {
    const auto job = documents(train_job("j" + std::to_string(i)))[0];
    REQUIRE(client.create(*resource, ns, job.as_object()));
  }
  auto table = cluster::table(client, cluster::Kind::kTrainJob, ns, "", {});
  REQUIRE(table);
  CHECK(table->at("rows").as_array().size() == kCount);
  CHECK(table->at("metadata").as_object().if_contains("continue") == nullptr);
  std::set<std::string> names;
  for (const auto& row : table->at("rows").as_array()) {
    names.emplace(row.at("cells").as_array()[0].as_string());
  }
  CHECK(names.size() == kCount);
  auto list = cluster::list(client, cluster::Kind::kTrainJob, ns, {});
  REQUIRE(list);
  CHECK(list->at("items").as_array().size() == kCount);
}

TEST_CASE("watch of one TrainJob sees only its events") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "cluster-watch");
  auto client = client_for(server);
  apply_or_die(client, ns, kRuntime + "---\n" + train_job("a") + "---\n" + train_job("b"));
  cluster::WatchOptions options;
  options.name = "b";
  std::thread patcher([&] {
    std::this_thread::sleep_for(300ms);
    patch_status(server, ns, "a", "{\"conditions\":[" + condition("Failed") + "]}");
    patch_status(server, ns, "b", "{\"conditions\":[" + condition("Complete") + "]}");
  });
  std::vector<std::string> seen;
  std::thread stopper([token = options.cancel] {
    std::this_thread::sleep_for(20s);  // a bound, should the event never come
    token.cancel();
  });
  stopper.detach();
  auto watched = cluster::watch(client, ns, options, [&](const kube::WatchEvent& event) {
    if (event.type == kube::WatchEventType::kBookmark) return true;
    seen.push_back(std::string(kube::to_string(event.type)) + " " +
                   std::string(event.object.at("metadata").at("name").as_string()));
    return seen.size() < 2;
  });
  patcher.join();
  REQUIRE(watched);
  CHECK(seen == std::vector<std::string>{"ADDED b", "MODIFIED b"});
}

// ---- logs against the loopback fault server ------------------------------------------------

namespace {

const std::string kAggregated =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

// Discovery of a server that serves pods only, then the pod list.
void push_discovery_and_pods(FaultServer& fault, const std::string& pods_json) {
  fault.push(FaultResponse(
      200, {{"Content-Type", kAggregated}},
      R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[)"
      R"({"metadata":{"name":""},"versions":[{"version":"v1","resources":[)"
      R"({"resource":"pods","responseKind":{"group":"","version":"v1","kind":"Pod"},)"
      R"("scope":"Namespaced","singularResource":"pod","verbs":["get","list"]}]}]}]})"));
  fault.push(FaultResponse(
      200, {{"Content-Type", kAggregated}},
      R"({"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[]})"));
  fault.push(FaultResponse(
      200, {{"Content-Type", "application/json"}},
      R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[)" +
          pods_json + "]}"));
}

// A pod of the JobSet `mnist`: its replicated job, and the completion index as a label
// (PodIndexLabel) or only as the annotation.
std::string pod(const std::string& name, const std::string& rjob, int index, bool index_label) {
  const std::string idx =
      "\"batch.kubernetes.io/job-completion-index\":\"" + std::to_string(index) + "\"";
  return R"({"metadata":{"name":")" + name +
         R"(","namespace":"ns","labels":{)"
         R"("jobset.sigs.k8s.io/jobset-name":"mnist","jobset.sigs.k8s.io/replicatedjob-name":")" +
         rjob + R"(","jobset.sigs.k8s.io/job-index":"0")" + (index_label ? "," + idx : "") +
         R"(},"annotations":{)" + idx + R"(}},"spec":{"containers":[{"name":")" +
         (rjob == "node" ? "node" : rjob) + R"("},{"name":"sidecar"}]}})";
}

kube::Client client_for_fault(const FaultServer& fault) {
  kube::Config config;
  config.server = fault.url();
  config.token = "t";
  auto client = kube::Client::create(config, test_client_options());
  REQUIRE(client);
  return std::move(*client);
}

const std::string kPods = pod("mnist-node-0-1", "node", 1, false) + "," +
                          pod("mnist-dataset-initializer-0-0", "dataset-initializer", 0, true) +
                          "," + pod("mnist-node-0-0", "node", 0, true);

FaultResponse log_body(std::vector<FaultResponse::Piece> chunks, bool hold = false) {
  FaultResponse response;
  response.headers = {{"Content-Type", "text/plain"}};
  response.chunks = std::move(chunks);
  response.hold = hold;
  return response;
}

}  // namespace

TEST_CASE("logs: the trainer pods of the JobSet by its labels, in node order, container node") {
  FaultServer fault;
  auto client = client_for_fault(fault);
  push_discovery_and_pods(fault, kPods);
  fault.push(log_body({{0ms, "rank 0\n"}}));
  fault.push(log_body({{0ms, "rank 1\n"}}));
  std::string text;
  std::vector<std::string> pods;
  auto read = cluster::logs(client, "ns", "mnist", {}, [&](const cluster::LogChunk& chunk) {
    if (pods.empty() || pods.back() != chunk.pod) pods.emplace_back(chunk.pod);
    text += chunk.data;
    return true;
  });
  REQUIRE(read);
  CHECK(text == "rank 0\nrank 1\n");
  CHECK(pods == std::vector<std::string>{"mnist-node-0-0", "mnist-node-0-1"});
  const auto requests = fault.requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[2].target.find("/api/v1/namespaces/ns/pods?") == 0);
  CHECK(requests[2].target.find("labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dmnist") !=
        std::string::npos);
  CHECK(requests[3].target == "/api/v1/namespaces/ns/pods/mnist-node-0-0/log?container=node");
  CHECK(requests[4].target == "/api/v1/namespaces/ns/pods/mnist-node-0-1/log?container=node");
}

TEST_CASE("logs: --node N reads the pod of completion index N, label or annotation") {
  for (const int node : {0, 1}) {
    FaultServer fault;
    auto client = client_for_fault(fault);
    push_discovery_and_pods(fault, kPods);
    fault.push(log_body({{0ms, "only\n"}}));
    cluster::LogsOptions options;
    options.node = node;
    options.tail_lines = 5;
    auto read = cluster::logs(client, "ns", "mnist", options,
                              [](const cluster::LogChunk&) { return true; });
    REQUIRE(read);
    const auto requests = fault.requests();
    REQUIRE(requests.size() == 4);
    CHECK(requests[3].target == "/api/v1/namespaces/ns/pods/mnist-node-0-" + std::to_string(node) +
                                    "/log?container=node&tailLines=5");
  }
  FaultServer fault;
  auto client = client_for_fault(fault);
  push_discovery_and_pods(fault, kPods);
  cluster::LogsOptions options;
  options.node = 7;
  auto none =
      cluster::logs(client, "ns", "mnist", options, [](const cluster::LogChunk&) { return true; });
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ErrorCode::kNotFound);
  CHECK(none.error().message ==
        "TrainJob ns/mnist has no pod of replicated job \"node\" for node 7");
}

TEST_CASE("logs: a replicated job by name, and a TrainJob without pods") {
  FaultServer fault;
  auto client = client_for_fault(fault);
  push_discovery_and_pods(fault,
                          pod("mnist-dataset-initializer-0-0", "dataset-initializer", 0, true));
  fault.push(log_body({{0ms, "downloading\n"}}));
  cluster::LogsOptions options;
  options.replicated_job = "dataset-initializer";
  options.container = "dataset-initializer";
  std::string text;
  auto read = cluster::logs(client, "ns", "mnist", options, [&](const cluster::LogChunk& chunk) {
    text += chunk.data;
    return true;
  });
  REQUIRE(read);
  CHECK(text == "downloading\n");
  const auto requests = fault.requests();
  REQUIRE(requests.size() == 4);
  CHECK(requests[2].target.find("jobset.sigs.k8s.io%2Freplicatedjob-name%3Ddataset-initializer") !=
        std::string::npos);
  CHECK(
      requests[3].target ==
      "/api/v1/namespaces/ns/pods/mnist-dataset-initializer-0-0/log?container=dataset-initializer");

  FaultServer empty;
  auto empty_client = client_for_fault(empty);
  push_discovery_and_pods(empty, "");
  auto none =
      cluster::logs(empty_client, "ns", "mnist", {}, [](const cluster::LogChunk&) { return true; });
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ErrorCode::kNotFound);
}

TEST_CASE("logs -f: the pods are followed at once, and a callback's stop ends every stream") {
  FaultServer fault;
  auto client = client_for_fault(fault);
  push_discovery_and_pods(fault, kPods);
  // Both streams send a line and then stay open: only concurrent reading sees both lines.
  fault.push(log_body({{0ms, "first stream\n"}}, /*hold=*/true));
  fault.push(log_body({{0ms, "second stream\n"}}, /*hold=*/true));
  cluster::LogsOptions options;
  options.follow = true;
  std::set<std::string> pods;
  std::string text;
  const auto start = std::chrono::steady_clock::now();
  std::thread bound([token = options.cancel] {
    std::this_thread::sleep_for(30s);  // should the streams never deliver
    token.cancel();
  });
  bound.detach();
  auto read = cluster::logs(client, "ns", "mnist", options, [&](const cluster::LogChunk& chunk) {
    pods.emplace(chunk.pod);
    text += chunk.data;
    return pods.size() < 2;
  });
  REQUIRE(read);
  CHECK(pods == std::set<std::string>{"mnist-node-0-0", "mnist-node-0-1"});
  CHECK(text.find("first stream\n") != std::string::npos);
  CHECK(text.find("second stream\n") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < 20s);
  for (const auto& request : fault.requests()) {
    if (request.target.find("/log?") != std::string::npos) {
      CHECK(request.target.find("container=node&follow=true") != std::string::npos);
    }
  }
}

TEST_CASE("logs -f: the caller's cancellation ends every followed stream with kCancelled") {
  FaultServer fault;
  auto client = client_for_fault(fault);
  push_discovery_and_pods(fault, kPods);
  fault.push(log_body({{0ms, "a\n"}}, /*hold=*/true));
  fault.push(log_body({{0ms, "b\n"}}, /*hold=*/true));
  cluster::LogsOptions options;
  options.follow = true;
  std::thread canceller([token = options.cancel, &fault] {
    (void)fault.wait_for_requests(5, 10s);
    std::this_thread::sleep_for(200ms);
    token.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  std::mutex mutex;
  int chunks = 0;
  auto read = cluster::logs(client, "ns", "mnist", options, [&](const cluster::LogChunk&) {
    const std::lock_guard<std::mutex> lock(mutex);
    ++chunks;
    return true;
  });
  canceller.join();
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::kCancelled);
  CHECK(chunks == 2);
  CHECK(std::chrono::steady_clock::now() - start < 15s);
}
