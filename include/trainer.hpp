// SPDX-License-Identifier: Apache-2.0
//
// libtrainer's C++17 wrapper over the C ABI (trainer.h), header-only and inline, in the style of
// wasmtime.hh: move-only RAII owners of the C handles, `[[nodiscard]] trainer::Result<T>` results
// carrying `trainer::Error` values, std::string_view inputs, std::string outputs. It calls nothing
// but the C ABI, so an application built with another compiler or standard library than
// libtrainer.so works with it. Link libtrainer::trainer plus Boost::json (field error values are
// boost::json values, parsed here from the JSON text the C ABI hands out) and tl::expected.
//
// The wrapper never throws except std::bad_alloc and what the caller's own callbacks throw
// (rethrown where each call says); callers who want exceptions call `.value()`.
// Names live in `trainer::abi` so that this header can be included next to the C++ core headers
// (`trainer/*.hpp`), whose types live in `trainer`.
//
// It covers the whole C ABI, one section per part (docs/bindings.md, "C++"): documents, render
// and the cluster client here; the rest in headers this one includes (include only this one):
//   trainer/abi_base.hpp         version, features, trainer_error -> trainer::Error
//   trainer/abi_plugin.hpp       plugins written in C++ or loaded, frameworks (trainer/plugin.h)
//   trainer/abi_local.hpp        local runs (trainer/local.h)
//   trainer/abi_collectives.hpp  communicators (trainer/collectives.h)
//   trainer/abi_controller.hpp   the TrainJob controller (trainer/controller.h)
#pragma once

#include "trainer.h"
#include "trainer/abi_base.hpp"
#include "trainer/abi_collectives.hpp"
#include "trainer/abi_local.hpp"
#include "trainer/abi_plugin.hpp"
#include "trainer/error.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <tl/expected.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::abi {

// ---- Documents -------------------------------------------------------------------------------

namespace detail {

struct DocumentListDeleter {
  void operator()(trainer_document_list* list) const noexcept { trainer_document_list_free(list); }
};
struct ValidationDeleter {
  void operator()(trainer_validation* v) const noexcept { trainer_validation_free(v); }
};

}  // namespace detail

/// Output formats of Document::encode().
enum class Format : int {
  kJson = TRAINER_FORMAT_JSON,              ///< compact JSON
  kYaml = TRAINER_FORMAT_YAML,              ///< one YAML document
  kJsonPretty = TRAINER_FORMAT_JSON_PRETTY  ///< JSON indented by two spaces
};

/// Parsing limits (trainer_parse_options, whose comments give the defaults); 0 means the
/// library default. A limit exceeded is ErrorCode::kLimit with a message naming it.
struct ParseOptions {
  std::size_t max_document_bytes = 0;
  std::size_t max_depth = 0;
  std::size_t max_documents = 0;
  std::size_t max_nodes = 0;
  std::size_t max_aliases = 0;
  /// Bytes of scalar text that YAML anchors and aliases may copy, whole stream [4 MiB].
  std::size_t max_alias_bytes = 0;
};

namespace detail {

/// `options` as the C struct.
[[nodiscard]] inline trainer_parse_options c_parse_options(const ParseOptions& options) noexcept {
  trainer_parse_options opts = TRAINER_PARSE_OPTIONS_INIT;
  opts.max_document_bytes = options.max_document_bytes;
  opts.max_depth = options.max_depth;
  opts.max_documents = options.max_documents;
  opts.max_nodes = options.max_nodes;
  opts.max_aliases = options.max_aliases;
  opts.max_alias_bytes = options.max_alias_bytes;
  return opts;
}

}  // namespace detail

/// What Document::validate() found. `error` is set when the document is rejected
/// (ErrorCode::kInvalid, with every field error); warnings are reported either way.
struct Validation {
  std::vector<std::string> warnings;
  std::optional<Error> error;

  [[nodiscard]] bool ok() const noexcept { return !error.has_value(); }
};

class DocumentList;

