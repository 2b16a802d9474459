// SPDX-License-Identifier: Apache-2.0
#include "trainjobstatus_plugin.hpp"
#include "trainer/base64.hpp"
#include "trainer/plugin_support.hpp"

#include "../coscheduling/pod_group.hpp"
#include "secret_data.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainer::plugins {

namespace {

namespace json = boost::json;

constexpr const char* kEnvStatusUrl = "KUBEFLOW_TRAINER_SERVER_URL";
constexpr const char* kEnvCaCert = "KUBEFLOW_TRAINER_SERVER_CA_CERT";
constexpr const char* kEnvToken = "KUBEFLOW_TRAINER_SERVER_TOKEN";
constexpr const char* kConfigMountPath = "/var/run/secrets/kubeflow/trainer";
constexpr const char* kTokenVolumeName = "kubeflow-trainer-token";
constexpr const char* kCaCertKey = "ca.crt";
constexpr const char* kTokenFileName = "token";
constexpr std::int64_t kTokenExpirySeconds = 3600;
constexpr const char* kAncestorTrainer = "trainer";

std::string status_path(const TrainJob& job) {
  return "/namespaces/" + pod_group::job_namespace(job) + "/trainjobs/" + job_name(job) + "/status";
}

std::string tls_config_map_name(const TrainJob& job) {
  return job_name(job) + "-tls-config";
}

json::array env_vars(const TrainJob& job, const OperatorConfig& config, std::int32_t port) {
  const std::string url = "https://" + config.webhook_service_name + "." +
                          config.operator_namespace + ".svc:" + std::to_string(port) +
                          "/apis/trainer.kubeflow.org/v1alpha1" + status_path(job);
  return json::array{
      env_value(kEnvStatusUrl, url),
      env_value(kEnvCaCert, std::string(kConfigMountPath) + "/" + kCaCertKey),
      env_value(kEnvToken, std::string(kConfigMountPath) + "/" + kTokenFileName),
  };
}

json::object token_volume_mount() {
  return json::object{
      {"name", kTokenVolumeName}, {"mountPath", kConfigMountPath}, {"readOnly", true}};
}

json::object token_volume(const TrainJob& job) {
  json::object token{{"audience", "trainer.kubeflow.org/v1alpha1" + status_path(job)},
                     {"expirationSeconds", kTokenExpirySeconds},
                     {"path", kTokenFileName}};
  json::object config_map{
      {"name", tls_config_map_name(job)},
      {"items", json::array{json::object{{"key", kCaCertKey}, {"path", kCaCertKey}}}}};
  json::array sources{json::object{{"serviceAccountToken", std::move(token)}},
                      json::object{{"configMap", std::move(config_map)}}};
  return json::object{{"name", kTokenVolumeName},
                      {"projected", json::object{{"sources", std::move(sources)}}}};
}

const json::value* member(const json::value& v, std::string_view key) {
  const auto* obj = v.if_object();
  return obj != nullptr ? obj->if_contains(key) : nullptr;
}

/// `ca.crt` of the webhook Secret, as a Go client reads it. `stringData` (which the API server
/// folds into `data` on write, so a stored Secret never has it) is honoured for hand-written
/// inputs and wins over `data`, as it does on write.
Result<std::string> ca_cert_of(const json::value& secret) {
  const json::value* text = nullptr;
  if (const auto* string_data = member(secret, "stringData")) {
    text = member(*string_data, kCaCertKey);
    if (text != nullptr && text->is_string()) return std::string(text->get_string());
  }
  if (const auto* data = member(secret, "data")) text = member(*data, kCaCertKey);
  if (text == nullptr || text->is_null()) return std::string();
  if (!text->is_string()) {
    return fail(ErrorCode::kParse,
                "failed to look up status server tls secret: data[ca.crt] is not a string");
  }
  auto decoded = base64_decode(text->get_string(), Base64Decoding::kGo);
  if (!decoded) {
    return fail(ErrorCode::kParse,
                "failed to look up status server tls secret: " + decoded.error().message);
  }
  return decoded;
}

class TrainJobStatusPlugin final : public EnforcePodSpecPlugin, public ComponentBuilderPlugin {
 public:
  [[nodiscard]] std::string_view name() const override { return "TrainJobStatus"; }
  [[nodiscard]] Phases phases() const override {
    return {Phase::kEnforcePodSpec, Phase::kComponentBuilder};
  }

  [[nodiscard]] Result<void> enforce_pod_spec(Info& info, const TrainJob& job,
                                              const PluginContext& ctx) override {
    if (info.template_spec.pod_sets.empty()) return {};
    if (!ctx.config.status_server_port) {
      return fail(ErrorCode::kInvalidArgument, "missing status server port");
    }
    const json::array env = env_vars(job, ctx.config, *ctx.config.status_server_port);
    PodSet* trainer = info.find_pod_set_by_ancestor(kAncestorTrainer);
    if (trainer == nullptr) return {};
    for (Container& c : trainer->containers) {
      upsert_env(c.env, env);
      upsert_volume_mount(c.volume_mounts, token_volume_mount());
    }
    upsert_volume(trainer->volumes, token_volume(job));
    return {};
  }

  [[nodiscard]] Result<std::vector<json::value>> build(const Info& /*info*/, const TrainJob& job,
                                                       const PluginContext& ctx) override {
    const std::string& secret_name = ctx.config.webhook_secret_name;
    const auto secret = ctx.find("v1", "Secret", ctx.config.operator_namespace, secret_name);
    if (!secret) {
      return fail(ErrorCode::kNotFound, "failed to look up status server tls secret: secrets \"" +
                                            secret_name + "\" not found");
    }
    auto ca_cert = ca_cert_of(*secret);
    if (!ca_cert) return tl::unexpected(std::move(ca_cert.error()));
    if (ca_cert->empty()) {
      return fail(ErrorCode::kNotFound, "failed to find status server ca.crt in tls secret");
    }

    json::object config_map;
    config_map["apiVersion"] = "v1";
    config_map["kind"] = "ConfigMap";
    config_map["metadata"] =
        owned_object_metadata(tls_config_map_name(job), job, effective_uid(job, ctx));
    config_map["data"] = json::object{{kCaCertKey, secret_data::to_valid_utf8(*ca_cert)}};
    std::vector<json::value> objects;
    objects.emplace_back(std::move(config_map));
    return objects;
  }
};

}  // namespace

std::unique_ptr<trainer::Plugin> make_trainjobstatus_plugin() {
  return std::make_unique<TrainJobStatusPlugin>();
}

}  // namespace trainer::plugins
