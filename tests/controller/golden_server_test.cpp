// SPDX-License-Identifier: Apache-2.0
//
// Every golden case that renders objects (tests/golden/cases/), run by the controller against
// the real API server: the case's inputs are created in a namespace of its own, the Reconciler
// reconciles the TrainJob once, and the objects read back from the server are compared with the
// case's expected objects under the golden comparison rule (semantic_compare.hpp). The expected
// objects first go through a server-side dry-run apply (into an empty namespace), so the
// server's defaults (CRD schema defaults, quantity canonical forms, pod defaults) count on both
// sides. Owner references carry the real TrainJob's UID, the namespace is the case's own.
//
// One Catch2 test per case folder, registered from the folder listing, so a new case is a new
// test. Rejected cases (expected/error.txt) are not here: no admission webhook runs in front of
// this server (golden.validate covers their faces).
#include "golden_case.hpp"
#include "semantic_compare.hpp"

#include "flux/flux_detail.hpp"
#include "support/api_server.hpp"
#include "trainer/base64.hpp"
#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/kube.hpp"
#include "trainer/ssh.hpp"

#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
namespace kube = trainer::kube;

// The kinds the controller creates for a TrainJob (conformance README, "Expected objects"):
// listed after the reconcile so an object the case does not expect is reported too.
constexpr std::pair<const char*, const char*> kOwnedKinds[] = {
    {"jobset.x-k8s.io/v1alpha2", "JobSet"},
    {"scheduling.x-k8s.io/v1alpha1", "PodGroup"},
    {"scheduling.volcano.sh/v1beta1", "PodGroup"},
    {"v1", "ConfigMap"},
    {"v1", "Secret"},
};

std::string str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

// (object::operator[] may rehash even for a key that exists: pointers into `o` stay valid only
// when `metadata` is looked up first.)
json::object& metadata(json::object& o) {
  if (auto* m = o.if_contains("metadata"); m != nullptr && m->is_object()) return m->as_object();
  o["metadata"] = json::object{};
  return o["metadata"].as_object();
}

std::string identity(const json::object& o) {
  const auto* m = o.if_contains("metadata");
  const json::object empty;
  const auto& meta = m != nullptr && m->is_object() ? m->get_object() : empty;
  return str(o, "apiVersion") + " " + str(o, "kind") + " " + str(meta, "namespace") + "/" +
         str(meta, "name");
}

kube::Client make_client(trainer::testing::ApiServer& server) {
  kube::LoadOptions load;
  load.kubeconfig = server.kubeconfig();
  auto config = kube::load_config(load);
  REQUIRE(config);
  kube::ClientOptions options;
  options.qps = -1;
  auto client = kube::Client::create(std::move(*config), options);
  REQUIRE(client);
  return std::move(*client);
}

kube::Resource resource_of(kube::Client& client, const json::object& o) {
  auto r = client.resource_for(str(o, "apiVersion"), str(o, "kind"));
  INFO(identity(o));
  REQUIRE(r);
  return *r;
}

std::vector<json::object> parse_objects(const std::string& text) {
  std::vector<json::object> out;
  if (text.empty()) return out;
  auto docs = trainer::parse_documents(text);
  REQUIRE(docs);
  for (auto& d : *docs) {
    if (d.is_object()) out.push_back(std::move(d.as_object()));
  }
  return out;
}

