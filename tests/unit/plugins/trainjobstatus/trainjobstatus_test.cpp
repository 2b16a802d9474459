// SPDX-License-Identifier: Apache-2.0
//
// TrainJobStatus plugin: behaviours of upstream's trainjobstatus_test.go (TestEnforcePodSpec,
// TestBuild) on hand-built Info fixtures, and the Secret data decoding it relies on.
#include "plugins/trainjobstatus/secret_data.hpp"
#include "plugins/trainjobstatus/trainjobstatus_plugin.hpp"

#include <catch2/catch.hpp>

#include <boost/json/serialize.hpp>

#include <string>
#include <tuple>
#include <vector>

namespace json = boost::json;
using trainer::ComponentBuilderPlugin;
using trainer::Container;
using trainer::EnforcePodSpecPlugin;
using trainer::Info;
using trainer::PodSet;
using trainer::RenderContext;
using trainer::TrainJob;
using trainer::plugins::secret_data::to_valid_utf8;

namespace {

constexpr const char* kUrl =
    "https://kubeflow-trainer-controller-manager.kubeflow-system.svc:10443/apis/"
    "trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/test-job/status";

TrainJob train_job(const char* name = "test-job", const char* ns = "default") {
  TrainJob job;
  job.metadata.name = name;
  job.metadata.namespace_ = ns;
  job.metadata.uid = "test-uid";
  return job;
}

Container container(const char* name) {
  Container c;
  c.name = name;
  return c;
}

PodSet pod_set(const char* name, std::optional<const char*> ancestor,
               std::vector<Container> containers) {
  PodSet ps;
  ps.name = name;
  if (ancestor) ps.ancestor = *ancestor;
  ps.count = 1;
  ps.containers = std::move(containers);
  return ps;
}

json::array want_env(const char* url = kUrl) {
  return json::array{
      json::object{{"name", "KUBEFLOW_TRAINER_SERVER_URL"}, {"value", url}},
      json::object{{"name", "KUBEFLOW_TRAINER_SERVER_CA_CERT"},
                   {"value", "/var/run/secrets/kubeflow/trainer/ca.crt"}},
      json::object{{"name", "KUBEFLOW_TRAINER_SERVER_TOKEN"},
                   {"value", "/var/run/secrets/kubeflow/trainer/token"}},
  };
}

json::array want_mounts() {
  return json::array{json::object{{"name", "kubeflow-trainer-token"},
                                  {"mountPath", "/var/run/secrets/kubeflow/trainer"},
                                  {"readOnly", true}}};
}

json::value want_volume(const char* ns = "default", const char* job = "test-job") {
  const std::string audience = std::string("trainer.kubeflow.org/v1alpha1/namespaces/") + ns +
                               "/trainjobs/" + job + "/status";
  json::object token{{"audience", audience}, {"expirationSeconds", 3600}, {"path", "token"}};
  json::array items{json::object{{"key", "ca.crt"}, {"path", "ca.crt"}}};
  json::object config_map{{"name", std::string(job) + "-tls-config"}, {"items", items}};
  json::array sources{json::object{{"serviceAccountToken", token}},
                      json::object{{"configMap", config_map}}};
  return json::object{{"name", "kubeflow-trainer-token"},
                      {"projected", json::object{{"sources", sources}}}};
}

using Lookup = std::tuple<std::string, std::string, std::string, std::string>;

RenderContext context(std::vector<Lookup>* calls, std::optional<json::value> secret) {
  RenderContext ctx;
  ctx.train_job_uid = "test-uid";
  ctx.lookup = [calls, secret](std::string_view api, std::string_view kind, std::string_view ns,
                               std::string_view name) -> std::optional<json::value> {
    if (calls != nullptr) calls->emplace_back(api, kind, ns, name);
    return secret;
  };
  return ctx;
}

json::value secret_with(json::object data, const char* field = "data") {
  return {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata", {{"name", "kubeflow-trainer-webhook-cert"}, {"namespace", "kubeflow-system"}}},
      {field, std::move(data)}};
}

struct Fixture {
  std::unique_ptr<trainer::Plugin> plugin = trainer::plugins::make_trainjobstatus_plugin();
  EnforcePodSpecPlugin& enforcer = dynamic_cast<EnforcePodSpecPlugin&>(*plugin);
  ComponentBuilderPlugin& builder = dynamic_cast<ComponentBuilderPlugin&>(*plugin);
};

Info trainer_info(std::vector<Container> containers) {
  Info info;
  info.template_spec.pod_sets.push_back(pod_set("node", "trainer", std::move(containers)));
  return info;
}

}  // namespace

