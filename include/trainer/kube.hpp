// SPDX-License-Identifier: Apache-2.0
//
// A Kubernetes API client on libcurl that reads its configuration as kubectl and client-go do
// and talks to the API server as client-go does (docs/cluster.md).
//
//   auto config = trainer::kube::load_config({});                 // kubeconfig or in-cluster
//   auto client = trainer::kube::Client::create(*config);
//   auto trainjobs = client->resource_for("trainer.kubeflow.org/v1alpha1", "TrainJob");
//   auto list = client->list(*trainjobs, "team-a", {});           // every page, one List
//
// Thread safety: a `Client` may be used from any number of threads at once (requests share one
// connection cache, one rate limiter and one credential cache). `CancelToken::cancel()` may be
// called from any thread.
#pragma once

#include "trainer/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::kube {

// ---- Configuration -------------------------------------------------------------------------

/// A `users[].user.exec` credential plugin (`client.authentication.k8s.io/v1` or `v1beta1`).
struct ExecPlugin {
  std::string api_version;  ///< `client.authentication.k8s.io/v1` or `.../v1beta1`
  /// The program: a bare name is looked up on PATH; a relative path with a `/` was resolved
  /// against the folder of the kubeconfig that defined it. Run with argv, never a shell.
  std::string command;
  std::vector<std::string> args;
  /// Added on top of the parent environment (later entries win).
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactive_mode;  ///< `Never`, `IfAvailable` or `Always`
  bool provide_cluster_info = false;
  std::string install_hint;
  /// The cluster's `client.authentication.k8s.io/exec` extension (`spec.cluster.config`).
  boost::json::value cluster_config;
};

/// Everything a client needs to reach and authenticate to one API server: client-go's
/// `rest.Config` after kubeconfig merging and context selection, or from in-cluster files.
struct Config {
  std::string server;  ///< `https://host:port[/prefix]`; the path is a prefix of every API path
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;   ///< CA bundle (PEM); empty: the system's trust store
  std::string ca_file;  ///< the file `ca_pem` came from, empty when inline or in-cluster data
  std::string proxy_url;
  bool disable_compression = false;

  std::string token;       ///< static bearer token
  std::string token_file;  ///< re-read about once a minute; wins over `token` when readable
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string client_cert_file;  ///< where the certificate came from, for messages
  std::optional<ExecPlugin> exec;
  /// Impersonation (`as`, `as-groups`): sent as `Impersonate-User` / `Impersonate-Group`.
  std::string impersonate_user;
  std::vector<std::string> impersonate_groups;

  std::string namespace_ = "default";  ///< the default namespace of the context
  /// Names for messages: which context, cluster and user were chosen, and where the
  /// configuration came from (`kubeconfig /root/.kube/config`, `in-cluster`).
  std::string context;
  std::string cluster;
  std::string user;
  std::string source;
  /// Things kubectl would warn about (`insecure-skip-tls-verify` in use, ...).
  std::vector<std::string> warnings;
};

/// Where `load_config` looks, as kubectl's flags and environment say.
struct LoadOptions {
  /// `--kubeconfig`: only this file, which must exist. Empty: `$KUBECONFIG` (a `:`-separated
  /// list, merged first-wins, missing files skipped), else `~/.kube/config`, else in-cluster.
  std::string kubeconfig;
  std::string context;     ///< `--context`; empty: `current-context`
  std::string namespace_;  ///< `-n`; empty: the context's namespace, else `default`
  /// Overrides of the process environment (tests, embedders): `KUBECONFIG`, `HOME`, and the
  /// in-cluster inputs. `std::nullopt` reads the real environment.
  std::optional<std::string> kubeconfig_env;
  std::optional<std::string> home;
  std::optional<std::string> service_host;   ///< KUBERNETES_SERVICE_HOST
  std::optional<std::string> service_port;   ///< KUBERNETES_SERVICE_PORT
  std::optional<std::string> pod_namespace;  ///< POD_NAMESPACE
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

/// Loads the configuration as kubectl does (see `LoadOptions`); falls back to in-cluster
/// configuration when no kubeconfig file exists. Errors are kubectl's
/// (`context "x" does not exist`, `no server found for cluster "c"`, ...) with code
/// `kInvalidArgument`; unreadable files are `kIo`, undecodable ones `kParse`.
[[nodiscard]] Result<Config> load_config(const LoadOptions& options = {});
/// In-cluster configuration from the service account folder and KUBERNETES_SERVICE_HOST/PORT;
/// `kNotFound` when not in a cluster.
[[nodiscard]] Result<Config> in_cluster_config(const LoadOptions& options = {});

// ---- Cancellation --------------------------------------------------------------------------

/// A cancellation signal shared by the caller and the requests it is passed to. Copies share
/// one state. A default-constructed token can be cancelled too. A request in flight when
/// `cancel()` is called returns `kCancelled` promptly (its transfer is woken, not polled); a
/// request started with a cancelled token fails at once.
class CancelToken {
 public:
  CancelToken();
  void cancel() const noexcept;
  [[nodiscard]] bool cancelled() const noexcept;