// Cluster-scoped inputs (a ClusterTrainingRuntime, a PriorityClass) are shared by every test on
// the server and several cases use the same names with different contents: a case that writes
// one holds this lock (a file in the server's folder) for its whole run. Bounded: 200 s.
class ClusterScopeLock {
 public:
  explicit ClusterScopeLock(const std::string& path)
      : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600)) {
    REQUIRE(fd_ >= 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(200);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      REQUIRE(std::chrono::steady_clock::now() < deadline);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~ClusterScopeLock() { ::close(fd_); }
  ClusterScopeLock(const ClusterScopeLock&) = delete;
  ClusterScopeLock& operator=(const ClusterScopeLock&) = delete;

 private:
  int fd_;
};

// Creates a namespaced input as a user would (POST); a cluster-scoped one is applied, so an
// earlier run's copy is brought to this case's content.
json::object create_input(kube::Client& client, json::object object, const std::string& ns) {
  const kube::Resource resource = resource_of(client, object);
  INFO("creating " << identity(object));
  if (!resource.namespaced) {
    kube::ApplyOptions apply;
    apply.field_manager = "golden-inputs";
    apply.force = true;
    auto applied = client.apply(resource, "", object, apply);
    INFO((applied ? "" : kube::kubectl_text(applied.error())));
    REQUIRE(applied);
    return *applied;
  }
  std::string object_ns = str(metadata(object), "namespace");
  if (object_ns.empty()) object_ns = ns;
  auto created = client.create(resource, object_ns, object);
  INFO((created ? "" : kube::kubectl_text(created.error())));
  REQUIRE(created);
  return *created;
}

// The MPI Secret's key pair is generated per TrainJob: the actual pair must be a valid P-521
// pair (the public line the private key's half); the expected placeholders become it.
void fill_ssh_keys(kube::Client& client, json::object& expected, const std::string& ns) {
  const std::string name = str(metadata(expected), "name");
  auto* data = expected.if_contains("data");
  if (data == nullptr || !data->is_object()) return;
  auto& d = data->as_object();
  const auto* priv = d.if_contains("ssh-privatekey");
  if (priv == nullptr || *priv != "__SSH_PRIVATE_KEY_PEM__") return;
  auto actual = client.get(resource_of(client, expected), ns, name);
  if (!actual) return;  // reported as missing by the comparison
  const auto* actual_data = actual->if_contains("data");
  REQUIRE((actual_data != nullptr && actual_data->is_object()));
  const auto& ad = actual_data->get_object();
  const std::string priv_b64 = str(ad, "ssh-privatekey");
  const std::string pub_b64 = str(ad, "ssh-publickey");
  const auto pem = trainer::base64_decode(priv_b64);
  const auto pub = trainer::base64_decode(pub_b64);
  REQUIRE(pem);
  REQUIRE(pub);
  auto pair = trainer::ssh_key_pair_from_private_key(*pem);
  INFO((pair ? "" : pair.error().message));
  REQUIRE(pair);
  CHECK(pair->private_key_pem == *pem);
  CHECK(pair->authorized_key == *pub);
  const auto* pub_placeholder = d.if_contains("ssh-publickey");
  const bool fill_pub = pub_placeholder != nullptr && *pub_placeholder == "__SSH_AUTHORIZED_KEY__";
  d["ssh-privatekey"] = priv_b64;
  if (fill_pub) d["ssh-publickey"] = pub_b64;
}

// Flux's CURVE certificate derives from the TrainJob's UID: the expected file holds the one of
// the render runner's fixed UID; here it is the one of the real UID, by the same derivation.
void fill_flux_curve(json::object& expected, const std::string& job_name, const std::string& uid) {
  auto* data = expected.if_contains("data");
  if (str(expected, "kind") != "Secret" || data == nullptr || !data->is_object() ||
      data->as_object().if_contains("curve.cert") == nullptr) {
    return;
  }
  auto keys = trainer::plugins::detail::flux_curve_key_pair(uid);
  REQUIRE(keys);
  data->as_object()["curve.cert"] =
      trainer::base64_encode(trainer::plugins::detail::flux_curve_cert(job_name, *keys));
}

// The expected object as the server stores it: a dry-run apply into an empty namespace.
json::value dry_run(kube::Client& client, json::object expected, const std::string& dry_ns) {
  const std::string ns = str(metadata(expected), "namespace");
  metadata(expected)["namespace"] = dry_ns;
  kube::ApplyOptions apply;
  apply.field_manager = "golden-expected";
  apply.force = true;
  apply.dry_run = true;
  auto stored = client.apply(resource_of(client, expected), dry_ns, expected, apply);
  INFO("dry-run of expected " << identity(expected) << ": "
                              << (stored ? "" : kube::kubectl_text(stored.error())));
  REQUIRE(stored);
  metadata(*stored)["namespace"] = ns;
  return json::value(std::move(*stored));
}

bool owned_by(const json::object& o, const std::string& uid) {
  const auto* m = o.if_contains("metadata");
  const auto* refs =
      m != nullptr && m->is_object() ? m->get_object().if_contains("ownerReferences") : nullptr;
  if (refs == nullptr || !refs->is_array()) return false;
  for (const auto& r : refs->get_array()) {
    if (r.is_object() && str(r.get_object(), "uid") == uid) return true;
  }
  return false;
}

// What the server holds after the reconcile: every expected object, and every object of the
// controller's kinds the TrainJob owns (those the case created itself excepted).
std::vector<json::value> actual_objects(kube::Client& client,
                                        const std::vector<json::object>& expected,
                                        const std::set<std::string>& inputs, const std::string& ns,
                                        const std::string& uid) {
  std::vector<json::value> out;
  std::set<std::string> seen;
  for (const auto& e : expected) {
    json::object copy = e;
    auto got = client.get(resource_of(client, copy), ns, str(metadata(copy), "name"));
    if (!got) {
      INFO(identity(e) << ": " << kube::kubectl_text(got.error()));
      REQUIRE(got.error().code == trainer::ErrorCode::kNotFound);
      continue;
    }
    seen.insert(identity(*got));
    out.emplace_back(std::move(*got));
  }
  for (const auto& [api_version, kind] : kOwnedKinds) {
    auto resource = client.resource_for(api_version, kind);
    REQUIRE(resource);
    auto list = client.list(*resource, ns);
    REQUIRE(list);
    for (auto& item : list->at("items").as_array()) {
      auto& o = item.as_object();
      // List items carry no apiVersion/kind.
      o["apiVersion"] = api_version;
      o["kind"] = kind;
      const std::string id = identity(o);
      if (!owned_by(o, uid) || seen.count(id) != 0 || inputs.count(id) != 0) continue;
      seen.insert(id);
      out.push_back(item);
    }
  }
  return out;
}

void run_case(const fs::path& dir) {
  auto& server = trainer::testing::ApiServer::shared();  // exits 77 (skipped) without a bundle
  auto golden_case = golden::read_case(dir);
  INFO(dir.string());
  REQUIRE(golden_case);
  const golden::Case& c = *golden_case;

  kube::Client client = make_client(server);
  const std::string ns = trainer::testing::unique_namespace(server, "golden");
  const std::string operator_ns = trainer::testing::unique_namespace(server, "golden-op");
  const std::string dry_ns = trainer::testing::unique_namespace(server, "golden-dry");
  // The case's `default` namespace (also inside URLs and DNS names) becomes its own, the
  // operator's namespace (the webhook certificate's Secret) another one of its own.
  golden::Substitutions place{{"namespace: default\n", "namespace: " + ns + "\n"},
                              {"/namespaces/default/", "/namespaces/" + ns + "/"},
                              {".default.svc", "." + ns + ".svc"},
                              {"kubeflow-system", operator_ns}};

  // Inputs: the runtime and the TrainJob, then the preconditions (they may name its UID).
  std::vector<json::object> first = parse_objects(golden::replace_all(c.runtime, place));
  const auto jobs = parse_objects(golden::replace_all(c.trainjob, place));
  REQUIRE(jobs.size() == 1);
  bool cluster_scoped = false;
  for (const auto& o : first) cluster_scoped = cluster_scoped || !resource_of(client, o).namespaced;
  const auto preconditions_probe = parse_objects(golden::replace_all(c.preconditions, place));
  for (const auto& o : preconditions_probe) {
    cluster_scoped = cluster_scoped || !resource_of(client, o).namespaced;
  }
  std::unique_ptr<ClusterScopeLock> lock;
  if (cluster_scoped) lock = std::make_unique<ClusterScopeLock>(server.dir() + "/golden.lock");

  for (auto& o : first) (void)create_input(client, std::move(o), ns);
  json::object job = create_input(client, jobs.front(), ns);
  const std::string job_name = str(metadata(job), "name");
  const std::string uid = str(metadata(job), "uid");
  REQUIRE(!uid.empty());
  place.emplace_back("TRAINJOB_UID", uid);
  std::set<std::string> inputs;
  for (auto& o : parse_objects(golden::replace_all(c.preconditions, place))) {
    inputs.insert(identity(create_input(client, std::move(o), ns)));
  }

  trainer::controller::ReconcilerOptions options;
  trainer::OperatorConfig config;
  config.operator_namespace = operator_ns;
  options.framework = std::make_shared<const trainer::Framework>(
      trainer::default_framework(c.feature_gates).with_config(config));
  trainer::controller::Reconciler reconciler(client, options);
  auto result = reconciler.reconcile(ns, job_name);
  INFO("reconcile: " << (result ? "ok" : kube::kubectl_text(result.error())));
  REQUIRE(result);

  auto expected_text = golden::expected_objects(c, place);
  REQUIRE(expected_text);
  std::vector<json::object> expected;
  for (auto& v : *expected_text) {
    REQUIRE(v.is_object());
    expected.push_back(std::move(v.as_object()));
  }
  if (c.outcome == golden::Outcome::kNoObjects) CHECK(result->skipped);
  std::vector<json::value> want;
  for (auto& e : expected) {
    fill_ssh_keys(client, e, ns);
    fill_flux_curve(e, job_name, uid);
    want.push_back(dry_run(client, e, dry_ns));
  }
  const auto actual = actual_objects(client, expected, inputs, ns, uid);
  const auto diffs = golden::compare_object_sets(want, actual, {});
  for (const auto& d : diffs) FAIL_CHECK(d);
  if (!diffs.empty() && std::getenv("GOLDEN_DUMP") != nullptr) {
    std::cout << trainer::encode_yaml_stream(actual);
  }
}

class CaseInvoker : public Catch::ITestInvoker {
 public:
  explicit CaseInvoker(fs::path dir) : dir_(std::move(dir)) {}
  void invoke() const override { run_case(dir_); }

 private:
  fs::path dir_;
};

// One test per case folder that renders objects or expects none.
[[maybe_unused]] const bool kRegistered = [] {
  static std::deque<std::string> names;
  for (const auto& dir : golden::case_dirs(TRAINER_GOLDEN_CASES_DIR)) {
    auto c = golden::read_case(dir);
    if (c && c->outcome == golden::Outcome::kError) continue;
    names.push_back("golden case " + dir.filename().string());
    Catch::AutoReg(new CaseInvoker(dir), CATCH_INTERNAL_LINEINFO, Catch::StringRef(),
                   Catch::NameAndTags{names.back(), "[golden][kube]"});
  }
  return true;
}();

}  // namespace
