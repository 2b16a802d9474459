// SPDX-License-Identifier: Apache-2.0
#include "support/test_client.hpp"

#include <stdexcept>

namespace trainer::testing {

using namespace std::chrono_literals;

kube::ClientOptions test_client_options() {
  kube::ClientOptions options;
  options.qps = -1;
  options.timeout = 30s;
  options.connect_timeout = 5s;
  options.stream_idle_timeout = 20s;
  return options;
}

kube::Config admin_config(ApiServer& server, const std::string& server_url) {
  kube::LoadOptions load;
  load.kubeconfig = server.kubeconfig();
  auto config = kube::load_config(load);
  if (!config) throw std::runtime_error("admin kubeconfig: " + config.error().message);
  if (!server_url.empty()) config->server = server_url;
  return std::move(*config);
}

kube::Client client_for(ApiServer& server, const kube::ClientOptions& options,
                        const std::string& server_url) {
  auto client = kube::Client::create(admin_config(server, server_url), options);
  if (!client) throw std::runtime_error("client: " + client.error().message);
  return std::move(*client);
}

kube::Resource need(kube::Client& client, const char* api_version, const char* kind) {
  auto resource = client.resource_for(api_version, kind);
  if (!resource) {
    throw std::runtime_error(std::string("resource of ") + api_version + " " + kind + ": " +
                             resource.error().message);
  }
  return *resource;
}

}  // namespace trainer::testing
