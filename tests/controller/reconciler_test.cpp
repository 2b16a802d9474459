// SPDX-License-Identifier: Apache-2.0
// One reconcile (`controller::Reconciler`) against the real kube-apiserver: the objects the
// render builds appear with the TrainJob's real UID as owner, the test plays the JobSet
// controller by writing the JobSet's status, and the TrainJob's status follows upstream's steps
// (suspend/resume, the JobSet copy, the deadline, finished TrainJobs, managedBy, the Warning
// event of a failed apply, no write when nothing changed).
#include "support/api_server.hpp"
#include "support/cluster_data.hpp"
#include "support/test_client.hpp"
#include "trainer/cluster.hpp"
#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/plugin.hpp"
#include "trainer/render.hpp"
#include "trainer/runtimes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace std::chrono_literals;
namespace json = boost::json;
namespace cluster = trainer::cluster;
namespace controller = trainer::controller;
namespace kube = trainer::kube;
using trainer::ErrorCode;
using trainer::testing::admin_config;
using trainer::testing::ApiServer;
using trainer::testing::client_for;
using trainer::testing::test_client_options;

namespace {

void apply_yaml(kube::Client& client, const std::string& ns, const std::string& yaml) {
  auto docs = trainer::parse_documents(yaml);
  REQUIRE(docs);
  cluster::ApplyOptions options;
  options.namespace_ = ns;
  auto applied = cluster::apply(client, *docs, options);
  INFO((applied ? std::string() : kube::kubectl_text(applied.error())));
  REQUIRE(applied);
}

kube::Resource resource(kube::Client& client, std::string_view api_version, std::string_view kind) {
  auto r = client.resource_for(api_version, kind);
  REQUIRE(r);
  return *r;
}

std::optional<json::object> get(kube::Client& client, std::string_view api_version,
                                std::string_view kind, const std::string& ns,
                                const std::string& name) {
  auto r = resource(client, api_version, kind);
  auto object = client.get(r, r.namespaced ? ns : "", name);
  if (!object) {
    INFO(object.error().message);
    REQUIRE(object.error().code == ErrorCode::kNotFound);
    return std::nullopt;
  }
  return *object;
}

json::object trainjob(kube::Client& client, const std::string& ns, const std::string& name) {
  auto o = get(client, "trainer.kubeflow.org/v1alpha1", "TrainJob", ns, name);
  REQUIRE(o);
  return *o;
}

std::optional<json::object> jobset(kube::Client& client, const std::string& ns,
                                   const std::string& name) {
  return get(client, "jobset.x-k8s.io/v1alpha2", "JobSet", ns, name);
}

std::string resource_version(const json::object& o) {
  return std::string(o.at("metadata").at("resourceVersion").as_string());
}

// The JobSet controller's status write.
void patch_jobset_status(kube::Client& client, const std::string& ns, const std::string& name,
                         const std::string& status_json) {
  kube::WriteOptions write;
  write.subresource = "status";
  auto patched = client.patch(resource(client, "jobset.x-k8s.io/v1alpha2", "JobSet"), ns, name,
                              kube::PatchType::kMerge, R"({"status":)" + status_json + "}", write);
  INFO((patched ? std::string() : patched.error().message));
  REQUIRE(patched);
}

void patch_trainjob(kube::Client& client, const std::string& ns, const std::string& name,
                    const std::string& body) {
  auto patched = client.patch(resource(client, "trainer.kubeflow.org/v1alpha1", "TrainJob"), ns,
                              name, kube::PatchType::kMerge, body);
  INFO((patched ? std::string() : patched.error().message));
  REQUIRE(patched);
}

controller::ReconcileResult reconcile_ok(controller::Reconciler& r, const std::string& ns,
                                         const std::string& name) {
  auto result = r.reconcile(ns, name);
  INFO((result ? std::string() : result.error().message));
  REQUIRE(result);
  return *result;
}

// `type=status/reason` of the TrainJob's conditions, in list order.
std::vector<std::string> conditions(const json::object& job) {
  std::vector<std::string> out;
  const auto* status = job.if_contains("status");
  if (status == nullptr) return out;
  const auto* list = status->as_object().if_contains("conditions");
  if (list == nullptr) return out;
  for (const auto& c : list->as_array()) {
    out.push_back(std::string(c.at("type").as_string()) + "=" +
                  std::string(c.at("status").as_string()) + "/" +
                  std::string(c.at("reason").as_string()));
  }
  return out;
}

const std::string kRuntime = trainer::testing::small_runtime_yaml();

std::string train_job(const std::string& name, const std::string& extra = "") {
  return trainer::testing::small_train_job_yaml(name, extra);
}

const std::string kCompleted = R"({"conditions":[{"type":"Completed","status":"True",
  "reason":"AllJobsCompleted","message":"jobset completed successfully",
  "lastTransitionTime":"2026-01-01T00:09:00Z"}],
  "replicatedJobsStatus":[{"name":"node","ready":0,"succeeded":1,"failed":0,"active":0,
  "suspended":0}]})";

}  // namespace

