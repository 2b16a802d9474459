// SPDX-License-Identifier: Apache-2.0
//
// libtrainer's C++17 wrapper over the C ABI (trainer.h), header-only and inline, in the style of
// wasmtime.hh: move-only RAII owners of the C handles, `[[nodiscard]] trainer::Result<T>` results
// carrying `trainer::Error` values, std::string_view inputs, std::string outputs. It calls nothing
// but the C ABI, so an application built with another compiler or standard library than
// libtrainer.so works with it. Link libtrainer::trainer plus Boost::json (field error values are
// boost::json values, parsed here from the JSON text the C ABI hands out) and tl::expected.
//
// The wrapper never throws except std::bad_alloc; callers who want exceptions call `.value()`.
// Names live in `trainer::abi` so that this header can be included next to the C++ core headers
// (`trainer/*.hpp`), whose types live in `trainer`.
#pragma once

#include "trainer.h"
#include "trainer/error.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <tl/expected.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::abi {

// ---- Version and features --------------------------------------------------------------------

/// The library's version number at run time (compare with TRAINER_VERSION_NUMBER).
[[nodiscard]] inline std::uint32_t version_number() noexcept {
  return trainer_version_number();
}
/// The library's version string at run time ("0.1.0").
[[nodiscard]] inline std::string_view version_string() noexcept {
  return trainer_version_string();
}
/// Bitmask of TRAINER_FEATURE_* compiled into the library.
[[nodiscard]] inline std::uint32_t features() noexcept {
  return trainer_features();
}
/// Whether every bit of `feature` (TRAINER_FEATURE_*) is compiled in.
[[nodiscard]] inline bool has_feature(std::uint32_t feature) noexcept {
  return (trainer_features() & feature) == feature;
}
/// The constant name of a status code ("TRAINER_E_PARSE").
[[nodiscard]] inline std::string_view status_name(trainer_status status) noexcept {
  return trainer_status_name(status);
}

// ---- Errors ----------------------------------------------------------------------------------

/// The FieldErrorType whose Kubernetes Go name (`trainer_error_field_type`) is `go_name`;
/// kInternal for names this header does not know.
[[nodiscard]] inline FieldErrorType field_error_type_from_go_name(
    std::string_view go_name) noexcept {
  struct Entry {
    std::string_view name;
    FieldErrorType type;
  };
  static constexpr Entry kTypes[] = {
      {"FieldValueNotFound", FieldErrorType::kNotFound},
      {"FieldValueRequired", FieldErrorType::kRequired},
      {"FieldValueDuplicate", FieldErrorType::kDuplicate},
      {"FieldValueInvalid", FieldErrorType::kInvalid},
      {"FieldValueNotSupported", FieldErrorType::kNotSupported},
      {"FieldValueForbidden", FieldErrorType::kForbidden},
      {"FieldValueTooLong", FieldErrorType::kTooLong},
      {"FieldValueTooMany", FieldErrorType::kTooMany},
      {"InternalError", FieldErrorType::kInternal},
      {"FieldValueTypeInvalid", FieldErrorType::kTypeInvalid},
  };
  for (const auto& entry : kTypes) {
    if (entry.name == go_name) return entry.type;
  }
  return FieldErrorType::kInternal;
}

/// A copy of the C error `err` as a trainer::Error (code, message, field errors). `fallback` is
/// the code used when `err` is NULL (the caller passed no error object, or the library could not
/// allocate one). A field value that is not valid JSON (never produced by libtrainer) is kept as
/// a JSON string.
[[nodiscard]] inline Error to_error(const trainer_error* err, trainer_status fallback) {
  if (err == nullptr) {
    return Error(static_cast<ErrorCode>(fallback),
                 std::string("libtrainer call failed with ") + trainer_status_name(fallback));
  }
  Error out(static_cast<ErrorCode>(trainer_error_code(err)), trainer_error_message(err));
  const std::size_t n = trainer_error_field_count(err);
  out.fields.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    FieldError field;
    field.type = field_error_type_from_go_name(trainer_error_field_type(err, i));
    field.path = trainer_error_field_path(err, i);
    if (const char* value = trainer_error_field_value(err, i)) {
      boost::system::error_code ec;
      boost::json::value parsed = boost::json::parse(value, ec);
      field.value = ec ? boost::json::value(value) : std::move(parsed);
    }
    field.detail = trainer_error_field_detail(err, i);
    out.fields.push_back(std::move(field));
  }
  return out;
}

namespace detail {

struct ErrorDeleter {
  void operator()(trainer_error* err) const noexcept { trainer_error_free(err); }
};
using ErrorPtr = std::unique_ptr<trainer_error, ErrorDeleter>;

/// Takes ownership of `err` (the C call's error out-parameter) and converts it.
[[nodiscard]] inline tl::unexpected<Error> failure(trainer_status status, trainer_error* err) {
  const ErrorPtr owner(err);
  return tl::unexpected<Error>(to_error(owner.get(), status));
}

/// A trainer_buffer that frees itself.
struct Buffer {
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { trainer_buffer_free(&buf); }
  [[nodiscard]] std::string str() const {
    return buf.data == nullptr ? std::string() : std::string(buf.data, buf.len);
  }
};

struct DocumentListDeleter {
  void operator()(trainer_document_list* list) const noexcept { trainer_document_list_free(list); }
};
struct ValidationDeleter {
  void operator()(trainer_validation* v) const noexcept { trainer_validation_free(v); }
};

[[nodiscard]] inline std::string_view view(const char* s) noexcept {
  return s == nullptr ? std::string_view() : std::string_view(s);
}

}  // namespace detail

// ---- Documents -------------------------------------------------------------------------------

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
  const auto c_str = [](const std::string& s) { return s.empty() ? nullptr : s.c_str(); };
  const trainer_parse_options parse = detail::c_parse_options(options.parse);
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  opts.uid = c_str(options.uid);
  opts.namespace_name = c_str(options.namespace_);
  opts.feature_gates = c_str(options.feature_gates);
  opts.ssh_private_key = c_str(options.ssh_private_key);
  opts.now = c_str(options.now);
  opts.builtin_runtimes = options.builtin_runtimes ? 1 : 0;
  opts.parse = &parse;
  trainer_render_result* result = nullptr;
  trainer_error* err = nullptr;
  const trainer_status status = trainer_render(text.data(), text.size(), &opts, &result, &err);
  if (status != TRAINER_OK) return detail::failure(status, err);
  return RenderResult(result);
}

}  // namespace trainer::abi
