// SPDX-License-Identifier: Apache-2.0
// The admission webhooks as handlers (lib/controller/admission_webhooks.hpp), with reviews built
// by hand and a reader that serves the built-in runtimes: allowed, denied with causes, warnings,
// the update rules, the defaulter's patch, a plugin's rule, malformed reviews.
#include "controller/admission_webhooks.hpp"

#include "serving/https_server.hpp"
#include "trainer/base64.hpp"
#include "trainer/codec.hpp"
#include "trainer/render.hpp"
#include "trainer/runtimes.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <catch2/catch.hpp>

#include <map>

namespace {

namespace json = boost::json;
using trainer::controller::AdmissionWebhooks;
using trainer::controller::WebhookOptions;
using trainer::controller::WebhookReader;
using trainer::serving::Request;
using trainer::serving::Response;

// Serves ClusterTrainingRuntimes (the built-in ones, or given) and other objects by name.
class FakeReader final : public WebhookReader {
 public:
  std::map<std::string, json::value> cluster_runtimes;
  std::map<std::string, json::value> objects;  // "<kind>/<ns>/<name>"
  int* runtime_reads = nullptr;

  trainer::Result<std::optional<json::value>> runtime(const trainer::TrainJob& job) override {
    if (runtime_reads != nullptr) ++*runtime_reads;
    if (job.spec.runtime_ref.kind.value_or("") != "ClusterTrainingRuntime") return std::nullopt;
    auto it = cluster_runtimes.find(job.spec.runtime_ref.name);
    if (it != cluster_runtimes.end()) return it->second;
    if (auto builtin = trainer::find_builtin_runtime(job.spec.runtime_ref.name)) {
      auto docs = trainer::parse_documents(*builtin);
      REQUIRE(docs);
      return docs->front();
    }
    return std::nullopt;
  }
  std::optional<json::value> find(std::string_view, std::string_view kind, std::string_view ns,
                                  std::string_view name) override {
    auto it = objects.find(std::string(kind) + "/" + std::string(ns) + "/" + std::string(name));
    if (it == objects.end()) return std::nullopt;
    return it->second;
  }
  std::optional<trainer::Error> lookup_error() override { return std::nullopt; }
};

json::object train_job(json::object spec_extra = {}) {
  json::object spec{{"runtimeRef", {{"name", "torch-distributed"}}},
                    {"trainer", {{"numNodes", 2}, {"image", "pytorch/pytorch"}}}};
  for (auto& e : spec_extra) spec[e.key()] = e.value();
  return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                      {"kind", "TrainJob"},
                      {"metadata", {{"name", "job"}, {"namespace", "team"}}},
                      {"spec", std::move(spec)}};
}

Request review(const json::value& object, const char* operation = "CREATE",
               const json::value& old_object = nullptr, const char* kind = "TrainJob",
               const char* resource = "trainjobs") {
  json::object req{
      {"uid", "705ab4f5-6393-11e8-b7cc-42010a800002"},
      {"kind", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"kind", kind}}},
      {"resource",
       {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"resource", resource}}},
      {"name", "job"},
      {"namespace", "team"},
      {"operation", operation},
      {"userInfo", {{"username", "admin"}}},
      {"object", object}};
  if (!old_object.is_null()) req["oldObject"] = old_object;
  Request r;
  r.method = "POST";
  r.path = r.target = "/validate";
  r.headers = {{"Content-Type", "application/json"}};
  r.body = json::serialize(json::object{
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", req}});
  return r;
}

json::object response_of(const Response& answer) {
  REQUIRE(answer.status == 200);
  REQUIRE(answer.content_type == "application/json");
  const json::value doc = json::parse(answer.body);
  CHECK(doc.at("apiVersion") == "admission.k8s.io/v1");
  CHECK(doc.at("kind") == "AdmissionReview");
  return doc.at("response").as_object();
}

struct Fixture {
  std::shared_ptr<FakeReader> reader = std::make_shared<FakeReader>();
  WebhookOptions options;
  Fixture() {
    options.reader = [r = reader]() -> std::unique_ptr<WebhookReader> {
      return std::make_unique<FakeReader>(*r);
    };
    options.now = [] {
      return std::chrono::system_clock::time_point(std::chrono::seconds(1790000000));
    };
  }
};

}  // namespace

TEST_CASE("a valid TrainJob is allowed, the review's uid echoed") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  const auto r = response_of(hooks.validate_train_job(review(train_job())));
  CHECK(r.at("uid") == "705ab4f5-6393-11e8-b7cc-42010a800002");
  CHECK(r.at("allowed") == true);
  CHECK(r.at("status").at("code") == 200);
  CHECK_FALSE(r.contains("warnings"));
}