TEST_CASE("a reconcile applies the rendered objects owned by the real TrainJob", "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-objects");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime + "---\n" + train_job("x"));
  const auto before = trainjob(client, ns, "x");
  const std::string uid(before.at("metadata").at("uid").as_string());

  controller::Reconciler reconciler(client);
  const auto first = reconcile_ok(reconciler, ns, "x");
  CHECK(first.key == ns + "/x");
  CHECK_FALSE(first.skipped);
  CHECK(first.applied ==
        std::vector<std::string>{"configmap/x-runtime-snapshot", "jobset.jobset.x-k8s.io/x"});
  // A never-suspended TrainJob whose JobSet reports nothing has nothing to write.
  CHECK_FALSE(first.status_patched);
  CHECK(first.conditions.empty());
  CHECK_FALSE(first.requeue_after);

  const auto js = jobset(client, ns, "x");
  REQUIRE(js);
  const auto& owners = js->at("metadata").at("ownerReferences").as_array();
  REQUIRE(owners.size() == 1);
  CHECK(owners[0].at("uid") == uid.c_str());
  CHECK(owners[0].at("kind") == "TrainJob");
  CHECK(owners[0].at("apiVersion") == "trainer.kubeflow.org/v1alpha1");
  CHECK(owners[0].at("controller") == true);
  CHECK(owners[0].at("blockOwnerDeletion") == true);
  CHECK(js->at("spec").at("suspend") == false);
  const auto managers = js->at("metadata").at("managedFields").as_array();
  REQUIRE_FALSE(managers.empty());
  CHECK(managers[0].at("manager") == "trainer");
  CHECK(managers[0].at("operation") == "Apply");

  const auto snapshot = get(client, "v1", "ConfigMap", ns, "x-runtime-snapshot");
  REQUIRE(snapshot);
  CHECK(snapshot->at("metadata").at("ownerReferences").at(0).at("uid") == uid.c_str());
  CHECK(std::string(snapshot->at("data").at("runtime").as_string()).find("torch-small") !=
        std::string::npos);

  // Again: the running JobSet is not re-applied, the snapshot exists, the status is unchanged:
  // nothing is written at all.
  const auto js_version = resource_version(*js);
  const auto job_version = resource_version(trainjob(client, ns, "x"));
  const auto second = reconcile_ok(reconciler, ns, "x");
  CHECK(second.applied.empty());
  CHECK_FALSE(second.status_patched);
  CHECK(resource_version(trainjob(client, ns, "x")) == job_version);
  CHECK(resource_version(*jobset(client, ns, "x")) == js_version);

  // A TrainJob that does not exist is skipped, not an error.
  const auto gone = reconcile_ok(reconciler, ns, "nope");
  CHECK(gone.skipped);
}