  struct State;
  [[nodiscard]] const std::shared_ptr<State>& state() const noexcept { return state_; }

 private:
  std::shared_ptr<State> state_;
};

// ---- Client --------------------------------------------------------------------------------

struct ClientOptions {
  /// Client-side rate limit (token bucket, client-go's defaults); `qps < 0` disables it.
  double qps = 5.0;
  int burst = 10;
  /// Bound on each non-streaming request (kubectl's `--request-timeout`), retries included.
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};
  /// Bound on connecting (TCP and TLS) for every request, streams included.
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  /// A stream (watch, followed logs) that delivers no byte for this long is treated as a dropped
  /// connection. Watches ask the server for bookmarks and end their requests sooner than this.
  std::chrono::milliseconds stream_idle_timeout{std::chrono::seconds(90)};
  /// Retries of one request on 429 and on 5xx with `Retry-After` (never on other errors).
  int max_retries = 10;
  /// Upper bound on one `Retry-After` wait.
  std::chrono::milliseconds max_retry_wait{std::chrono::seconds(30)};
  /// Bound on one run of an exec credential plugin. The run is bounded by the timeout of the
  /// request that needs the credentials too (`timeout`, `CallOptions::timeout`), whichever ends
  /// first.
  std::chrono::milliseconds exec_timeout{std::chrono::seconds(60)};
  /// Bound on the body of one response (one page of a list), after decompression: a larger one
  /// is cut as soon as the bound is crossed (or refused by its `Content-Length`) and the call
  /// fails with `kLimit` naming the request and this field (docs/cluster.md, "Limits").
  std::size_t max_response_bytes = std::size_t{256} << 20U;
  /// Bound on one event of a watch stream (one object): a larger one ends the watch with
  /// `kLimit` naming the request and this field.
  std::size_t max_watch_event_bytes = std::size_t{16} << 20U;
  /// Empty: `libtrainer/<version> (linux/<arch>)`.
  std::string user_agent;
  /// Each `Warning` header (code 299) of a response, once per text per request.
  std::function<void(std::string_view)> on_warning;
  /// What the client recovers from by itself and a user may still want to see, one line each,
  /// as client-go logs it: a watch (or its list) that failed and is retried, with the error and
  /// the backoff before the next try (`watch of trainjobs.trainer.kubeflow.org in namespace "ns"
  /// failed, retrying in 1.2s: ...`), and a `Retry-After` retry with the wait really taken.
  /// Called on the thread of the call, possibly from several at once; an exception it throws is
  /// dropped. Empty: the lines are dropped.
  std::function<void(std::string_view)> on_log;
};

/// An API resource found through discovery.
struct Resource {
  std::string group;     ///< empty for the core group
  std::string version;   ///< `v1alpha1`
  std::string resource;  ///< the plural, `trainjobs`
  std::string kind;      ///< `TrainJob`
  std::string singular;  ///< `trainjob`
  bool namespaced = true;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;

  /// `group/version`, or `version` for the core group.
  [[nodiscard]] std::string api_version() const;
  /// kubectl's `<lowercase kind>.<group>`, e.g. `trainjob.trainer.kubeflow.org` (`pod` for core).
  [[nodiscard]] std::string kind_group() const;
};