TEST_CASE("a TrainJob with a reserved torch env var is denied with upstream's message and causes") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  json::object job = train_job();
  job["spec"].as_object()["trainer"].as_object()["env"] =
      json::array{json::object{{"name", "PET_NNODES"}, {"value", "3"}},
                  json::object{{"name", "PET_NODE_RANK"}, {"value", "0"}}};
  const auto r = response_of(hooks.validate_train_job(review(job)));
  CHECK(r.at("allowed") == false);
  const auto& status = r.at("status").as_object();
  CHECK(status.at("code") == 403);
  CHECK(status.at("reason") == "Forbidden");
  const std::string message(status.at("message").as_string());
  CHECK(message.rfind("spec.trainer.env: Invalid value: ", 0) == 0);
  CHECK(message.find("must not have reserved envs, invalid envs configured: [PET_NNODES "
                     "PET_NODE_RANK]") != std::string::npos);
  const auto& details = status.at("details").as_object();
  CHECK(details.at("name") == "job");
  CHECK(details.at("group") == "trainer.kubeflow.org");
  CHECK(details.at("kind") == "TrainJob");
  const auto& causes = details.at("causes").as_array();
  REQUIRE(causes.size() == 1);
  CHECK(causes[0].at("reason") == "FieldValueInvalid");
  CHECK(causes[0].at("field") == "spec.trainer.env");
  CHECK(std::string(causes[0].at("message").as_string()).rfind("Invalid value: ", 0) == 0);
}

TEST_CASE("a TrainJob whose runtime does not exist is denied with the webhook's runtimeRef error") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  json::object job = train_job();
  job["spec"].as_object()["runtimeRef"] = json::object{{"name", "no-such-runtime"}};
  const auto r = response_of(hooks.validate_train_job(review(job)));
  CHECK(r.at("allowed") == false);
  const auto& causes = r.at("status").at("details").at("causes").as_array();
  REQUIRE(causes.size() == 1);
  CHECK(causes[0].at("field") == "spec.RuntimeRef");
  CHECK(std::string(r.at("status").at("message").as_string())
            .find("clustertrainingruntimes.trainer.kubeflow.org \"no-such-runtime\" not found: "
                  "specified clusterTrainingRuntime must be created before the TrainJob is "
                  "created") != std::string::npos);
}

TEST_CASE("an unsupported runtime kind is denied with upstream's plain message") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  json::object job = train_job();
  job["spec"].as_object()["runtimeRef"] =
      json::object{{"name", "x"}, {"apiGroup", "example.com"}, {"kind", "Runtime"}};
  const auto r = response_of(hooks.validate_train_job(review(job)));
  CHECK(r.at("allowed") == false);
  CHECK(r.at("status").at("code") == 403);
  CHECK(r.at("status").at("message") == "unsupported runtime: Runtime.example.com");
  CHECK_FALSE(r.at("status").as_object().contains("details"));
}

TEST_CASE("a deprecated ClusterTrainingRuntime is allowed with upstream's warning") {
  Fixture f;
  auto docs = trainer::parse_documents(*trainer::find_builtin_runtime("torch-distributed"));
  REQUIRE(docs);
  json::value runtime = docs->front();
  runtime.as_object()["metadata"].as_object()["labels"] =
      json::object{{"trainer.kubeflow.org/support", "deprecated"}};
  f.reader->cluster_runtimes["torch-distributed"] = runtime;
  const AdmissionWebhooks hooks(f.options);
  const auto r = response_of(hooks.validate_train_job(review(train_job())));
  CHECK(r.at("allowed") == true);
  const auto& warnings = r.at("warnings").as_array();
  REQUIRE(warnings.size() == 1);
  CHECK(std::string(warnings[0].as_string())
            .rfind("Referenced ClusterTrainingRuntime \"torch-distributed\" is deprecated", 0) ==
        0);
}

namespace {
class RefuseLabel final : public trainer::CustomValidationPlugin {
 public:
  std::string_view name() const override { return "RefuseLabel"; }
  trainer::Phases phases() const override { return {trainer::Phase::kCustomValidation}; }
  trainer::ValidationResult validate(const trainer::Info&, const trainer::TrainJob* old_job,
                                     const trainer::TrainJob& job,
                                     const trainer::PluginContext&) override {
    trainer::ValidationResult out;
    out.warnings.push_back(old_job != nullptr ? "RefuseLabel saw an update"
                                              : "RefuseLabel saw a create");
    if (job.metadata.labels.count("forbidden") != 0) {
      out.errors.push_back(trainer::field_forbidden("metadata.labels[forbidden]", "not here"));
    }
    return out;
  }
};
}  // namespace