TEST_CASE("the TrainJob status follows the JobSet's: counters, Failed with restarts",
          "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-status");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime + "---\n" + train_job("x"));
  controller::Reconciler reconciler(client);
  reconcile_ok(reconciler, ns, "x");

  patch_jobset_status(client, ns, "x", R"({"replicatedJobsStatus":[
      {"name":"node","ready":1,"succeeded":0,"failed":1,"active":2,"suspended":0}]})");
  auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.status_patched);
  auto job = trainjob(client, ns, "x");
  CHECK(json::serialize(job.at("status").at("jobsStatus")) ==
        R"([{"active":2,"failed":1,"name":"node","ready":1,"succeeded":0,"suspended":0}])");
  CHECK(conditions(job).empty());
  // The same JobSet status again: no write.
  const auto version = resource_version(job);
  r = reconcile_ok(reconciler, ns, "x");
  CHECK_FALSE(r.status_patched);
  CHECK(resource_version(trainjob(client, ns, "x")) == version);

  patch_jobset_status(client, ns, "x", R"({"restarts":3,"conditions":[
      {"type":"Failed","status":"True","reason":"ReachedMaxRestarts",
       "message":"jobset failed due to reaching max number of restarts",
       "lastTransitionTime":"2026-01-01T00:05:00Z"}],
      "replicatedJobsStatus":[
      {"name":"node","ready":0,"succeeded":0,"failed":2,"active":0,"suspended":0}]})");
  r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.status_patched);
  job = trainjob(client, ns, "x");
  REQUIRE(conditions(job) == std::vector<std::string>{"Failed=True/ReachedMaxRestarts"});
  const auto& failed = job.at("status").at("conditions").at(0);
  CHECK(failed.at("message") == "jobset failed due to reaching max number of restarts");
  CHECK(failed.at("lastTransitionTime") == "2026-01-01T00:05:00Z");
  CHECK(job.at("status").at("jobsStatus").at(0).at("failed") == 2);
  // Finished: nothing is applied any more.
  r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.applied.empty());
  CHECK_FALSE(r.status_patched);
}

TEST_CASE(
    "suspend then resume: the JobSet's suspend follows, Suspended then Resumed, Complete last",
    "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-suspend");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime + "---\n" + train_job("x", "  suspend: true\n"));
  controller::Reconciler reconciler(client);

  auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.status_patched);
  CHECK(jobset(client, ns, "x")->at("spec").at("suspend") == true);
  auto job = trainjob(client, ns, "x");
  REQUIRE(conditions(job) == std::vector<std::string>{"Suspended=True/Suspended"});
  CHECK(job.at("status").at("conditions").at(0).at("message") == "TrainJob is suspended");
  // While suspended the JobSet is applied on every reconcile; the status does not change.
  r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.applied == std::vector<std::string>{"jobset.jobset.x-k8s.io/x"});
  CHECK_FALSE(r.status_patched);

  patch_trainjob(client, ns, "x", R"({"spec":{"suspend":false}})");
  r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.applied == std::vector<std::string>{"jobset.jobset.x-k8s.io/x"});
  CHECK(r.status_patched);
  CHECK(jobset(client, ns, "x")->at("spec").at("suspend") == false);
  job = trainjob(client, ns, "x");
  REQUIRE(conditions(job) == std::vector<std::string>{"Suspended=False/Resumed"});
  CHECK(job.at("status").at("conditions").at(0).at("message") == "TrainJob is resumed");

  patch_jobset_status(client, ns, "x", kCompleted);
  r = reconcile_ok(reconciler, ns, "x");
  job = trainjob(client, ns, "x");
  // The State printer column shows the last condition: Complete.
  REQUIRE(conditions(job) ==
          std::vector<std::string>{"Suspended=False/Resumed", "Complete=True/AllJobsCompleted"});
  CHECK(job.at("status").at("conditions").at(1).at("lastTransitionTime") == "2026-01-01T00:09:00Z");
  CHECK(r.conditions.size() == 2);
}

TEST_CASE("a finished TrainJob whose JobSet was deleted keeps its status and gets no JobSet",
          "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-finished");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime + "---\n" + train_job("x"));
  controller::Reconciler reconciler(client);
  reconcile_ok(reconciler, ns, "x");
  patch_jobset_status(client, ns, "x", kCompleted);
  reconcile_ok(reconciler, ns, "x");
  const auto done = trainjob(client, ns, "x");
  REQUIRE(conditions(done) == std::vector<std::string>{"Complete=True/AllJobsCompleted"});

  // The JobSet's TTL deletes it.
  kube::DeleteOptions del;
  del.propagation = kube::Propagation::kBackground;
  REQUIRE(client.remove(resource(client, "jobset.x-k8s.io/v1alpha2", "JobSet"), ns, "x", del));
  REQUIRE_FALSE(jobset(client, ns, "x"));

  const auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.applied.empty());
  CHECK_FALSE(r.status_patched);
  CHECK_FALSE(jobset(client, ns, "x"));
  const auto after = trainjob(client, ns, "x");
  CHECK(resource_version(after) == resource_version(done));
  CHECK(json::serialize(after.at("status")) == json::serialize(done.at("status")));
}

