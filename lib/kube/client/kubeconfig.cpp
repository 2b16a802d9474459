// SPDX-License-Identifier: Apache-2.0
//
// load_config: which kubeconfig files (kubectl's --kubeconfig / $KUBECONFIG / ~/.kube/config),
// the merge (kubeconfig_merge.cpp), the context, and the chosen cluster and user turned into a
// Config with client-go's validation and wording (ConfirmUsable: only the chosen context's
// cluster and user are checked; one problem reads as itself, several as client-go's aggregate).
#include "kube/client/config_files.hpp"
#include "kube/client/kubeconfig_merge.hpp"
#include "trainer/base64.hpp"
#include "trainer/kube.hpp"
#include "trainer/names.hpp"

#include <boost/json/array.hpp>

#include <cerrno>

namespace trainer::kube {
namespace {

using detail::KubeconfigEntry;
using detail::MergedKubeconfig;

constexpr const char* kEmptyConfig =
    "invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER "
    "environment variable";
constexpr const char* kExecExtension = "client.authentication.k8s.io/exec";

// Reads the typed fields of one entry; a field of the wrong JSON type is noted (as Go's decoder
// would refuse the file) and reads as empty.
class Fields {
 public:
  Fields(const KubeconfigEntry& entry, std::string where)
      : obj_(entry.body), file_(entry.file), where_(std::move(where)) {}

  std::string str(std::string_view key) {
    const auto* v = obj_.if_contains(key);
    if (v == nullptr || v->is_null()) return {};
    if (!v->is_string()) {
      wrong_type(key, "string");
      return {};
    }
    return std::string(v->get_string());
  }
  bool flag(std::string_view key) {
    const auto* v = obj_.if_contains(key);
    if (v == nullptr || v->is_null()) return false;
    if (!v->is_bool()) {
      wrong_type(key, "bool");
      return false;
    }
    return v->get_bool();
  }
  std::vector<std::string> strings(std::string_view key) {
    std::vector<std::string> out;
    const auto* v = obj_.if_contains(key);
    if (v == nullptr || v->is_null()) return out;
    if (!v->is_array()) {
      wrong_type(key, "[]string");
      return out;
    }
    for (const auto& item : v->get_array()) {
      if (!item.is_string()) {
        wrong_type(key, "[]string");
        return {};
      }
      out.emplace_back(item.get_string());
    }
    return out;
  }
  // `*-data` fields: base64 of the bytes (Go's []byte in JSON); line breaks are ignored.
  std::string data(std::string_view key) {
    const std::string text = str(key);
    if (text.empty()) return {};
    auto decoded = trainer::base64_decode(text, Base64Decoding::kGo);
    if (!decoded) {
      note("error loading config file \"" + file_ + "\": illegal base64 data in " + where_ + "." +
           std::string(key));
      return {};
    }
    return *decoded;
  }
  [[nodiscard]] const boost::json::object& object() const { return obj_; }
  void note(std::string message) {
    if (!error_) error_ = std::move(message);
  }
  [[nodiscard]] const std::optional<std::string>& error() const { return error_; }