TEST_CASE("a plugin's rule refuses through the webhook, with the plugin's warnings") {
  Fixture f;
  std::vector<std::shared_ptr<trainer::Plugin>> extra;
  extra.push_back(std::make_unique<RefuseLabel>());
  auto framework = trainer::Framework::with_plugins({}, std::move(extra));
  REQUIRE(framework);
  f.options.framework = std::make_shared<const trainer::Framework>(std::move(*framework));
  const AdmissionWebhooks hooks(f.options);
  auto ok = response_of(hooks.validate_train_job(review(train_job())));
  CHECK(ok.at("allowed") == true);
  CHECK(ok.at("warnings").as_array() == json::array{"RefuseLabel saw a create"});
  json::object job = train_job();
  job["metadata"].as_object()["labels"] = json::object{{"forbidden", "yes"}};
  auto r = response_of(hooks.validate_train_job(review(job)));
  CHECK(r.at("allowed") == false);
  CHECK(r.at("status").at("message") == "metadata.labels[forbidden]: Forbidden: not here");
  CHECK(r.at("status").at("details").at("causes").at(0).at("reason") == "FieldValueForbidden");
  CHECK(r.at("warnings").as_array() == json::array{"RefuseLabel saw a create"});
  auto update = response_of(hooks.validate_train_job(review(train_job(), "UPDATE", train_job())));
  CHECK(update.at("warnings").as_array() == json::array{"RefuseLabel saw an update"});
}

namespace {
json::object patch(const char* manager, const char* node_selector_value,
                   const char* time = nullptr) {
  json::object p{
      {"manager", manager},
      {"trainingRuntimeSpec",
       {{"template",
         {{"spec",
           {{"replicatedJobs",
             json::array{json::object{
                 {"name", "node"},
                 {"template",
                  {{"spec",
                    {{"template",
                      {{"spec",
                        {{"nodeSelector", {{"pool", node_selector_value}}}}}}}}}}}}}}}}}}}}};
  if (time != nullptr) p["time"] = time;
  return p;
}
}  // namespace

TEST_CASE("update: runtimePatches change only while suspended (upstream's JobSet rule)") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  const json::object old_job =
      train_job({{"runtimePatches", json::array{patch("kueue.x-k8s.io/manager", "a")}}});
  const json::object new_job =
      train_job({{"runtimePatches", json::array{patch("kueue.x-k8s.io/manager", "b")}}});
  auto refused = response_of(hooks.validate_train_job(review(new_job, "UPDATE", old_job)));
  CHECK(refused.at("allowed") == false);
  CHECK(refused.at("status").at("message") ==
        "spec.runtimePatches: Forbidden: RuntimePatches can only be modified when the TrainJob is "
        "suspended before or after the update");
  // The same change on create is no update: allowed.
  CHECK(response_of(hooks.validate_train_job(review(new_job))).at("allowed") == true);
  // Suspended after the update: allowed (no JobSet runs).
  json::object suspended = new_job;
  suspended["spec"].as_object()["suspend"] = true;
  CHECK(response_of(hooks.validate_train_job(review(suspended, "UPDATE", old_job))).at("allowed") ==
        true);
  // Suspended, but the JobSet's node job is still active: refused.
  f.reader->objects["JobSet/team/job"] = json::object{
      {"apiVersion", "jobset.x-k8s.io/v1alpha2"},
      {"kind", "JobSet"},
      {"metadata", {{"name", "job"}, {"namespace", "team"}}},
      {"status",
       {{"replicatedJobsStatus", json::array{json::object{{"name", "node"}, {"active", 1}}}}}}};
  auto active = response_of(hooks.validate_train_job(review(suspended, "UPDATE", old_job)));
  CHECK(active.at("allowed") == false);
  CHECK(active.at("status").at("message") ==
        "spec.runtimePatches: Forbidden: RuntimePatches cannot be modified when the JobSet's "
        "ReplicatedJob node is still active");
}

TEST_CASE("update: the CRD's immutable fields are refused") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  json::object changed = train_job();
  changed["spec"].as_object()["runtimeRef"] = json::object{{"name", "jax-distributed"}};
  auto r = response_of(hooks.validate_train_job(review(changed, "UPDATE", train_job())));
  CHECK(r.at("allowed") == false);
  CHECK(std::string(r.at("status").at("message").as_string()).find("spec.runtimeRef") !=
        std::string::npos);
}