TEST_CASE("an expired activeDeadlineSeconds fails the TrainJob and deletes its JobSet",
          "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-deadline");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime + "---\n" + train_job("x", "  activeDeadlineSeconds: 600\n"));

  // Pending: requeue after what is left (at most the deadline).
  controller::Reconciler reconciler(client);
  auto r = reconcile_ok(reconciler, ns, "x");
  REQUIRE(r.requeue_after);
  CHECK(*r.requeue_after <= 600s);
  CHECK(*r.requeue_after >= 500s);
  REQUIRE(jobset(client, ns, "x"));
  CHECK(conditions(trainjob(client, ns, "x")).empty());

  // An hour later.
  controller::ReconcilerOptions options;
  options.now = [] { return controller::Clock::now() + 1h; };
  controller::Reconciler later(client, options);
  r = reconcile_ok(later, ns, "x");
  CHECK_FALSE(r.requeue_after);
  CHECK(r.status_patched);
  CHECK_FALSE(jobset(client, ns, "x"));
  auto job = trainjob(client, ns, "x");
  REQUIRE(conditions(job) == std::vector<std::string>{"Failed=True/DeadlineExceeded"});
  CHECK(job.at("status").at("conditions").at(0).at("message") ==
        "TrainJob exceeded its active deadline");

  // Finished: the JobSet is not created again, the status stays.
  r = reconcile_ok(later, ns, "x");
  CHECK(r.applied.empty());
  CHECK_FALSE(r.status_patched);
  CHECK_FALSE(jobset(client, ns, "x"));
  CHECK(resource_version(trainjob(client, ns, "x")) == resource_version(job));
}

TEST_CASE("an existing MPI Secret is reused, not replaced", "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-mpi");
  auto client = client_for(server);
  // The built-in deepspeed-distributed runtime, as a TrainingRuntime of the namespace.
  const auto manifest = trainer::find_builtin_runtime("deepspeed-distributed");
  REQUIRE(manifest);
  auto docs = trainer::parse_documents(*manifest);
  REQUIRE(docs);
  REQUIRE(docs->size() == 1);
  auto& runtime = (*docs)[0].as_object();
  runtime["kind"] = json::string("TrainingRuntime");
  runtime["metadata"].as_object()["namespace"] = ns;
  apply_yaml(client, ns, trainer::encode_yaml((*docs)[0]));
  apply_yaml(client, ns,
             "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: x\n"
             "spec:\n  suspend: true\n  runtimeRef:\n    name: deepspeed-distributed\n"
             "    kind: TrainingRuntime\n  trainer:\n    numNodes: 2\n"
             "---\n"
             "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: other\n"
             "spec:\n  suspend: true\n  runtimeRef:\n    name: deepspeed-distributed\n"
             "    kind: TrainingRuntime\n  trainer:\n    numNodes: 2\n");
  // other's Secret exists before the first reconcile.
  auto secrets = resource(client, "v1", "Secret");
  REQUIRE(client.create(secrets, ns,
                        json::parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":
                          "other-mpi-ssh-auth"},"data":{"id_rsa":"b3Vycw=="}})")
                            .as_object()));

  controller::Reconciler reconciler(client);
  auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(std::find(r.applied.begin(), r.applied.end(), "secret/x-mpi-ssh-auth") != r.applied.end());
  CHECK(std::find(r.applied.begin(), r.applied.end(), "configmap/x-mpi-hostfile") !=
        r.applied.end());
  const auto secret = get(client, "v1", "Secret", ns, "x-mpi-ssh-auth");
  REQUIRE(secret);
  // Suspended: the JobSet is applied again, the Secret is not.
  r = reconcile_ok(reconciler, ns, "x");
  CHECK(std::find(r.applied.begin(), r.applied.end(), "jobset.jobset.x-k8s.io/x") !=
        r.applied.end());
  CHECK(std::find(r.applied.begin(), r.applied.end(), "secret/x-mpi-ssh-auth") == r.applied.end());
  const auto again = get(client, "v1", "Secret", ns, "x-mpi-ssh-auth");
  REQUIRE(again);
  CHECK(resource_version(*again) == resource_version(*secret));
  CHECK(json::serialize(again->at("data")) == json::serialize(secret->at("data")));

  r = reconcile_ok(reconciler, ns, "other");
  CHECK(std::find(r.applied.begin(), r.applied.end(), "secret/other-mpi-ssh-auth") ==
        r.applied.end());
  REQUIRE(jobset(client, ns, "other"));
  CHECK(json::serialize(get(client, "v1", "Secret", ns, "other-mpi-ssh-auth")->at("data")) ==
        R"({"id_rsa":"b3Vycw=="})");
}

