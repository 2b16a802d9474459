// SPDX-License-Identifier: Apache-2.0
#include "mpi/mpi_objects.hpp"

#include "common/trainer_env.hpp"
#include "trainer/base64.hpp"
#include "trainer/plugin_support.hpp"

#include <string>
#include <utility>

namespace trainer::plugins::detail::mpi {
namespace {

namespace json = boost::json;

json::object key_to_path(std::string_view key, std::string_view path, std::int64_t mode) {
  return json::object{{"key", key}, {"path", path}, {"mode", mode}};
}

}  // namespace

std::string ssh_auth_secret_name(std::string_view job) {
  return std::string(job) + kSshAuthSecretSuffix;
}

std::string hostfile_config_map_name(std::string_view job) {
  return std::string(job) + kHostfileConfigMapSuffix;
}

json::object ssh_auth_volume(std::string_view job) {
  json::object secret{
      {"secretName", ssh_auth_secret_name(job)},
      {"defaultMode", kSshAuthDefaultMode},
      {"items",
       json::array{key_to_path(kSshPrivateKeyKey, "id_rsa", kSshPrivateKeyFileMode),
                   key_to_path(kSshPublicKeyKey, "id_rsa.pub", kSshPublicKeyFileMode),
                   key_to_path(kSshPublicKeyKey, "authorized_keys", kSshPublicKeyFileMode)}}};
  return json::object{{"name", kSshAuthVolumeName}, {"secret", std::move(secret)}};
}

json::object hostfile_volume(std::string_view job) {
  json::object config_map{
      {"name", hostfile_config_map_name(job)},
      {"items", json::array{key_to_path(kHostfileName, kHostfileName, kHostfileMode)}}};
  return json::object{{"name", kHostfileVolumeName}, {"configMap", std::move(config_map)}};
}

json::object volume_mount(std::string_view name, std::string_view path) {
  return json::object{{"name", name}, {"mountPath", path}};
}

json::array open_mpi_env(std::int32_t slots) {
  return json::array{json::object{{"name", kEnvHostfile},
                                  {"value", std::string(kHostfileDir) + "/" + kHostfileName}},
                     json::object{{"name", kEnvKeepFqdnHostnames}, {"value", "true"}},
                     json::object{{"name", kEnvDefaultSlots}, {"value", std::to_string(slots)}},
                     json::object{{"name", kEnvRshArgs}, {"value", kRshArgsDefault}}};
}

json::object ssh_auth_secret(const TrainJob& job, std::string_view uid, const SshKeyPair& keys) {
  json::object secret;
  secret["apiVersion"] = "v1";
  secret["kind"] = "Secret";
  secret["metadata"] = owned_object_metadata(ssh_auth_secret_name(job_name(job)), job, uid);
  secret["type"] = kSshAuthSecretType;
  secret["immutable"] = true;
  secret["data"] = json::object{{kSshPrivateKeyKey, ::trainer::base64_encode(keys.private_key_pem)},
                                {kSshPublicKeyKey, ::trainer::base64_encode(keys.authorized_key)}};
  return secret;
}

json::object hostfile_config_map(const TrainJob& job, std::string_view uid, std::string hostfile) {
  json::object cm;
  cm["apiVersion"] = "v1";
  cm["kind"] = "ConfigMap";
  cm["metadata"] = owned_object_metadata(hostfile_config_map_name(job_name(job)), job, uid);
  cm["data"] = json::object{{kHostfileName, std::move(hostfile)}};
  return cm;
}

}  // namespace trainer::plugins::detail::mpi