/// What every call can carry.
struct CallOptions {
  CancelToken cancel;
  /// Replaces `ClientOptions::timeout` for this call (0: keep it).
  std::chrono::milliseconds timeout{0};
};

struct ListOptions : CallOptions {
  std::string label_selector;
  std::string field_selector;
  /// Page size (`limit`); every page is fetched and merged. 0 asks for everything at once.
  std::int64_t limit = 500;
  bool all_namespaces = false;  ///< namespaced resources: list every namespace
};

/// `fieldValidation` of writes.
enum class FieldValidation { kStrict, kWarn, kIgnore };

struct WriteOptions : CallOptions {
  std::string field_manager;  ///< empty: the server derives one from the User-Agent
  bool dry_run = false;       ///< `dryRun=All`
  FieldValidation field_validation = FieldValidation::kStrict;
  std::string subresource;  ///< e.g. `status`
};

struct ApplyOptions : WriteOptions {
  ApplyOptions() { field_manager = "libtrainer"; }
  bool force = false;  ///< take fields over from other managers
};

enum class PatchType {
  kMerge,      ///< application/merge-patch+json (RFC 7386)
  kJson,       ///< application/json-patch+json (RFC 6902)
  kStrategic,  ///< application/strategic-merge-patch+json (built-in kinds only)
};

enum class Propagation { kDefault, kBackground, kForeground, kOrphan };

struct DeleteOptions : CallOptions {
  Propagation propagation = Propagation::kDefault;
  std::optional<std::int64_t> grace_period_seconds;
  std::string precondition_uid;
  std::string precondition_resource_version;
  bool dry_run = false;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark };

[[nodiscard]] const char* to_string(WatchEventType type) noexcept;  // "ADDED", ...

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  boost::json::object object;
};

struct WatchOptions : CallOptions {
  std::string label_selector;
  std::string field_selector;
  bool all_namespaces = false;
  /// Empty: list first, deliver every object as ADDED, then watch from the list's version.
  /// Otherwise watch changes after this resourceVersion.
  std::string resource_version;
  bool bookmarks = true;  ///< allowWatchBookmarks; BOOKMARK events reach the callback too
  /// `timeoutSeconds` of each watch request; the watch is then resumed from the last version.
  std::chrono::seconds request_timeout{300};
  /// Called on the watch's thread after the events of each list were delivered: the first list
  /// (without `resource_version`) and every relist after `410 Gone`. From the first call on, the
  /// events seen hold the whole collection (client-go's `HasSynced`). May be empty.
  std::function<void()> on_listed;
};

struct LogOptions : CallOptions {
  std::string container;
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> since_seconds;
  bool timestamps = false;
};