TEST_CASE("a TrainJob managed by another controller is left alone", "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-managed");
  auto client = client_for(server);
  apply_yaml(client, ns,
             kRuntime + "---\n" +
                 train_job("x", "  suspend: true\n  managedBy: kueue.x-k8s.io/multikueue\n"));
  controller::Reconciler reconciler(client);
  const auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.skipped);
  CHECK(r.applied.empty());
  CHECK_FALSE(r.status_patched);
  CHECK_FALSE(jobset(client, ns, "x"));
  CHECK_FALSE(get(client, "v1", "ConfigMap", ns, "x-runtime-snapshot"));
  CHECK_FALSE(trainjob(client, ns, "x").contains("status"));
}

TEST_CASE("an unsupported runtime kind fails the TrainJob with TrainingRuntimeNotSupported",
          "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-unsupported");
  auto client = client_for(server);
  // Written directly: admission (the webhook) would refuse it.
  REQUIRE(
      client.create(resource(client, "trainer.kubeflow.org/v1alpha1", "TrainJob"), ns,
                    json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"x"},"spec":{"runtimeRef":{"name":"r","apiGroup":"example.com",
        "kind":"Runtime"}}})")
                        .as_object()));
  controller::Reconciler reconciler(client);
  auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.status_patched);
  CHECK(r.applied.empty());
  auto job = trainjob(client, ns, "x");
  REQUIRE(conditions(job) == std::vector<std::string>{"Failed=True/TrainingRuntimeNotSupported"});
  CHECK(job.at("status").at("conditions").at(0).at("message") ==
        "unsupported runtime: Runtime.example.com");
  r = reconcile_ok(reconciler, ns, "x");
  CHECK_FALSE(r.status_patched);
}

