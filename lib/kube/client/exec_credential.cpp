// SPDX-License-Identifier: Apache-2.0
#include "kube/client/exec_credential.hpp"

#include "api/time_text.hpp"

#include "kube/client/exec_process.hpp"
#include "trainer/base64.hpp"
#include "trainer/codec.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <unistd.h>
#include <cstdio>
#include <ctime>
#include <map>

extern char** environ;  // NOLINT: POSIX

namespace trainer::kube::detail {
namespace {

constexpr const char* kHelp =
    "\n\nIt looks like you are trying to use a client-go credential plugin that is not "
    "installed.\n\nTo learn more about this feature, consult the documentation available "
    "at:\n      "
    "https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
    "#client-go-credential-plugins";

// The install hint without terminal escape sequences (client-go strips them: the hint comes
// from a kubeconfig, which should not be able to drive the user's terminal).
std::string strip_escapes(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {
      if (i + 1 < text.size() && text[i + 1] == '[') {
        i += 2;
        while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      }
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

// Parent environment, then exec.env, then KUBERNETES_EXEC_INFO; a later entry of the same
// name replaces the earlier value (Go's os/exec de-duplication).
std::vector<std::string> plugin_environment(const ExecPlugin& plugin, const std::string& info) {
  std::vector<std::string> env;
  std::map<std::string, std::size_t> index;
  const auto add = [&](std::string name, const std::string& value) {
    std::string entry = name + "=" + value;
    const auto it = index.find(name);
    if (it != index.end()) {
      env[it->second] = std::move(entry);
    } else {
      index.emplace(std::move(name), env.size());
      env.push_back(std::move(entry));
    }
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    add(entry.substr(0, eq), entry.substr(eq + 1));
  }
  for (const auto& [name, value] : plugin.env) add(name, value);
  add("KUBERNETES_EXEC_INFO", info);
  return env;
}

}  // namespace

std::string exec_info_json(const Config& config, bool interactive) {
  const std::string api_version =
      config.exec ? config.exec->api_version : "client.authentication.k8s.io/v1";
  boost::json::object spec;
  if (config.exec && config.exec->provide_cluster_info) {
    // clientauthentication Cluster: every field but server is omitempty.
    boost::json::object cluster;
    cluster["server"] = config.server;
    if (!config.tls_server_name.empty()) cluster["tls-server-name"] = config.tls_server_name;
    if (config.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config.ca_pem.empty()) {
      cluster["certificate-authority-data"] = trainer::base64_encode(config.ca_pem);
    }
    if (!config.proxy_url.empty()) cluster["proxy-url"] = config.proxy_url;
    if (config.disable_compression) cluster["disable-compression"] = true;
    if (!config.exec->cluster_config.is_null()) cluster["config"] = config.exec->cluster_config;
    spec["cluster"] = std::move(cluster);
  }
  spec["interactive"] = interactive;
  boost::json::object info;
  info["kind"] = "ExecCredential";
  info["apiVersion"] = api_version;
  info["spec"] = std::move(spec);
  return boost::json::serialize(info);
}

Result<ExecCredential> parse_exec_credential(std::string_view text,
                                             const std::string& api_version) {
  const auto fail_auth = [](std::string message) {
    return fail(ErrorCode::kUnauthorized, std::move(message));
  };
  auto docs = parse_documents(text);
  if (!docs) return fail_auth("decoding stdout: " + docs.error().message);
  if (docs->empty() || !docs->front().is_object()) {
    return fail_auth("decoding stdout: Object 'Kind' is missing");
  }
  const auto& obj = docs->front().get_object();
  const auto str = [&](const boost::json::object& o, std::string_view key) {
    const auto* v = o.if_contains(key);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  const std::string kind = str(obj, "kind");
  const std::string returned_version = str(obj, "apiVersion");
  if (kind.empty()) return fail_auth("decoding stdout: Object 'Kind' is missing");
  if (returned_version != api_version) {
    return fail_auth("exec plugin is configured to use API version " + api_version +
                     ", plugin returned version " + returned_version);
  }
  if (kind != "ExecCredential") {
    return fail_auth("decoding stdout: no kind \"" + kind + "\" is registered for version \"" +
                     api_version + "\"");
  }
  const auto* status_value = obj.if_contains("status");
  if (status_value == nullptr || status_value->is_null()) {
    return fail_auth("exec plugin didn't return a status field");
  }
  if (!status_value->is_object()) return fail_auth("decoding stdout: status: expected an object");
  const auto& status = status_value->get_object();
  ExecCredential cred;
  cred.token = str(status, "token");
  cred.client_cert_pem = str(status, "clientCertificateData");
  cred.client_key_pem = str(status, "clientKeyData");
  if (cred.token.empty() && cred.client_cert_pem.empty() && cred.client_key_pem.empty()) {
    return fail_auth("exec plugin didn't return a token or cert/key pair");
  }
  if (cred.client_cert_pem.empty() != cred.client_key_pem.empty()) {
    return fail_auth("exec plugin returned only certificate or key, not both");
  }
  const std::string expiry = str(status, "expirationTimestamp");
  if (!expiry.empty()) {
    cred.expiry = trainer::detail::parse_rfc3339(expiry);
    if (!cred.expiry) {
      return fail_auth("decoding stdout: parsing time \"" + expiry +
                       "\" as \"2006-01-02T15:04:05Z07:00\": not RFC 3339");
    }
  }
  return cred;
}

Result<ExecCredential> run_exec_plugin(const Config& config, std::chrono::milliseconds timeout,
                                       const CancelToken& cancel) {
  if (!config.exec) return fail(ErrorCode::kInternal, "exec: no exec plugin configured");
  const ExecPlugin& plugin = *config.exec;
  const bool tty = ::isatty(STDIN_FILENO) == 1;
  bool interactive = false;
  if (plugin.interactive_mode == "Always") {
    if (!tty) {
      return fail(ErrorCode::kUnauthorized,
                  "exec plugin cannot support interactive mode: standard input is not a terminal");
    }
    interactive = true;
  } else if (plugin.interactive_mode == "IfAvailable") {
    interactive = tty;
  }
  ProcessSpec spec;
  spec.program = plugin.command;
  spec.args = plugin.args;
  spec.env = plugin_environment(plugin, exec_info_json(config, interactive));
  spec.interactive = interactive;
  spec.timeout = timeout;
  auto run = run_process(spec, cancel);
  if (!run) {
    const auto& e = run.error();
    switch (e.code) {
      case ErrorCode::kNotFound: {
        std::string message = "exec: executable " + plugin.command + " not found" + kHelp;
        if (!plugin.install_hint.empty()) message += "\n\n" + strip_escapes(plugin.install_hint);
        return fail(ErrorCode::kUnauthorized, message);
      }
      case ErrorCode::kTimeout:
        return fail(ErrorCode::kTimeout, "exec: executable " + plugin.command +
                                             " did not finish within " +
                                             std::to_string(timeout.count()) + "ms and was killed");
      case ErrorCode::kCancelled: return tl::unexpected(e);
      case ErrorCode::kLimit:
        return fail(ErrorCode::kUnauthorized,
                    "exec: executable " + plugin.command + " " + e.message);
      default: return fail(ErrorCode::kUnauthorized, e.message);
    }
  }
  if (run->exit_code != 0) {
    return fail(ErrorCode::kUnauthorized, "exec: executable " + plugin.command +
                                              " failed with exit code " +
                                              std::to_string(run->exit_code));
  }
  return parse_exec_credential(run->stdout_text, plugin.api_version);
}

}  // namespace trainer::kube::detail