/// One document of a DocumentList: a non-owning view, valid while the list lives (moving the
/// list keeps it valid). Same thread rules as the list: one thread at a time.
class Document {
 public:
  /// `kind`, `apiVersion`, `metadata.name`, `metadata.namespace` ("" when absent). The views
  /// stay valid until apply_defaults() or the list's destruction.
  [[nodiscard]] std::string_view kind() const noexcept {
    return detail::view(trainer_document_kind(doc_));
  }
  [[nodiscard]] std::string_view api_version() const noexcept {
    return detail::view(trainer_document_api_version(doc_));
  }
  [[nodiscard]] std::string_view name() const noexcept {
    return detail::view(trainer_document_name(doc_));
  }
  [[nodiscard]] std::string_view namespace_() const noexcept {
    return detail::view(trainer_document_namespace(doc_));
  }
  /// Decoding warnings (`unknown field "spec.foo"`).
  [[nodiscard]] std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    const std::size_t n = trainer_document_warning_count(doc_);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(trainer_document_warning(doc_, i));
    return out;
  }

  /// Applies the CRD defaults in place (trainer_document_default).
  [[nodiscard]] Result<void> apply_defaults() {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_document_default(doc_, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  /// Runs the admission rules (trainer_document_validate). A rejected document is a successful
  /// result whose Validation::error is set; the Result fails only when validation could not run
  /// (ErrorCode::kUnsupported for kinds other than the three Trainer kinds, ...).
  [[nodiscard]] inline Result<Validation> validate(const DocumentList* context = nullptr) const;
  /// validate() with the plugins of `framework` (trainer_document_validate_with): the errors and
  /// warnings of its added plugins' validate phase join the built-in rules'.
  [[nodiscard]] inline Result<Validation> validate_with(
      const Framework& framework, const DocumentList* context = nullptr) const;

  /// The document as text (trainer_document_encode).
  [[nodiscard]] Result<std::string> encode(Format format = Format::kJson) const {
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_document_encode(doc_, static_cast<trainer_format>(format), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// The C handle, borrowed from the list.
  [[nodiscard]] trainer_document* raw() const noexcept { return doc_; }

 private:
  friend class DocumentList;
  explicit Document(trainer_document* doc) noexcept : doc_(doc) {}
  /// The Validation of a trainer_document_validate(_with) call that returned `status`.
  [[nodiscard]] static inline Result<Validation> validation(trainer_status status,
                                                            trainer_validation* raw_validation,
                                                            trainer_error* err);
  trainer_document* doc_;
};

/// The documents of one YAML stream or JSON text (trainer_document_list). Move-only owner.
class DocumentList {
 public:
  /// Parses `text` (trainer_documents_parse).
  [[nodiscard]] static Result<DocumentList> parse(std::string_view text,
                                                  const ParseOptions& options = {}) {
    const trainer_parse_options opts = detail::c_parse_options(options);
    trainer_document_list* list = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_documents_parse(text.data(), text.size(), &opts, &list, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return DocumentList(list);
  }

  /// Takes ownership of a C handle (may be NULL: an empty list).
  explicit DocumentList(trainer_document_list* owned) noexcept : list_(owned) {}

  [[nodiscard]] std::size_t size() const noexcept { return trainer_document_list_count(raw()); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// Document `i`; `i` must be below size().
  [[nodiscard]] Document operator[](std::size_t i) noexcept {
    return Document(trainer_document_list_get(list_.get(), i));
  }
  /// Every document, in input order.
  [[nodiscard]] std::vector<Document> documents() {
    std::vector<Document> out;
    const std::size_t n = size();
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back((*this)[i]);
    return out;
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_document_list* raw() const noexcept { return list_.get(); }
  /// Gives up ownership of the C handle; free it with trainer_document_list_free().
  [[nodiscard]] trainer_document_list* release() noexcept { return list_.release(); }

 private:
  std::unique_ptr<trainer_document_list, detail::DocumentListDeleter> list_;
};

inline Result<Validation> Document::validate(const DocumentList* context) const {
  trainer_validation* raw_validation = nullptr;
  trainer_error* err = nullptr;
  const trainer_status status = trainer_document_validate(
      doc_, context == nullptr ? nullptr : context->raw(), &raw_validation, &err);
  return validation(status, raw_validation, err);
}

inline Result<Validation> Document::validate_with(const Framework& framework,
                                                  const DocumentList* context) const {
  trainer_validation* raw_validation = nullptr;
  trainer_error* err = nullptr;
  const trainer_status status = trainer_document_validate_with(
      doc_, context == nullptr ? nullptr : context->raw(), framework.raw(), &raw_validation, &err);
  return validation(status, raw_validation, err);
}

inline Result<Validation> Document::validation(trainer_status status,
                                               trainer_validation* raw_validation,
                                               trainer_error* err) {
  const std::unique_ptr<trainer_validation, detail::ValidationDeleter> owner(raw_validation);
  if (status != TRAINER_OK && status != TRAINER_E_INVALID) return detail::failure(status, err);
  const detail::ErrorPtr err_owner(err);
  Validation out;
  const std::size_t n = trainer_validation_warning_count(owner.get());
  out.warnings.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.warnings.emplace_back(trainer_validation_warning(owner.get(), i));
  }
  if (status == TRAINER_E_INVALID) out.error = to_error(err, status);
  return out;
}

// ---- Render ----------------------------------------------------------------------------------

/// Options of render() (trainer_render_options). An empty string means the library default:
/// see trainer.h.
struct RenderOptions {
  std::string uid;                ///< owner-reference UID [TrainJob's own, else a random UUID]
  std::string namespace_;         ///< namespace of inputs without one ["default"]
  std::string feature_gates;      ///< `TrainJobStatus=true,...` [all off]
  std::string ssh_private_key;    ///< MPI: PEM of an ECDSA P-521 key [a fresh key pair]
  std::string now;                ///< RFC 3339 time stamp [the system clock]
  bool builtin_runtimes = false;  ///< resolve missing ClusterTrainingRuntimes to built-in ones
  ParseOptions parse;             ///< parsing limits
  /// The plugins to render with, borrowed for the call [the built-in plugins of
  /// `feature_gates`]; with a framework, `feature_gates` must be empty (its gates apply).
  const Framework* framework = nullptr;
  /// A local run's progress server, borrowed for the call: its port and CA in the rendered
  /// TrainJobStatus env and `<job>-tls-config` [upstream's port, the Secret among the inputs].
  const ProgressServer* progress_server = nullptr;
};

/// One rendered object: views into its RenderResult, valid while the result lives.
struct RenderedObject {
  std::string_view kind;
  std::string_view api_version;
  std::string_view name;
  std::string_view namespace_;  ///< "" for cluster-scoped objects
  std::string_view json;        ///< compact JSON
};

/// What render() produced (trainer_render_result). Move-only owner; immutable, so it may be
/// read from any number of threads.
class RenderResult {
 public:
  /// Takes ownership of a C handle (may be NULL: an empty result).
  explicit RenderResult(trainer_render_result* owned) noexcept : result_(owned) {}

  [[nodiscard]] std::size_t size() const noexcept {
    return trainer_render_result_count(result_.get());
  }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// Object `i`; `i` must be below size().
  [[nodiscard]] RenderedObject operator[](std::size_t i) const noexcept {
    const trainer_render_result* r = result_.get();
    return RenderedObject{detail::view(trainer_render_result_kind(r, i)),
                          detail::view(trainer_render_result_api_version(r, i)),
                          detail::view(trainer_render_result_name(r, i)),
                          detail::view(trainer_render_result_namespace(r, i)),
                          detail::view(trainer_render_result_json(r, i))};
  }
  /// Every object, in render order.
  [[nodiscard]] std::vector<RenderedObject> objects() const {
    std::vector<RenderedObject> out;
    const std::size_t n = size();
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back((*this)[i]);
    return out;
  }
  /// Admission warnings.
  [[nodiscard]] std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    const std::size_t n = trainer_render_result_warning_count(result_.get());
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      out.emplace_back(trainer_render_result_warning(result_.get(), i));
    }
    return out;
  }
  /// Why nothing was rendered; empty when the objects were rendered.
  [[nodiscard]] std::string_view skipped_reason() const noexcept {
    return detail::view(trainer_render_result_skipped_reason(result_.get()));
  }
  /// Every object as `trainerctl render` prints them: kYaml a `---` stream, kJson/kJsonPretty
  /// a `v1` List (trainer_render_result_encode).
  [[nodiscard]] Result<std::string> encode(Format format = Format::kYaml) const {
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_render_result_encode(
        result_.get(), static_cast<trainer_format>(format), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_render_result* raw() const noexcept { return result_.get(); }

 private:
  struct Deleter {
    void operator()(trainer_render_result* r) const noexcept { trainer_render_result_free(r); }
  };
  std::unique_ptr<trainer_render_result, Deleter> result_;
};

/// Renders the one TrainJob among the documents of `text` with its runtime (trainer_render):
/// the objects the Kubeflow Trainer controller would create.
[[nodiscard]] inline Result<RenderResult> render(std::string_view text,
                                                 const RenderOptions& options = {}) {
  using detail::c_str;
  const trainer_parse_options parse = detail::c_parse_options(options.parse);
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  opts.uid = c_str(options.uid);
  opts.namespace_name = c_str(options.namespace_);
  opts.feature_gates = c_str(options.feature_gates);
  opts.ssh_private_key = c_str(options.ssh_private_key);
  opts.now = c_str(options.now);
  opts.builtin_runtimes = options.builtin_runtimes ? 1 : 0;
  opts.parse = &parse;
  opts.framework = options.framework == nullptr ? nullptr : options.framework->raw();
  opts.progress_server =
      options.progress_server == nullptr ? nullptr : options.progress_server->raw();
  trainer_render_result* result = nullptr;
  trainer_error* err = nullptr;
  const trainer_status status = trainer_render(text.data(), text.size(), &opts, &result, &err);
  if (status != TRAINER_OK) return detail::failure(status, err);
  return RenderResult(result);
}

// ---- Cluster (trainer/cluster.h) ---------------------------------------------------------------

/// A cancellation signal for the cluster calls (trainer_cancel_token). Copies share one token:
/// cancel() may be called from any thread and ends every call holding it with
/// ErrorCode::kCancelled.
class CancelToken {
 public:
  [[nodiscard]] static Result<CancelToken> create() {
    trainer_cancel_token* token = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_cancel_token_new(&token, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return CancelToken(token);
  }
  void cancel() const noexcept { trainer_cancel_token_cancel(token_.get()); }
  [[nodiscard]] bool cancelled() const noexcept {
    return trainer_cancel_token_cancelled(token_.get()) != 0;
  }
  /// The C handle (owned by this object and its copies).
  [[nodiscard]] trainer_cancel_token* raw() const noexcept { return token_.get(); }

 private:
  explicit CancelToken(trainer_cancel_token* owned) : token_(owned, trainer_cancel_token_free) {}
  std::shared_ptr<trainer_cancel_token> token_;
};

/// What every cluster call can carry: a token, and a bound on each request (0: the client's).
struct CallOptions {
  std::optional<CancelToken> cancel;
  std::chrono::milliseconds timeout{0};
};

/// Options of Client::create() (trainer_client_options); empty or 0 means the library default
/// (see trainer/cluster.h).
struct ClientOptions {
  std::string kubeconfig;  ///< `--kubeconfig` [$KUBECONFIG, ~/.kube/config, in-cluster]
  std::string context;     ///< `--context` [current-context]
  std::string namespace_;  ///< `-n` [the context's, else "default"]
  std::chrono::milliseconds request_timeout{0};  ///< per request [30 s]
  double qps = 0;                                ///< requests per second; negative: none [5]
  int burst = 0;                                 ///< [10]
  std::string user_agent;
  /// Bound on one response body (one object, one page of a list), after gzip decoding; over
  /// it a call fails with ErrorCode::kLimit naming the limit [256 MiB].
  std::uint64_t max_response_bytes = 0;
  /// Bound on one watch event (one object); over it Client::watch() ends with ErrorCode::kLimit
  /// [16 MiB].
  std::uint64_t max_watch_event_bytes = 0;
  /// Server, admission and configuration warnings; called from the threads that make calls,
  /// possibly at once. An exception it throws is dropped (a warning never fails a call).
  std::function<void(std::string_view)> on_warning;
  /// The client's retry lines (a watch or its list that failed and is retried, with the cause
  /// and the wait; a `Retry-After` retry); called from the threads that make calls, possibly at
  /// once. An exception it throws is dropped.
  std::function<void(std::string_view)> on_log;
};

/// One object Client::apply() applied.
struct AppliedObject {
  std::string ref;   ///< `trainjob.trainer.kubeflow.org/mnist`
  std::string json;  ///< as the server returned it, compact JSON
};

struct ApplyOptions : CallOptions {
  std::string namespace_;     ///< of objects that name none [the client's]
  std::string field_manager;  ///< ["trainerctl"]
  bool dry_run = false;
  bool force = false;
  ParseOptions parse;
  /// The plugins whose rules local admission applies, borrowed for the call [the built-in
  /// plugins, gates off].
  const Framework* framework = nullptr;
};

struct GetOptions : CallOptions {
  std::string label_selector;   ///< list only
  bool all_namespaces = false;  ///< list only
};

struct WatchOptions : CallOptions {
  std::string name;  ///< only this TrainJob
  std::string label_selector;
  bool all_namespaces = false;
  std::string resource_version;  ///< empty: the current TrainJobs first, as ADDED
};

struct WaitOptions : CallOptions {
  std::string status;  ///< ["True"]
};

struct LogsOptions : CallOptions {
  std::optional<int> node;
  std::string replicated_job;
  bool all = false;
  std::string container;
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> since_seconds;
};

/// Deletion propagation (TRAINER_PROPAGATION_*).
enum class Propagation : int {
  kForeground = TRAINER_PROPAGATION_FOREGROUND,
  kBackground = TRAINER_PROPAGATION_BACKGROUND,
  kOrphan = TRAINER_PROPAGATION_ORPHAN,
};

struct DeleteOptions : CallOptions {
  Propagation propagation = Propagation::kBackground;
  bool dry_run = false;
};

namespace detail {

[[nodiscard]] inline trainer_cancel_token* token(const CallOptions& options) noexcept {
  return options.cancel ? options.cancel->raw() : nullptr;
}
using WarningFn = std::function<void(std::string_view)>;

inline trainer_status warning_trampoline(void* user, const char* text, std::size_t len) noexcept {
  try {
    (*static_cast<WarningFn*>(user))(std::string_view(text, len));
  } catch (...) {  // a warning cannot fail a call, and nothing may unwind into C
  }
  return TRAINER_OK;
}
inline void warning_free(void* user) noexcept {
  delete static_cast<WarningFn*>(user);
}

/// The caller's callback during one watch or logs call; an exception it throws ends the call
/// and is rethrown to the caller afterwards.
template <class Fn>
struct Callback {
  const Fn& fn;
  std::exception_ptr thrown;

  template <class... Args>
  trainer_status call(Args... args) noexcept {
    try {
      return fn(args...) ? TRAINER_CALLBACK_CONTINUE : TRAINER_CALLBACK_STOP;
    } catch (...) {
      thrown = std::current_exception();
      return -1;
    }
  }
  void rethrow() const {
    if (thrown) std::rethrow_exception(thrown);
  }
};

using WatchFn = std::function<bool(std::string_view type, std::string_view object)>;
using LogsFn = std::function<bool(std::string_view pod, std::string_view data)>;

inline trainer_status watch_trampoline(void* user, const char* type, const char* object,
                                       std::size_t len) noexcept {
  return static_cast<Callback<WatchFn>*>(user)->call(std::string_view(type),
                                                     std::string_view(object, len));
}
inline trainer_status logs_trampoline(void* user, const char* pod, const char* data,
                                      std::size_t len) noexcept {
  return static_cast<Callback<LogsFn>*>(user)->call(std::string_view(pod),
                                                    std::string_view(data, len));
}

}  // namespace detail

/// A Kubernetes API client for the TrainJob operations (trainer_client). Move-only owner; its
/// calls may run from any number of threads at once. Each call blocks until done, its time is
/// up or the options' CancelToken is cancelled. Kinds are named as kubectl accepts them
/// (`trainjob`, `TrainJob`, `trainingruntimes`, ...); an empty namespace is the client's.
/// Errors an API server answered carry Error::http_status and Error::reason.
class Client {
 public:
  /// Loads the configuration as kubectl does (trainer_client_new), without contacting the
  /// server.
  [[nodiscard]] static Result<Client> create(const ClientOptions& options = {}) {
    trainer_client_options opts = TRAINER_CLIENT_OPTIONS_INIT;
    opts.kubeconfig = detail::c_str(options.kubeconfig);
    opts.context = detail::c_str(options.context);
    opts.namespace_name = detail::c_str(options.namespace_);
    opts.request_timeout_ms = detail::millis(options.request_timeout);
    opts.qps = options.qps;
    opts.burst = static_cast<std::int32_t>(options.burst);
    opts.user_agent = detail::c_str(options.user_agent);
    opts.max_response_bytes = options.max_response_bytes;
    opts.max_watch_event_bytes = options.max_watch_event_bytes;
    // Both copies are made before either is handed over, so a copy that throws leaks neither.
    // The library releases them (warning_free), also when the call fails.
    std::unique_ptr<detail::WarningFn> warning_copy;
    std::unique_ptr<detail::WarningFn> log_copy;
    if (options.on_warning) warning_copy = std::make_unique<detail::WarningFn>(options.on_warning);
    if (options.on_log) log_copy = std::make_unique<detail::WarningFn>(options.on_log);
    if (warning_copy) {
      opts.on_warning = detail::warning_trampoline;
      opts.warning_user_data = warning_copy.release();
      opts.warning_user_data_free = detail::warning_free;
    }
    if (log_copy) {  // the same shape as a warning
      opts.on_log = detail::warning_trampoline;
      opts.log_user_data = log_copy.release();
      opts.log_user_data_free = detail::warning_free;
    }
    trainer_client* client = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_client_new(&opts, &client, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Client(client);
  }

  /// The namespace of calls that pass an empty one.
  [[nodiscard]] std::string_view namespace_() const noexcept {
    return detail::view(trainer_client_namespace(client_.get()));
  }
  /// The API server's URL.
  [[nodiscard]] std::string_view server() const noexcept {
    return detail::view(trainer_client_server(client_.get()));
  }

  /// Server-side applies every object of `documents` after admitting the TrainJobs and
  /// runtimes locally (trainer_cluster_apply): a rejected document is ErrorCode::kInvalid with
  /// its field errors, and nothing is applied.
  [[nodiscard]] Result<std::vector<AppliedObject>> apply(std::string_view documents,
                                                         const ApplyOptions& options = {}) {
    const trainer_parse_options parse = detail::c_parse_options(options.parse);
    trainer_cluster_apply_options opts = TRAINER_CLUSTER_APPLY_OPTIONS_INIT;
    opts.namespace_name = detail::c_str(options.namespace_);
    opts.field_manager = detail::c_str(options.field_manager);
    opts.dry_run = options.dry_run ? 1 : 0;
    opts.force = options.force ? 1 : 0;
    opts.cancel = detail::token(options);
    opts.timeout_ms = detail::millis(options.timeout);
    opts.parse = &parse;
    opts.framework = options.framework == nullptr ? nullptr : options.framework->raw();
    trainer_cluster_apply_result* raw_result = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_cluster_apply(client_.get(), documents.data(),
                                                        documents.size(), &opts, &raw_result, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    const std::unique_ptr<trainer_cluster_apply_result, void (*)(trainer_cluster_apply_result*)>
        result(raw_result, trainer_cluster_apply_result_free);
    std::vector<AppliedObject> out(trainer_cluster_apply_result_count(result.get()));
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i].ref = trainer_cluster_apply_result_ref(result.get(), i);
      out[i].json = trainer_cluster_apply_result_json(result.get(), i);
    }
    return out;
  }

  /// One object as `format` text (trainer_cluster_get); ErrorCode::kNotFound when absent.
  [[nodiscard]] Result<std::string> get(const std::string& kind, const std::string& ns,
                                        const std::string& name, Format format = Format::kJson,
                                        const GetOptions& options = {}) {
    const trainer_cluster_get_options opts = get_options(options);
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_cluster_get(client_.get(), kind.c_str(), detail::c_str(ns), name.c_str(), &opts,
                            static_cast<trainer_format>(format), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// Every object of `kind` as one `<Kind>List` in `format` text (trainer_cluster_list).
  [[nodiscard]] Result<std::string> list(const std::string& kind, const std::string& ns,
                                         Format format = Format::kJson,
                                         const GetOptions& options = {}) {
    const trainer_cluster_get_options opts = get_options(options);
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_cluster_list(client_.get(), kind.c_str(), detail::c_str(ns), &opts,
                             static_cast<trainer_format>(format), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// Watches TrainJobs (trainer_cluster_watch): `on_event(type, object_json)` on this thread
  /// until it returns false (then success), the token is cancelled or an unrecoverable error.
  /// An exception thrown by `on_event` ends the watch and is rethrown here.
  [[nodiscard]] Result<void> watch(const std::string& ns, const WatchOptions& options,
                                   const detail::WatchFn& on_event) {
    trainer_cluster_watch_options opts = TRAINER_CLUSTER_WATCH_OPTIONS_INIT;
    opts.name = detail::c_str(options.name);
    opts.label_selector = detail::c_str(options.label_selector);
    opts.all_namespaces = options.all_namespaces ? 1 : 0;
    opts.resource_version = detail::c_str(options.resource_version);
    opts.cancel = detail::token(options);
    opts.timeout_ms = detail::millis(options.timeout);
    detail::Callback<detail::WatchFn> callback{on_event, nullptr};
    trainer_error* err = nullptr;
    const trainer_status status = trainer_cluster_watch(client_.get(), detail::c_str(ns), &opts,
                                                        detail::watch_trampoline, &callback, &err);
    if (callback.thrown) {
      trainer_error_free(err);
      callback.rethrow();
    }
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  /// Waits until the TrainJob's `condition` has the options' status (trainer_cluster_wait)
  /// for at most `timeout` (zero: check once; std::nullopt: no bound but the token) and
  /// returns the TrainJob then (JSON). ErrorCode::kTimeout, kNotFound, kFailed, kCancelled.
  [[nodiscard]] Result<std::string> wait(const std::string& ns, const std::string& name,
                                         const std::string& condition,
                                         std::optional<std::chrono::milliseconds> timeout,
                                         const WaitOptions& options = {}) {
    trainer_cluster_wait_options opts = TRAINER_CLUSTER_WAIT_OPTIONS_INIT;
    opts.status = detail::c_str(options.status);
    opts.cancel = detail::token(options);
    opts.timeout_ms = detail::millis(options.timeout);
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_cluster_wait(client_.get(), detail::c_str(ns), name.c_str(), condition.c_str(),
                             timeout ? detail::millis(*timeout) : -1, &opts, &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// Streams the logs of the TrainJob's pods to `on_chunk(pod, data)` (trainer_cluster_logs),
  /// never concurrently, until they end or it returns false. An exception thrown by `on_chunk`
  /// ends the call and is rethrown here.
  [[nodiscard]] Result<void> logs(const std::string& ns, const std::string& name,
                                  const LogsOptions& options, const detail::LogsFn& on_chunk) {
    trainer_cluster_logs_options opts = TRAINER_CLUSTER_LOGS_OPTIONS_INIT;
    if (options.node) opts.node = static_cast<std::int32_t>(*options.node);
    opts.replicated_job = detail::c_str(options.replicated_job);
    opts.all = options.all ? 1 : 0;
    opts.container = detail::c_str(options.container);
    opts.follow = options.follow ? 1 : 0;
    if (options.tail_lines) opts.tail_lines = *options.tail_lines;
    if (options.since_seconds) opts.since_seconds = *options.since_seconds;
    opts.cancel = detail::token(options);
    opts.timeout_ms = detail::millis(options.timeout);
    detail::Callback<detail::LogsFn> callback{on_chunk, nullptr};
    trainer_error* err = nullptr;
    const trainer_status status =
        trainer_cluster_logs(client_.get(), detail::c_str(ns), name.c_str(), &opts,
                             detail::logs_trampoline, &callback, &err);
    if (callback.thrown) {
      trainer_error_free(err);
      callback.rethrow();
    }
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  /// Deletes one object (trainer_cluster_delete); ErrorCode::kNotFound when absent.
  [[nodiscard]] Result<void> remove(const std::string& kind, const std::string& ns,
                                    const std::string& name, const DeleteOptions& options = {}) {
    trainer_cluster_delete_options opts = TRAINER_CLUSTER_DELETE_OPTIONS_INIT;
    opts.propagation = static_cast<std::int32_t>(options.propagation);
    opts.dry_run = options.dry_run ? 1 : 0;
    opts.cancel = detail::token(options);
    opts.timeout_ms = detail::millis(options.timeout);
    trainer_error* err = nullptr;
    const trainer_status status = trainer_cluster_delete(
        client_.get(), kind.c_str(), detail::c_str(ns), name.c_str(), &opts, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_client* raw() const noexcept { return client_.get(); }

 private:
  explicit Client(trainer_client* owned) noexcept : client_(owned) {}

  [[nodiscard]] static trainer_cluster_get_options get_options(const GetOptions& options) {
    trainer_cluster_get_options opts = TRAINER_CLUSTER_GET_OPTIONS_INIT;
    opts.label_selector = detail::c_str(options.label_selector);
    opts.all_namespaces = options.all_namespaces ? 1 : 0;
    opts.cancel = detail::token(options);
    opts.timeout_ms = detail::millis(options.timeout);
    return opts;
  }

  struct Deleter {
    void operator()(trainer_client* c) const noexcept { trainer_client_free(c); }
  };
  std::unique_ptr<trainer_client, Deleter> client_;
};

}  // namespace trainer::abi

// The controller runs over a Client, so its section comes after this one.
#include "trainer/abi_controller.hpp"  // IWYU pragma: export
// The converter uses Format and ParseOptions of this header.
#include "trainer/abi_convert.hpp"  // IWYU pragma: export