TEST_CASE("DELETE is allowed without reading the cluster") {
  Fixture f;
  int reads = 0;
  f.reader->runtime_reads = &reads;
  const AdmissionWebhooks hooks(f.options);
  Request r = review(nullptr, "DELETE");
  CHECK(response_of(hooks.validate_train_job(r)).at("allowed") == true);
  CHECK(reads == 0);
}

namespace {
json::array patch_ops(const json::object& response) {
  CHECK(response.at("patchType") == "JSONPatch");
  auto bytes = trainer::base64_decode(response.at("patch").as_string());
  REQUIRE(bytes);
  return json::parse(*bytes).as_array();
}
}  // namespace

TEST_CASE("the defaulter stamps runtimePatches[].time as upstream, as a JSONPatch") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  const std::string now = "2026-09-21T14:13:20Z";  // 1790000000
  SECTION("create: patches without a time get now, a given time stays") {
    json::object job =
        train_job({{"runtimePatches", json::array{patch("a.io/x", "a"),
                                                  patch("b.io/y", "b", "2020-01-01T00:00:00Z")}}});
    const auto r = response_of(hooks.mutate_train_job(review(job)));
    CHECK(r.at("allowed") == true);
    CHECK(patch_ops(r) ==
          json::array{json::object{
              {"op", "add"}, {"path", "/spec/runtimePatches/0/time"}, {"value", now}}});
  }
  SECTION("create without patches: allowed, no patch") {
    const auto r = response_of(hooks.mutate_train_job(review(train_job())));
    CHECK(r.at("allowed") == true);
    CHECK_FALSE(r.contains("patch"));
    CHECK_FALSE(r.contains("patchType"));
  }
  SECTION("update: an unchanged patch keeps its old time, a changed or new one gets now") {
    const json::object old_job =
        train_job({{"runtimePatches", json::array{patch("a.io/x", "a", "2020-01-01T00:00:00Z"),
                                                  patch("b.io/y", "b", "2020-01-01T00:00:00Z")}}});
    const json::object new_job = train_job(
        {{"runtimePatches",
          json::array{patch("a.io/x", "a", "2024-05-05T00:00:00Z"),  // user's time discarded
                      patch("b.io/y", "changed", "2020-01-01T00:00:00Z"), patch("c.io/z", "c")}}});
    const auto r = response_of(hooks.mutate_train_job(review(new_job, "UPDATE", old_job)));
    CHECK(
        patch_ops(r) ==
        json::array{
            json::object{{"op", "replace"},
                         {"path", "/spec/runtimePatches/0/time"},
                         {"value", "2020-01-01T00:00:00Z"}},
            json::object{
                {"op", "replace"}, {"path", "/spec/runtimePatches/1/time"}, {"value", now}},
            json::object{{"op", "add"}, {"path", "/spec/runtimePatches/2/time"}, {"value", now}}});
  }
}

TEST_CASE("malformed reviews get a clear 400 (413 when too large), never a crash") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  auto code_of = [&](const Request& r) {
    const auto response = response_of(hooks.validate_train_job(r));
    CHECK(response.at("allowed") == false);
    return std::make_pair(response.at("status").at("code").as_int64(),
                          std::string(response.at("status").at("message").as_string()));
  };
  Request r = review(train_job());
  SECTION("empty body") {
    r.body.clear();
    CHECK(code_of(r) == std::make_pair(std::int64_t{400}, std::string("request body is empty")));
  }
  SECTION("wrong content type") {
    r.headers = {{"Content-Type", "text/plain"}};
    CHECK(code_of(r) ==
          std::make_pair(std::int64_t{400},
                         std::string("contentType=text/plain, expected application/json")));
  }
  SECTION("not JSON") {
    r.body = "{\"apiVersion\":";
    CHECK(code_of(r).first == 400);
  }
  SECTION("not a review") {
    r.body = R"({"apiVersion":"v1","kind":"Pod"})";
    auto [code, message] = code_of(r);
    CHECK(code == 400);
    CHECK(message.find("expected an AdmissionReview") != std::string::npos);
  }
  SECTION("a review of another kind") {
    r = review(train_job(), "CREATE", nullptr, "Pod", "pods");
    auto [code, message] = code_of(r);
    CHECK(code == 400);
    CHECK(message.find("this webhook admits TrainJob.trainer.kubeflow.org") != std::string::npos);
  }
  SECTION("an object of the wrong shape") {
    json::object job = train_job();
    job["spec"].as_object()["trainer"].as_object()["numNodes"] = "two";
    auto [code, message] = code_of(review(job));
    CHECK(code == 400);
    CHECK(message.find("spec.trainer.numNodes") != std::string::npos);
  }
  SECTION("an update without its old object") {
    auto [code, message] = code_of(review(train_job(), "UPDATE"));
    CHECK(code == 400);
    CHECK(message == "request.oldObject: Required value");
  }
  SECTION("too large") {
    r.body.assign(trainer::controller::kAdmissionReviewLimit + 1, ' ');
    CHECK(code_of(r).first == 413);
    // The server answers a declared oversized body with the route's too_large, unread.
    const auto routes = hooks.routes();
    REQUIRE(routes.size() == 5);
    for (const auto& route : routes) {
      CHECK(route.method == "POST");
      CHECK(route.body_limit == trainer::controller::kAdmissionReviewLimit);
      const auto answer = response_of(route.too_large(Request{}));
      CHECK(answer.at("status").at("code") == 413);
    }
  }
}

