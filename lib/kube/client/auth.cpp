// SPDX-License-Identifier: Apache-2.0
//
// The Authenticator of auth.hpp. One mutex guards the cached credentials; for an exec plugin
// it is held while the plugin runs, so concurrent requests wait for one run instead of starting
// their own (client-go does the same). `generation` changes whenever the credentials do, so a
// 401 for credentials that were already replaced does not throw the new ones away.
#include "kube/client/auth.hpp"

#include "kube/client/config_files.hpp"
#include "kube/client/exec_credential.hpp"

#include <algorithm>
#include <mutex>

namespace trainer::kube::detail {
namespace {

// client-go caches a token file for a minute (with 10 s leeway); so does this.
constexpr std::chrono::seconds kTokenFileRefresh{60};
constexpr std::size_t kMaxTokenBytes = std::size_t{1} << 20U;

class DefaultAuthenticator final : public Authenticator {
 public:
  DefaultAuthenticator(const Config& config, const ClientOptions& options)
      : config_(config), exec_timeout_(options.exec_timeout) {
    // An exec plugin is skipped entirely when the user has a token or a certificate
    // (client-go's exec UpdateTransportConfig; kubernetes#87369).
    use_exec_ = config_.exec.has_value() && config_.token.empty() && config_.token_file.empty() &&
                config_.client_cert_pem.empty();
  }

  Result<Credentials> current(
      const CancelToken& cancel,
      std::optional<std::chrono::steady_clock::time_point> deadline) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (use_exec_) return exec_credentials(cancel, deadline);
    Credentials creds;
    creds.bearer_token = config_.token;
    if (!config_.token_file.empty()) {
      refresh_token_file();
      if (!file_token_.empty()) creds.bearer_token = file_token_;
    }
    creds.client_cert_pem = config_.client_cert_pem;
    creds.client_key_pem = config_.client_key_pem;
    creds.generation = generation_;
    return creds;
  }

  bool invalidate(const Credentials& used) override {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (use_exec_) {
      if (used.generation == generation_) cached_.reset();
      return true;
    }
    if (!config_.token_file.empty()) {
      if (used.generation == generation_) file_checked_ = false;
      return true;
    }
    return false;
  }

  [[nodiscard]] std::string describe() const override {
    std::string who;
    if (config_.source == "in-cluster") {
      who = "the service account of the in-cluster configuration";
    } else if (config_.user.empty()) {
      who = "no user";
    } else {
      who = "user \"" + config_.user + "\"";
    }
    if (!config_.context.empty()) who += " of context \"" + config_.context + "\"";
    std::vector<std::string> methods;
    if (use_exec_) {
      methods.push_back("exec plugin \"" + config_.exec->command + "\"");
    } else {
      if (!config_.client_cert_pem.empty()) {
        methods.push_back(config_.client_cert_file.empty()
                              ? "client certificate data"
                              : "client certificate " + config_.client_cert_file);
      }
      if (!config_.token_file.empty()) {
        methods.push_back("token file " + config_.token_file);
      } else if (!config_.token.empty()) {
        methods.emplace_back("bearer token");
      }
    }
    if (methods.empty()) methods.emplace_back("no credentials");
    who += " (";
    for (std::size_t i = 0; i < methods.size(); ++i) who += (i == 0 ? "" : ", ") + methods[i];
    return who + ")";
  }

 private:
  Result<Credentials> exec_credentials(
      const CancelToken& cancel, std::optional<std::chrono::steady_clock::time_point> deadline) {
    const bool expired =
        cached_ && cached_->expiry && std::chrono::system_clock::now() >= *cached_->expiry;
    if (!cached_ || expired) {
      // The request that waits for the plugin ends at its deadline; a plugin that outlives it
      // would hold every other request of the client (they wait for this run) for nothing.
      auto timeout = exec_timeout_;
      bool request_bound = false;
      if (deadline) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(
            *deadline - std::chrono::steady_clock::now());
        if (left < timeout) {
          timeout = std::max(left, std::chrono::milliseconds(1));
          request_bound = true;
        }
      }
      // No negative caching: a failed run is tried again by the next request, as client-go.
      auto fresh = run_exec_plugin(config_, timeout, cancel);
      if (!fresh) {
        Error e = fresh.error();
        e.message = "getting credentials: " + e.message;
        if (request_bound && e.code == ErrorCode::kTimeout) {
          e.message += " (what was left of the request timeout)";
        }
        return tl::unexpected(std::move(e));
      }
      cached_ = std::move(*fresh);
      ++generation_;
    }
    Credentials creds;
    creds.bearer_token = cached_->token;
    creds.client_cert_pem = cached_->client_cert_pem;
    creds.client_key_pem = cached_->client_key_pem;
    creds.generation = generation_;
    return creds;
  }

  // Re-reads the token file when the cached value is older than a minute or was invalidated;
  // an unreadable or empty file keeps the last good value (client-go's cachingTokenSource).
  void refresh_token_file() {
    const auto now = std::chrono::steady_clock::now();
    if (file_checked_ && now - file_read_at_ < kTokenFileRefresh) return;
    file_checked_ = true;
    file_read_at_ = now;
    auto text = read_file(config_.token_file, kMaxTokenBytes);
    if (!text) return;
    std::string token = trim_space(*text);
    if (token.empty() || token == file_token_) return;
    if (!file_token_.empty() || token != config_.token) ++generation_;
    file_token_ = std::move(token);
  }

  const Config config_;
  const std::chrono::milliseconds exec_timeout_;
  bool use_exec_ = false;
  std::mutex mutex_;
  std::uint64_t generation_ = 1;
  std::optional<ExecCredential> cached_;
  std::string file_token_;
  bool file_checked_ = false;
  std::chrono::steady_clock::time_point file_read_at_{};
};

}  // namespace

Result<std::unique_ptr<Authenticator>> Authenticator::create(const Config& config,
                                                             const ClientOptions& options) {
  if (config.client_cert_pem.empty() != config.client_key_pem.empty()) {
    return fail(ErrorCode::kInvalidArgument,
                config.client_cert_pem.empty()
                    ? "a client key was given without a client certificate"
                    : "client-key-data or client-key must be specified for " + config.user +
                          " to use the clientCert authentication method.");
  }
  if (config.exec && config.exec->command.empty()) {
    return fail(ErrorCode::kInvalidArgument, "command must be specified for " + config.user +
                                                 " to use exec authentication plugin");
  }
  if (config.exec && config.exec->api_version != "client.authentication.k8s.io/v1" &&
      config.exec->api_version != "client.authentication.k8s.io/v1beta1") {
    return fail(ErrorCode::kInvalidArgument,
                "exec plugin: invalid apiVersion \"" + config.exec->api_version + "\"");
  }
  return std::unique_ptr<Authenticator>(new DefaultAuthenticator(config, options));
}

}  // namespace trainer::kube::detail