/// A request outside the typed operations (the escape hatch): `path` is the API path without
/// the server's prefix, `query` already encoded.
struct RawRequest : CallOptions {
  std::string method = "GET";
  std::string path;
  std::string query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct RawResponse {
  long status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

/// Requests a client has sent, by HTTP method, counted once per call (a retry of the same call
/// on 429, 5xx or a dropped connection is not counted again): what a code path costs the API
/// server. Each page of a list and each watch request (a resumed watch is a new one) is a GET.
struct RequestCounts {
  std::uint64_t get = 0;
  std::uint64_t post = 0;
  std::uint64_t put = 0;
  std::uint64_t patch = 0;  ///< merge, JSON and strategic patches and server-side applies
  std::uint64_t del = 0;    ///< DELETE
  std::uint64_t other = 0;
  [[nodiscard]] std::uint64_t total() const { return get + post + put + patch + del + other; }
  [[nodiscard]] std::uint64_t writes() const { return post + put + patch + del; }
};

class Client {
 public:
  /// Checks `config` (TLS material parses, a credential source is usable) without contacting
  /// the server; `kInvalidArgument` names what is wrong.
  [[nodiscard]] static Result<Client> create(Config config, ClientOptions options = {});

  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  ~Client();

  [[nodiscard]] const Config& config() const noexcept;
  /// The namespace used where a call passes an empty one.
  [[nodiscard]] const std::string& default_namespace() const noexcept;

  /// Discovery (aggregated where the server offers it), cached for the client's lifetime and
  /// refreshed once when a kind is not found. `kNotFound`: `the server doesn't have a resource
  /// type "<Kind>" in "<apiVersion>"`.
  [[nodiscard]] Result<Resource> resource_for(std::string_view api_version, std::string_view kind,
                                              const CallOptions& options = {});
  /// By plural, singular, kind or short name as kubectl accepts them (`trainjobs`, `trainjob`,
  /// `TrainJob`, `trainjobs.trainer.kubeflow.org`).
  [[nodiscard]] Result<Resource> resource_named(std::string_view name,
                                                const CallOptions& options = {});

  [[nodiscard]] Result<boost::json::object> get(const Resource& resource, std::string_view ns,
                                                std::string_view name,
                                                const CallOptions& options = {});
  /// Every page (following `continue`; an expired continue token restarts the list), as one
  /// object `{"apiVersion", "kind": "<Kind>List", "metadata": {"resourceVersion"}, "items"}`.
  [[nodiscard]] Result<boost::json::object> list(const Resource& resource, std::string_view ns,
                                                 const ListOptions& options = {});
  [[nodiscard]] Result<boost::json::object> create(const Resource& resource, std::string_view ns,
                                                   const boost::json::object& object,
                                                   const WriteOptions& options = {});
  /// Server-side apply of `object` (its `metadata.name`), `application/apply-patch+yaml`.
  [[nodiscard]] Result<boost::json::object> apply(const Resource& resource, std::string_view ns,
                                                  const boost::json::object& object,
                                                  const ApplyOptions& options = {});
  [[nodiscard]] Result<boost::json::object> patch(const Resource& resource, std::string_view ns,
                                                  std::string_view name, PatchType type,
                                                  std::string_view body,
                                                  const WriteOptions& options = {});
  /// The deleted object (still present while finalizers or a grace period hold it) or the
  /// server's `Status` of success.
  [[nodiscard]] Result<boost::json::object> remove(const Resource& resource, std::string_view ns,
                                                   std::string_view name,
                                                   const DeleteOptions& options = {});
  /// Watches until `on_event` returns false (then `{}`), the token is cancelled (`kCancelled`)
  /// or an error the watch cannot recover from (403, a resource that disappears, ...). A
  /// connection that drops or a request that times out is resumed from the last version seen;
  /// `410 Gone` (the version was compacted) relists and delivers what changed meanwhile:
  /// ADDED for new objects, MODIFIED for changed ones, DELETED for those that vanished.
  [[nodiscard]] Result<void> watch(const Resource& resource, std::string_view ns,
                                   const WatchOptions& options,
                                   const std::function<bool(const WatchEvent&)>& on_event);
  /// A pod's log, streamed to `on_data` as it arrives (false stops it). With `follow`, until the
  /// container ends, the token is cancelled or `on_data` returns false.
  [[nodiscard]] Result<void> logs(std::string_view ns, std::string_view pod,
                                  const LogOptions& options,
                                  const std::function<bool(std::string_view)>& on_data);
  /// Any request, with the client's authentication, rate limit, retries and error mapping
  /// (a non-2xx answer is an error, as for the typed calls).
  [[nodiscard]] Result<RawResponse> raw(const RawRequest& request);
  /// The requests this client has sent so far (every thread's).
  [[nodiscard]] RequestCounts request_counts() const noexcept;

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The line kubectl prints for `error` on stderr (without a trailing newline):
/// `Error from server (NotFound): trainjobs.trainer.kubeflow.org "x" not found`,
/// `The TrainJob "x" is invalid: spec.trainer.numNodes: ...` (several causes: one `* ` line
/// each), `error: You must be logged in to the server (Unauthorized)`, `The connection to the
/// server 127.0.0.1:6443 was refused - did you specify the right host or port?`, or
/// `error: <message>` for errors that did not come from a server.
[[nodiscard]] std::string kubectl_text(const Error& error);

}  // namespace trainer::kube