 private:
  void wrong_type(std::string_view key, const char* type) {
    note("error loading config file \"" + file_ + "\": " + where_ + "." + std::string(key) +
         ": expected " + type);
  }
  const boost::json::object& obj_;
  std::string file_;
  std::string where_;
  std::optional<std::string> error_;
};

// Reads a file the kubeconfig names; client-go's wording for an unreadable one.
std::string read_named(const std::string& path, const char* what, const std::string& owner,
                       std::vector<std::string>& errors) {
  auto text = detail::read_file(path);
  if (!text) {
    errors.push_back("unable to read " + std::string(what) + " " + path + " for " + owner +
                     " due to " + text.error().message);
    return {};
  }
  return *text;
}

// `https://host:port[/prefix]`: a missing scheme means https (client-go's DefaultServerURL);
// query and fragment are dropped, and a trailing `/` so the prefix joins API paths cleanly.
std::string normalize_server(std::string server) {
  if (server.find("://") == std::string::npos) server = "https://" + server;
  const auto cut = server.find_first_of("?#");
  if (cut != std::string::npos) server.erase(cut);
  while (server.size() > 1 && server.back() == '/' &&
         server.compare(server.size() - 3, 3, "://") != 0) {
    server.pop_back();
  }
  return server;
}

void apply_cluster(const std::string& name, const KubeconfigEntry& entry, Config& config,
                   boost::json::value& exec_cluster_config, std::vector<std::string>& errors,
                   std::optional<std::string>& decode_error) {
  Fields f(entry, "clusters[" + name + "].cluster");
  const std::string server = f.str("server");
  const std::string ca_file = detail::resolve_against(entry.dir, f.str("certificate-authority"));
  const std::string ca_data = f.data("certificate-authority-data");
  config.tls_server_name = f.str("tls-server-name");
  config.insecure_skip_tls_verify = f.flag("insecure-skip-tls-verify");
  config.proxy_url = f.str("proxy-url");
  config.disable_compression = f.flag("disable-compression");
  if (server.empty()) {
    errors.push_back("no server found for cluster \"" + name + "\"");
  } else {
    config.server = normalize_server(server);
  }
  if (!config.proxy_url.empty()) {
    const auto colon = config.proxy_url.find("://");
    const std::string scheme =
        colon == std::string::npos ? std::string() : config.proxy_url.substr(0, colon);
    if (scheme != "http" && scheme != "https" && scheme != "socks5") {
      errors.push_back("invalid 'proxy-url' \"" + config.proxy_url + "\" for cluster \"" + name +
                       "\": unsupported scheme \"" + scheme + "\", must be http, https, or socks5");
    }
  }
  if (!ca_file.empty() && !ca_data.empty()) {
    errors.push_back(
        "certificate-authority-data and certificate-authority are both specified for " + name +
        ". certificate-authority-data will override.");
  }
  if (!ca_data.empty()) {
    config.ca_pem = ca_data;
  } else if (!ca_file.empty()) {
    config.ca_pem = read_named(ca_file, "certificate-authority", name, errors);
    config.ca_file = ca_file;
  }
  if (config.insecure_skip_tls_verify && (!ca_file.empty() || !ca_data.empty())) {
    errors.emplace_back(
        "specifying a root certificates file with the insecure flag is not allowed");
  } else if (config.insecure_skip_tls_verify) {
    config.warnings.push_back("insecure-skip-tls-verify is set for cluster \"" + name +
                              "\": the server's certificate is not verified, and the "
                              "connection may be intercepted");
  }
  // The exec plugin's per-cluster configuration (spec.cluster.config).
  if (const auto* list = f.object().if_contains("extensions");
      list != nullptr && list->is_array()) {
    for (const auto& item : list->get_array()) {
      const auto* obj = item.if_object();
      if (obj == nullptr) continue;
      const auto* n = obj->if_contains("name");
      if (n != nullptr && n->is_string() && n->get_string() == kExecExtension) {
        if (const auto* ext = obj->if_contains("extension")) exec_cluster_config = *ext;
      }
    }
  }
  if (f.error() && !decode_error) decode_error = f.error();
}

void apply_exec(const std::string& user, const KubeconfigEntry& entry,
                const boost::json::object& exec, Config& config, std::vector<std::string>& errors,
                std::optional<std::string>& decode_error) {
  KubeconfigEntry sub{exec, entry.file, entry.dir};
  Fields f(sub, "users[" + user + "].user.exec");
  ExecPlugin plugin;
  plugin.api_version = f.str("apiVersion");
  plugin.command = f.str("command");
  plugin.args = f.strings("args");
  plugin.interactive_mode = f.str("interactiveMode");
  plugin.provide_cluster_info = f.flag("provideClusterInfo");
  plugin.install_hint = f.str("installHint");
  bool env_name_missing = false;
  if (const auto* env = exec.if_contains("env"); env != nullptr && env->is_array()) {
    for (const auto& item : env->get_array()) {
      const auto* obj = item.if_object();
      if (obj == nullptr) continue;
      std::string name;
      std::string value;
      if (const auto* n = obj->if_contains("name"); n != nullptr && n->is_string()) {
        name = std::string(n->get_string());
      }
      if (const auto* v = obj->if_contains("value"); v != nullptr && v->is_string()) {
        value = std::string(v->get_string());
      }
      if (name.empty()) env_name_missing = true;
      plugin.env.emplace_back(std::move(name), std::move(value));
    }
  }
  if (plugin.command.empty()) {
    errors.push_back("command must be specified for " + user +
                     " to use exec authentication plugin");
  }
  if (plugin.api_version.empty()) {
    errors.push_back("apiVersion must be specified for " + user +
                     " to use exec authentication plugin");
  }
  if (env_name_missing) {
    errors.push_back("env variable name must be specified for " + user +
                     " to use exec authentication plugin");
  }
  // v1beta1 defaults interactiveMode (clientcmd/api/v1/defaults.go); v1 requires it.
  if (plugin.interactive_mode.empty() &&
      plugin.api_version == "client.authentication.k8s.io/v1beta1") {
    plugin.interactive_mode = "IfAvailable";
  }
  if (plugin.interactive_mode.empty()) {
    errors.push_back("interactiveMode must be specified for " + user +
                     " to use exec authentication plugin");
  } else if (plugin.interactive_mode != "Never" && plugin.interactive_mode != "IfAvailable" &&
             plugin.interactive_mode != "Always") {
    errors.push_back("invalid interactiveMode for " + user + ": \"" + plugin.interactive_mode +
                     "\"");
  }
  if (!plugin.api_version.empty() && plugin.api_version != "client.authentication.k8s.io/v1" &&
      plugin.api_version != "client.authentication.k8s.io/v1beta1") {
    errors.push_back("exec plugin: invalid apiVersion \"" + plugin.api_version + "\"");
  }
  // A relative path with a separator is relative to the kubeconfig; a bare name uses PATH.
  if (plugin.command.find('/') != std::string::npos) {
    plugin.command = detail::resolve_against(entry.dir, plugin.command);
  }
  if (f.error() && !decode_error) decode_error = f.error();
  config.exec = std::move(plugin);
}

void apply_user(const std::string& name, const KubeconfigEntry& entry, Config& config,
                std::vector<std::string>& errors, std::optional<std::string>& decode_error) {
  Fields f(entry, "users[" + name + "].user");
  config.token = f.str("token");
  const std::string token_file = detail::resolve_against(entry.dir, f.str("tokenFile"));
  const std::string cert_file = detail::resolve_against(entry.dir, f.str("client-certificate"));
  const std::string cert_data = f.data("client-certificate-data");
  const std::string key_file = detail::resolve_against(entry.dir, f.str("client-key"));
  const std::string key_data = f.data("client-key-data");
  config.impersonate_user = f.str("as");
  config.impersonate_groups = f.strings("as-groups");

  if (!token_file.empty()) {
    config.token_file = token_file;
    // client-go reads the file at load time when no token is inline (an unreadable file is an
    // error then); afterwards the authenticator re-reads it.
    if (config.token.empty()) {
      auto text = detail::read_file(token_file);
      if (!text) {
        errors.push_back(text.error().message);
      } else {
        config.token = detail::trim_space(*text);
      }
    }
  }
  if (!cert_file.empty() || !cert_data.empty()) {
    if (!cert_file.empty() && !cert_data.empty()) {
      errors.push_back("client-cert-data and client-cert are both specified for " + name +
                       ". client-cert-data will override.");
    }
    if (!key_file.empty() && !key_data.empty()) {
      errors.push_back("client-key-data and client-key are both specified for " + name +
                       "; client-key-data will override");
    }
    if (key_file.empty() && key_data.empty()) {
      errors.push_back("client-key-data or client-key must be specified for " + name +
                       " to use the clientCert authentication method.");
    }
    if (!cert_data.empty()) {
      config.client_cert_pem = cert_data;
    } else {
      config.client_cert_pem = read_named(cert_file, "client-cert", name, errors);
      config.client_cert_file = cert_file;
    }
    if (!key_data.empty()) {
      config.client_key_pem = key_data;
    } else if (!key_file.empty()) {
      config.client_key_pem = read_named(key_file, "client-key", name, errors);
    }
  } else if (!key_file.empty() || !key_data.empty()) {
    // client-go would silently send no certificate; a key alone is certainly a mistake.
    errors.push_back("client-cert-data or client-cert must be specified for " + name +
                     " to use the clientCert authentication method.");
  }
  const auto* exec = f.object().if_contains("exec");
  const auto* provider = f.object().if_contains("auth-provider");
  if (exec != nullptr && exec->is_object()) {
    apply_exec(name, entry, exec->get_object(), config, errors, decode_error);
    if (provider != nullptr && !provider->is_null()) {
      errors.push_back("authProvider cannot be provided in combination with an exec plugin for " +
                       name);
    }
  } else if (provider != nullptr && provider->is_object()) {
    std::string provider_name;
    if (const auto* n = provider->get_object().if_contains("name");
        n != nullptr && n->is_string()) {
      provider_name = std::string(n->get_string());
    }
    // Only exec plugins are implemented; client-go's own gcp/azure providers are gone too.
    errors.push_back("no Auth Provider found for name \"" + provider_name + "\"");
  }
  if ((!f.str("username").empty() || !f.str("password").empty()) && !config.token.empty()) {
    errors.push_back("more than one authentication method found for " + name +
                     "; found [token basicAuth], only one is allowed");
  }
  if (!config.impersonate_groups.empty() && config.impersonate_user.empty()) {
    errors.push_back("requesting groups or user-extra for " + name +
                     " without impersonating a user");
  }
  if (f.error() && !decode_error) decode_error = f.error();
}

// The Config for the chosen context of a merged kubeconfig.
Result<Config> config_from_kubeconfig(const MergedKubeconfig& merged, const LoadOptions& options) {
  if (!options.context.empty() && merged.contexts.count(options.context) == 0) {
    return fail(ErrorCode::kInvalidArgument, "context \"" + options.context + "\" does not exist");
  }
  const std::string context_name =
      options.context.empty() ? merged.current_context : options.context;
  if (context_name.empty()) return fail(ErrorCode::kInvalidArgument, kEmptyConfig);
  const auto ctx_it = merged.contexts.find(context_name);
  if (ctx_it == merged.contexts.end()) {
    return fail(
        ErrorCode::kInvalidArgument,
        "invalid configuration: context was not found for specified context: " + context_name);
  }
  Config config;
  config.context = context_name;
  config.source = "kubeconfig";
  for (std::size_t i = 0; i < merged.files.size(); ++i) {
    config.source += (i == 0 ? " " : ":") + merged.files[i];
  }

  std::vector<std::string> errors;
  std::optional<std::string> decode_error;
  boost::json::value exec_cluster_config;
  Fields ctx(ctx_it->second, "contexts[" + context_name + "].context");
  config.cluster = ctx.str("cluster");
  config.user = ctx.str("user");
  const std::string ctx_namespace = ctx.str("namespace");
  if (ctx.error()) decode_error = ctx.error();

  if (config.cluster.empty()) {
    errors.push_back("cluster was not specified for context \"" + context_name + "\"");
  } else if (const auto it = merged.clusters.find(config.cluster); it == merged.clusters.end()) {
    errors.push_back("cluster \"" + config.cluster + "\" was not found for context \"" +
                     context_name + "\"");
  } else {
    apply_cluster(config.cluster, it->second, config, exec_cluster_config, errors, decode_error);
  }
  // A context without a user is anonymous (kubectl accepts it); a named one must exist.
  if (!config.user.empty()) {
    if (const auto it = merged.users.find(config.user); it == merged.users.end()) {
      errors.push_back("user \"" + config.user + "\" was not found for context \"" + context_name +
                       "\"");
    } else {
      apply_user(config.user, it->second, config, errors, decode_error);
    }
  }
  if (!ctx_namespace.empty() && !trainer::is_dns1123_label(ctx_namespace).empty()) {
    errors.push_back("namespace \"" + ctx_namespace + "\" for context \"" + context_name +
                     "\" does not conform to the kubernetes DNS_LABEL rules");
  }
  if (decode_error) return fail(ErrorCode::kParse, *decode_error);
  if (errors.size() == 1) return fail(ErrorCode::kInvalidArgument, errors.front());
  if (!errors.empty()) {
    std::string text = "invalid configuration: [";
    for (std::size_t i = 0; i < errors.size(); ++i) text += (i == 0 ? "" : ", ") + errors[i];
    return fail(ErrorCode::kInvalidArgument, text + "]");
  }
  if (config.exec) config.exec->cluster_config = exec_cluster_config;
  config.namespace_ = !options.namespace_.empty() ? options.namespace_
                      : !ctx_namespace.empty()    ? ctx_namespace
                                                  : "default";
  return config;
}

}  // namespace

Result<Config> load_config(const LoadOptions& options) {
  std::vector<std::string> files;
  const bool explicit_file = !options.kubeconfig.empty();
  if (explicit_file) {
    files.push_back(options.kubeconfig);
  } else {
    const std::string env = detail::env_or(options.kubeconfig_env, "KUBECONFIG");
    if (!env.empty()) {
      std::size_t start = 0;
      while (start <= env.size()) {
        const auto colon = env.find(':', start);
        const auto end = colon == std::string::npos ? env.size() : colon;
        if (end > start) files.push_back(env.substr(start, end - start));
        start = end + 1;
      }
    } else {
      const std::string home = detail::env_or(options.home, "HOME");
      if (!home.empty()) files.push_back(home + "/.kube/config");
    }
  }
  auto merged = detail::load_kubeconfig_files(files, explicit_file);
  if (!merged) return tl::unexpected(merged.error());
  // Nothing configured (no file, or only empty ones): in-cluster, as client-go's deferred
  // loader does; never for an explicit --kubeconfig.
  if (!explicit_file && merged->empty() && options.context.empty()) {
    const std::string token = options.service_account_dir + "/token";
    const bool possible =
        !detail::env_or(options.service_host, "KUBERNETES_SERVICE_HOST").empty() &&
        !detail::env_or(options.service_port, "KUBERNETES_SERVICE_PORT").empty() &&
        detail::path_exists(token);
    if (possible) return in_cluster_config(options);
    return fail(ErrorCode::kNotFound, kEmptyConfig);
  }
  return config_from_kubeconfig(*merged, options);
}

}  // namespace trainer::kube