TEST_CASE("trainjobstatus: registry name and interfaces", "[trainjobstatus]") {
  Fixture f;
  CHECK(f.plugin->name() == "TrainJobStatus");
  CHECK(f.plugin->phases() ==
        trainer::Phases{trainer::Phase::kEnforcePodSpec, trainer::Phase::kComponentBuilder});
  CHECK(dynamic_cast<trainer::CustomValidationPlugin*>(f.plugin.get()) == nullptr);
  CHECK(dynamic_cast<trainer::EnforcePodGroupPolicyPlugin*>(f.plugin.get()) == nullptr);
}

TEST_CASE("trainjobstatus: nothing injected without a trainer PodSet", "[trainjobstatus]") {
  Fixture f;
  Info info;
  info.template_spec.pod_sets.push_back(pod_set("launcher", {}, {container("launcher")}));
  info.template_spec.pod_sets.push_back(
      pod_set("dataset-initializer", "dataset-initializer", {container("dataset-initializer")}));
  const Info before = info;
  REQUIRE(f.enforcer.enforce_pod_spec(info, train_job(), RenderContext{}).has_value());
  for (std::size_t i = 0; i < info.template_spec.pod_sets.size(); ++i) {
    const PodSet& ps = info.template_spec.pod_sets[i];
    CHECK(ps.volumes == before.template_spec.pod_sets[i].volumes);
    CHECK(ps.containers.front().env.empty());
    CHECK(ps.containers.front().volume_mounts.empty());
  }
}

TEST_CASE("trainjobstatus: env, mount and volume on every trainer container", "[trainjobstatus]") {
  Fixture f;
  Info info = trainer_info({container("node"), container("sidecar")});
  info.template_spec.pod_sets.front().init_containers.push_back(container("init"));
  info.template_spec.pod_sets.push_back(pod_set("other", "model-initializer", {container("node")}));
  REQUIRE(f.enforcer.enforce_pod_spec(info, train_job(), RenderContext{}).has_value());

  const PodSet& trainer = info.template_spec.pod_sets[0];
  REQUIRE(trainer.containers.size() == 2);
  for (const Container& c : trainer.containers) {
    CHECK(json::serialize(c.env) == json::serialize(want_env()));
    CHECK(json::serialize(c.volume_mounts) == json::serialize(want_mounts()));
  }
  CHECK(json::serialize(trainer.volumes) == json::serialize(json::array{want_volume()}));
  // Init containers and other PodSets are untouched.
  CHECK(trainer.init_containers.front().env.empty());
  CHECK(trainer.init_containers.front().volume_mounts.empty());
  CHECK(info.template_spec.pod_sets[1].containers.front().env.empty());
  CHECK(info.template_spec.pod_sets[1].volumes.empty());
}

TEST_CASE("trainjobstatus: only the first trainer-ancestor PodSet", "[trainjobstatus]") {
  Fixture f;
  Info info = trainer_info({container("node")});
  info.template_spec.pod_sets.push_back(pod_set("second", "trainer", {container("node")}));
  REQUIRE(f.enforcer.enforce_pod_spec(info, train_job(), RenderContext{}).has_value());
  CHECK(info.template_spec.pod_sets[0].containers[0].env.size() == 3);
  CHECK(info.template_spec.pod_sets[1].containers[0].env.empty());
}

TEST_CASE("trainjobstatus: operator configuration shapes the URL", "[trainjobstatus]") {
  Fixture f;
  Info info = trainer_info({container("node")});
  const RenderContext inputs;
  trainer::OperatorConfig config;
  config.webhook_service_name = "trainer-svc";
  config.operator_namespace = "ops";
  config.status_server_port = 8443;
  const trainer::PluginContext ctx(inputs, trainer::kDefaultFeatureGates, config);
  REQUIRE(f.enforcer.enforce_pod_spec(info, train_job("my-job", "team-a"), ctx).has_value());
  const PodSet& ps = info.template_spec.pod_sets[0];
  CHECK(ps.containers[0].env.at(0).at("value") ==
        "https://trainer-svc.ops.svc:8443/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/"
        "trainjobs/my-job/status");
  CHECK(json::serialize(ps.volumes.at(0)) == json::serialize(want_volume("team-a", "my-job")));
}