TEST_CASE("a failed apply stops the reconcile and records the Warning event", "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-event");
  auto admin = client_for(server);
  apply_yaml(admin, ns, kRuntime + "---\n" + train_job("x"));

  // A controller whose RBAC lets it read JobSets but not write them.
  const std::string user = "c1-limited-" + ns;
  auto roles = resource(admin, "rbac.authorization.k8s.io/v1", "Role");
  auto bindings = resource(admin, "rbac.authorization.k8s.io/v1", "RoleBinding");
  REQUIRE(admin.create(roles, ns,
                       json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
    "kind":"Role","metadata":{"name":"limited"},"rules":[
    {"apiGroups":["trainer.kubeflow.org"],"resources":["trainjobs","trainingruntimes"],
     "verbs":["get"]},
    {"apiGroups":["trainer.kubeflow.org"],"resources":["trainjobs/status"],"verbs":["patch"]},
    {"apiGroups":[""],"resources":["configmaps"],"verbs":["get","create","patch"]},
    {"apiGroups":[""],"resources":["secrets"],"verbs":["get"]},
    {"apiGroups":["jobset.x-k8s.io"],"resources":["jobsets"],"verbs":["get"]},
    {"apiGroups":["","events.k8s.io"],"resources":["events"],"verbs":["create"]}]})")
                           .as_object()));
  REQUIRE(admin.create(bindings, ns,
                       json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
    "kind":"RoleBinding","metadata":{"name":"limited"},
    "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"limited"},
    "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":")" +
                                   user + R"("}]})")
                           .as_object()));
  auto config = admin_config(server);
  config.impersonate_user = user;
  auto limited_client = kube::Client::create(config, test_client_options());
  REQUIRE(limited_client);
  auto& limited = *limited_client;

  controller::Reconciler reconciler(limited);
  const auto r = reconciler.reconcile(ns, "x");
  REQUIRE_FALSE(r);
  CHECK(r.error().code == ErrorCode::kForbidden);
  INFO(r.error().message);
  CHECK(r.error().message.rfind("jobsets.jobset.x-k8s.io \"x\" is forbidden: User \"" + user +
                                    "\" cannot patch resource \"jobsets\"",
                                0) == 0);
  // The snapshot came first and was applied; the JobSet was not.
  CHECK(get(admin, "v1", "ConfigMap", ns, "x-runtime-snapshot"));
  CHECK_FALSE(jobset(admin, ns, "x"));

  auto events = admin.list(resource(admin, "events.k8s.io/v1", "Event"), ns);
  REQUIRE(events);
  const auto& items = events->at("items").as_array();
  REQUIRE(items.size() == 1);
  const auto& e = items[0].as_object();
  CHECK(e.at("type") == "Warning");
  CHECK(e.at("reason") == "TrainJobResourcesCreationFailed");
  CHECK(e.at("action") == "Reconciling");
  CHECK(e.at("reportingController") == "trainer-trainjob-controller");
  const std::string note(e.at("note").as_string());
  CHECK(note.rfind("TrainJob resources reconciliation failed: jobsets.jobset.x-k8s.io \"x\" is "
                   "forbidden: ",
                   0) == 0);
  CHECK(e.at("regarding").at("uid") == trainjob(admin, ns, "x").at("metadata").at("uid"));
  CHECK(e.at("regarding").at("kind") == "TrainJob");
  // The core/v1 view the Kubeflow SDK's get_job_events reads: it skips events without
  // firstTimestamp.
  auto core = admin.list(resource(admin, "v1", "Event"), ns);
  REQUIRE(core);
  REQUIRE(core->at("items").as_array().size() == 1);
  const auto& c = core->at("items").as_array()[0].as_object();
  CHECK(c.at("involvedObject").at("name") == "x");
  CHECK(c.at("message") == e.at("note"));
  CHECK(c.at("firstTimestamp").is_string());
  CHECK(c.at("count") == 1);
  CHECK(c.at("source").at("component") == "trainer-trainjob-controller");
  CHECK(c.at("reportingComponent") == "trainer-trainjob-controller");
}

TEST_CASE("the runtime snapshot outlives the runtime; without either the reconcile fails",
          "[controller]") {
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-snapshot");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime + "---\n" + train_job("x", "  suspend: true\n"));
  controller::Reconciler reconciler(client);
  reconcile_ok(reconciler, ns, "x");
  REQUIRE(get(client, "v1", "ConfigMap", ns, "x-runtime-snapshot"));

  // The runtime goes; the suspended TrainJob's JobSet is still rendered, from the snapshot.
  REQUIRE(client.remove(resource(client, "trainer.kubeflow.org/v1alpha1", "TrainingRuntime"), ns,
                        "torch-small"));
  auto r = reconcile_ok(reconciler, ns, "x");
  CHECK(r.applied == std::vector<std::string>{"jobset.jobset.x-k8s.io/x"});

  // A TrainJob whose runtime does not exist (written past admission): upstream's error, and the
  // Warning event names it.
  REQUIRE(
      client.create(resource(client, "trainer.kubeflow.org/v1alpha1", "TrainJob"), ns,
                    json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"orphan"},"spec":{"runtimeRef":{"name":"missing",
        "kind":"TrainingRuntime"}}})")
                        .as_object()));
  auto failed = reconciler.reconcile(ns, "orphan");
  REQUIRE_FALSE(failed);
  const std::string expected =
      "TrainingRuntime specified in TrainJob is not found: trainingruntimes.trainer.kubeflow.org "
      "\"missing\" not found";
  CHECK(failed.error().message.rfind(expected, 0) == 0);
  CHECK_FALSE(jobset(client, ns, "orphan"));
  CHECK_FALSE(get(client, "v1", "ConfigMap", ns, "orphan-runtime-snapshot"));
  auto events = client.list(resource(client, "events.k8s.io/v1", "Event"), ns);
  REQUIRE(events);
  REQUIRE(events->at("items").as_array().size() == 1);
  const auto& e = events->at("items").at(0);
  CHECK(e.at("regarding").at("name") == "orphan");
  CHECK(std::string(e.at("note").as_string()) ==
        "TrainJob resources reconciliation failed: " + expected);

  // With events off, nothing more is recorded.
  controller::ReconcilerOptions quiet;
  quiet.record_events = false;
  controller::Reconciler silent(client, quiet);
  REQUIRE_FALSE(silent.reconcile(ns, "orphan"));
  events = client.list(resource(client, "events.k8s.io/v1", "Event"), ns);
  REQUIRE(events);
  CHECK(events->at("items").as_array().size() == 1);
}