TEST_CASE("runtime webhooks: the ancestor rule on create, the deprecation warning") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  auto docs = trainer::parse_documents(*trainer::find_builtin_runtime("torch-distributed"));
  REQUIRE(docs);
  json::value runtime = docs->front();
  runtime.as_object()["metadata"].as_object().erase("labels");  // the webhook-validation label
  auto ok = response_of(hooks.validate_cluster_training_runtime(
      review(runtime, "CREATE", nullptr, "ClusterTrainingRuntime", "clustertrainingruntimes")));
  CHECK(ok.at("allowed") == true);
  json::value bad = runtime;
  bad.at_pointer("/spec/template/spec/replicatedJobs/0").as_object()["replicas"] = 2;
  auto refused = response_of(hooks.validate_cluster_training_runtime(
      review(bad, "CREATE", nullptr, "ClusterTrainingRuntime", "clustertrainingruntimes")));
  CHECK(refused.at("allowed") == false);
  CHECK(refused.at("status").at("message") ==
        "spec.template.spec.replicatedJobs[0].replicas: Invalid value: 2: always must be 1");
  // A TrainingRuntime: namespaced, its update is not checked by upstream's webhook.
  json::value namespaced = bad;
  namespaced.as_object()["kind"] = "TrainingRuntime";
  namespaced.as_object()["metadata"].as_object()["namespace"] = "team";
  auto tr = response_of(hooks.validate_training_runtime(
      review(namespaced, "CREATE", nullptr, "TrainingRuntime", "trainingruntimes")));
  CHECK(tr.at("allowed") == false);
  auto tr_update = response_of(hooks.validate_training_runtime(
      review(namespaced, "UPDATE", namespaced, "TrainingRuntime", "trainingruntimes")));
  CHECK(tr_update.at("allowed") == true);
  // The TrainJob webhook refuses a runtime review.
  auto wrong = response_of(hooks.validate_train_job(
      review(namespaced, "CREATE", nullptr, "TrainingRuntime", "trainingruntimes")));
  CHECK(wrong.at("status").at("code") == 400);
}

TEST_CASE("the OptimizationJob webhook admits its trial template like a TrainJob") {
  Fixture f;
  const AdmissionWebhooks hooks(f.options);
  json::object job{
      {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
      {"kind", "OptimizationJob"},
      {"metadata", {{"name", "job"}, {"namespace", "team"}}},
      {"spec",
       {{"objectives", json::array{json::object{{"metric", "loss"}}}},
        {"parameters",
         json::array{json::object{
             {"name", "lr"}, {"searchSpace", {{"uniform", {{"min", "0.001"}, {"max", "0.1"}}}}}}}},
        {"numTrials", 2},
        {"trainJobTemplate", {{"spec", train_job()["spec"]}}}}}};
  auto ok = response_of(hooks.validate_optimization_job(
      review(job, "CREATE", nullptr, "OptimizationJob", "optimizationjobs")));
  CHECK(ok.at("allowed") == true);
  job["spec"]
      .as_object()["trainJobTemplate"]
      .as_object()["spec"]
      .as_object()["trainer"]
      .as_object()["env"] = json::array{json::object{{"name", "PET_MASTER_PORT"}, {"value", "1"}}};
  auto refused = response_of(hooks.validate_optimization_job(
      review(job, "CREATE", nullptr, "OptimizationJob", "optimizationjobs")));
  CHECK(refused.at("allowed") == false);
  CHECK(refused.at("status").at("details").at("causes").at(0).at("field") ==
        "spec.trainJobTemplate.spec.trainer.env");
}