TEST_CASE("trainjobstatus: existing env, mounts and volumes are upserted", "[trainjobstatus]") {
  Fixture f;
  Container c = container("node");
  c.env = json::array{json::object{{"name", "A"}, {"value", "1"}},
                      json::object{{"name", "KUBEFLOW_TRAINER_SERVER_TOKEN"}, {"value", "old"}}};
  c.volume_mounts = json::array{
      json::object{{"name", "data"}, {"mountPath", "/data"}},
      json::object{{"name", "stale"}, {"mountPath", "/var/run/secrets/kubeflow/trainer"}}};
  Info info = trainer_info({c});
  info.template_spec.pod_sets[0].volumes =
      json::array{json::object{{"name", "kubeflow-trainer-token"}, {"emptyDir", json::object{}}},
                  json::object{{"name", "data"}, {"emptyDir", json::object{}}}};
  REQUIRE(f.enforcer.enforce_pod_spec(info, train_job(), RenderContext{}).has_value());

  const PodSet& ps = info.template_spec.pod_sets[0];
  const json::array& env = ps.containers[0].env;
  REQUIRE(env.size() == 4);
  CHECK(env[0].at("name") == "A");
  CHECK(env[1] == want_env()[2]);  // replaced in place
  CHECK(env[2] == want_env()[0]);
  CHECK(env[3] == want_env()[1]);
  CHECK(ps.containers[0].volume_mounts ==
        json::array{json::object{{"name", "data"}, {"mountPath", "/data"}}, want_mounts()[0]});
  REQUIRE(ps.volumes.size() == 2);
  CHECK(ps.volumes[0] == want_volume());
  CHECK(ps.volumes[1].at("name") == "data");
}

TEST_CASE("trainjobstatus: missing status server port", "[trainjobstatus]") {
  Fixture f;
  const RenderContext inputs;
  trainer::OperatorConfig config;
  config.status_server_port.reset();
  const trainer::PluginContext ctx(inputs, trainer::kDefaultFeatureGates, config);
  Info info = trainer_info({container("node")});
  auto result = f.enforcer.enforce_pod_spec(info, train_job(), ctx);
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().message == "missing status server port");
  CHECK(result.error().code == trainer::ErrorCode::kInvalidArgument);
  CHECK(info.template_spec.pod_sets[0].containers[0].env.empty());
  // As upstream, no PodSets at all means nothing to do (and no error).
  Info empty;
  CHECK(f.enforcer.enforce_pod_spec(empty, train_job(), ctx).has_value());
}

TEST_CASE("trainjobstatus: ConfigMap with the CA certificate from the webhook Secret",
          "[trainjobstatus]") {
  Fixture f;
  std::vector<Lookup> calls;
  // "test-ca-cert-data" in base64.
  const RenderContext ctx =
      context(&calls, secret_with({{"ca.crt", "dGVzdC1jYS1jZXJ0LWRhdGE="}, {"tls.crt", "eA=="}}));
  auto objects = f.builder.build(trainer_info({container("node")}), train_job(), ctx);
  REQUIRE(objects.has_value());
  REQUIRE(objects->size() == 1);
  const json::value want = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       {{"name", "test-job-tls-config"},
        {"namespace", "default"},
        {"ownerReferences",
         json::array{json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                                  {"kind", "TrainJob"},
                                  {"name", "test-job"},
                                  {"uid", "test-uid"},
                                  {"controller", true},
                                  {"blockOwnerDeletion", true}}}}}},
      {"data", {{"ca.crt", "test-ca-cert-data"}}}};
  CHECK(json::serialize(objects->front()) == json::serialize(want));
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == Lookup("v1", "Secret", "kubeflow-system", "kubeflow-trainer-webhook-cert"));
}