TEST_CASE("defence in depth: a TrainJob admission refuses gets no objects, Failed and an event",
          "[controller]") {
  // Created while no webhook is installed: the reconciler admits before rendering, with the
  // built-in plugins' rules and those of a loaded plugin (the numnodes test plugin).
  auto& server = ApiServer::shared();
  const auto ns = trainer::testing::unique_namespace(server, "rec-refused");
  auto client = client_for(server);
  apply_yaml(client, ns, kRuntime);
  const auto train_jobs = resource(client, "trainer.kubeflow.org/v1alpha1", "TrainJob");
  auto create = [&](const std::string& name, const std::string& trainer) {
    auto created = client.create(
        train_jobs, ns,
        json::parse(R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
          "metadata":{"name":")" +
                    name + R"("},"spec":{"runtimeRef":{"name":"torch-small",
          "kind":"TrainingRuntime"},"trainer":)" +
                    trainer + "}}")
            .as_object());
    INFO((created ? std::string() : kube::kubectl_text(created.error())));
    REQUIRE(created);
  };
  create("reserved", R"({"numNodes":2,"env":[{"name":"PET_NNODES","value":"9"}]})");
  create("wide", R"({"numNodes":5})");

  auto plugin = trainer::load_plugin(NUMNODES_PLUGIN);
  REQUIRE(plugin);
  std::vector<std::shared_ptr<trainer::Plugin>> extra;
  extra.push_back(std::move(*plugin));
  auto framework = trainer::Framework::with_plugins({}, std::move(extra));
  REQUIRE(framework);
  controller::ReconcilerOptions options;
  options.framework = std::make_shared<const trainer::Framework>(std::move(*framework));
  controller::Reconciler reconciler(client, options);

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"reserved",
       "spec.trainer.env: Invalid value: [{\"name\":\"PET_NNODES\",\"value\":\"9\"}]: must not "
       "have reserved envs, invalid envs configured: [PET_NNODES]"},
      {"wide", "spec.trainer.numNodes: Invalid value: 5: must be at most 4"}};
  for (const auto& [name, text] : cases) {
    INFO(name);
    auto r = reconcile_ok(reconciler, ns, name);
    CHECK(r.applied.empty());
    CHECK(r.status_patched);
    auto job = trainjob(client, ns, name);
    REQUIRE(conditions(job) == std::vector<std::string>{"Failed=True/TrainJobValidationFailed"});
    CHECK(std::string(job.at("status").at("conditions").at(0).at("message").as_string()) == text);
    CHECK_FALSE(jobset(client, ns, name));
    CHECK_FALSE(get(client, "v1", "ConfigMap", ns, name + "-runtime-snapshot"));
    // Terminal: a second pass writes nothing and renders nothing.
    r = reconcile_ok(reconciler, ns, name);
    CHECK_FALSE(r.status_patched);
    CHECK(r.applied.empty());
  }
  auto events = client.list(resource(client, "events.k8s.io/v1", "Event"), ns);
  REQUIRE(events);
  std::vector<std::string> notes;
  for (const auto& item : events->at("items").as_array()) {
    CHECK(item.at("type") == "Warning");
    CHECK(item.at("reason") == "TrainJobValidationFailed");
    notes.emplace_back(item.at("note").as_string());
  }
  REQUIRE(notes.size() >= 2);
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("must be at most 4") != std::string::npos;
  }));
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("invalid envs configured: [PET_NNODES]") != std::string::npos;
  }));
}