TEST_CASE("trainjobstatus: Secret name and namespace from the operator configuration",
          "[trainjobstatus]") {
  Fixture f;
  std::vector<Lookup> calls;
  const RenderContext inputs = context(&calls, secret_with({{"ca.crt", "LS0tLS1CRUdJTg=="}}));
  trainer::OperatorConfig config;
  config.operator_namespace = "trainer-system";
  config.webhook_secret_name = "my-cert";
  const trainer::PluginContext ctx(inputs, trainer::kDefaultFeatureGates, config);
  auto objects = f.builder.build(Info{}, train_job("j", "ns"), ctx);
  REQUIRE(objects.has_value());
  CHECK(objects->at(0).at("data").at("ca.crt") == "-----BEGIN");
  CHECK(objects->at(0).at("metadata").at("name") == "j-tls-config");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0] == Lookup("v1", "Secret", "trainer-system", "my-cert"));
}

TEST_CASE("trainjobstatus: Secret lookup errors", "[trainjobstatus]") {
  Fixture f;
  const Info info = trainer_info({container("node")});
  const auto error_of = [&](const RenderContext& ctx) {
    auto objects = f.builder.build(info, train_job(), ctx);
    REQUIRE_FALSE(objects.has_value());
    return objects.error();
  };

  SECTION("Secret not found") {
    const auto err = error_of(context(nullptr, std::nullopt));
    CHECK(err.message ==
          "failed to look up status server tls secret: secrets \"kubeflow-trainer-webhook-cert\" "
          "not found");
    CHECK(err.code == trainer::ErrorCode::kNotFound);
    CHECK(error_of(RenderContext{}).message == err.message);
  }
  SECTION("ca.crt missing") {
    const auto err = error_of(context(nullptr, secret_with({{"other-key", "b3RoZXI="}})));
    CHECK(err.message == "failed to find status server ca.crt in tls secret");
    CHECK(err.code == trainer::ErrorCode::kNotFound);
  }
  SECTION("ca.crt empty") {
    CHECK(error_of(context(nullptr, secret_with({{"ca.crt", ""}}))).message ==
          "failed to find status server ca.crt in tls secret");
  }
  SECTION("Secret without data") {
    CHECK(error_of(context(nullptr, json::value{{"kind", "Secret"}})).message ==
          "failed to find status server ca.crt in tls secret");
  }
  SECTION("ca.crt not base64") {
    const auto err = error_of(context(nullptr, secret_with({{"ca.crt", "not base64!"}})));
    CHECK(err.message ==
          "failed to look up status server tls secret: illegal base64 data at input byte 3");
    CHECK(err.code == trainer::ErrorCode::kParse);
  }
  SECTION("ca.crt not a string") {
    CHECK(error_of(context(nullptr, secret_with({{"ca.crt", 1}}))).message ==
          "failed to look up status server tls secret: data[ca.crt] is not a string");
  }
}

TEST_CASE("trainjobstatus: stringData of a hand-written Secret", "[trainjobstatus]") {
  Fixture f;
  json::value secret = secret_with({{"ca.crt", "plain text\n"}}, "stringData");
  secret.as_object()["data"] = json::object{{"ca.crt", "aWdub3JlZA=="}};
  auto objects = f.builder.build(Info{}, train_job(), context(nullptr, secret));
  REQUIRE(objects.has_value());
  CHECK(objects->at(0).at("data").at("ca.crt") == "plain text\n");
}

TEST_CASE("trainjobstatus: invalid UTF-8 becomes U+FFFD per byte, as Go's encoding/json",
          "[trainjobstatus]") {
  const std::string fffd = "\xEF\xBF\xBD";
  CHECK(to_valid_utf8("plain") == "plain");
  CHECK(to_valid_utf8("\xC3\xA9\xF0\x9F\x98\x80") == "\xC3\xA9\xF0\x9F\x98\x80");
  // Same input as Go's json.Marshal(string([]byte{...})) ->
  // "a\ufffdb\ufffd\ufffdc\ufffd\ufffd\ufffd😀".
  CHECK(to_valid_utf8("a\xFF"
                      "b\xE2\x82"
                      "c\xED\xA0\x80\xF0\x9F\x98\x80") ==
        "a" + fffd + "b" + fffd + fffd + "c" + fffd + fffd + fffd + "\xF0\x9F\x98\x80");
  CHECK(to_valid_utf8("\xC0\xAF") == fffd + fffd);                        // overlong
  CHECK(to_valid_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // > U+10FFFF
}
