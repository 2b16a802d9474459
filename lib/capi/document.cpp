// SPDX-License-Identifier: Apache-2.0
// Documents: parse (YAML/JSON -> typed or JSON), default, validate, encode.
#include "capi/capi.hpp"

#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/validation.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <type_traits>

namespace trainer::capi {
namespace {

constexpr std::string_view kDefaultNamespace = "default";

// The group part of `apiVersion` ("" for the core group, "v1").
std::string_view api_group(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

std::string_view namespace_or_default(const std::optional<std::string>& ns) {
  return ns && !ns->empty() ? std::string_view(*ns) : kDefaultNamespace;
}

template <class T>
void take(trainer_document& doc, Decoded<T>&& decoded) {
  doc.object = std::move(decoded.object);
  doc.warnings = std::move(decoded.warnings);
}

// One parsed document: the Trainer kinds are decoded to the typed model, the rest kept as JSON.
Result<void> make_document(boost::json::value value, trainer_document& doc) {
  const ObjectHeader header = object_header(value);
  const std::string& kind = header.kind;
  const bool trainer_group = api_group(header.api_version) == kGroup;
  if (trainer_group && kind == kTrainJobKind) {
    auto decoded = decode_train_job(value);
    if (!decoded) return tl::unexpected(std::move(decoded).error());
    take(doc, std::move(*decoded));
  } else if (trainer_group && kind == kTrainingRuntimeKind) {
    auto decoded = decode_training_runtime(value);
    if (!decoded) return tl::unexpected(std::move(decoded).error());
    take(doc, std::move(*decoded));
  } else if (trainer_group && kind == kClusterTrainingRuntimeKind) {
    auto decoded = decode_cluster_training_runtime(value);
    if (!decoded) return tl::unexpected(std::move(decoded).error());
    take(doc, std::move(*decoded));
  } else {
    doc.object = std::move(value);
  }
  doc.refresh_header();
  return {};
}

// The runtime `job` references among the documents of `context` (see trainer_document_validate).
RuntimeLookup find_runtime(const trainer_document_list& context, const TrainJob& job) {
  RuntimeLookup lookup;
  const auto& ref = job.spec.runtime_ref;
  if (ref.api_group.value_or(kGroup) != kGroup) return lookup;
  const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
  for (const auto& doc : context.documents) {
    if (kind == kTrainingRuntimeKind) {
      const auto* rt = std::get_if<TrainingRuntime>(&doc.object);
      if (rt != nullptr && rt->metadata.name == ref.name &&
          namespace_or_default(rt->metadata.namespace_) ==
              namespace_or_default(job.metadata.namespace_)) {
        lookup.training_runtime = rt;
        break;
      }
    } else if (kind == kClusterTrainingRuntimeKind) {
      const auto* rt = std::get_if<ClusterTrainingRuntime>(&doc.object);
      if (rt != nullptr && rt->metadata.name == ref.name) {
        lookup.cluster_training_runtime = rt;
        break;
      }
    }
  }
  return lookup;
}

// Whether the runtimeRef names a registered runtime kind (the webhook's registry).
bool registered_runtime_kind(const RuntimeRef& ref) {
  if (ref.api_group.value_or(kGroup) != kGroup) return false;
  const std::string kind = ref.kind.value_or(kClusterTrainingRuntimeKind);
  return kind == kTrainingRuntimeKind || kind == kClusterTrainingRuntimeKind;
}

// What validating `doc` found: the rule result, or a failure of the webhook itself.
struct Outcome {
  ValidationResult result;
  std::optional<Error> failure;
};

Outcome validate_job(const TrainJob& job, const trainer_document_list* context) {
  Outcome out;
  out.result = validate_train_job(job);
  // The webhook runs only on objects that pass the schema, as in the API server.
  if (!out.result.ok() || context == nullptr) return out;
  const RuntimeLookup lookup = find_runtime(*context, job);
  const bool found =
      lookup.training_runtime != nullptr || lookup.cluster_training_runtime != nullptr;
  if (found || !registered_runtime_kind(job.spec.runtime_ref)) {
    auto webhook = validate_train_job_runtime(job, lookup);
    if (!webhook) {
      out.failure = std::move(webhook).error();
    } else {
      out.result.merge(std::move(*webhook));
    }
  }
  return out;
}

}  // namespace
}  // namespace trainer::capi

void trainer_document::refresh_header() {
  std::visit(
      [this](const auto& obj) {
        using T = std::decay_t<decltype(obj)>;
        if constexpr (std::is_same_v<T, boost::json::value>) {
          auto header = trainer::capi::object_header(obj);
          kind = std::move(header.kind);
          api_version = std::move(header.api_version);
          name = std::move(header.name);
          namespace_ = std::move(header.namespace_);
        } else {
          kind = obj.kind;
          api_version = obj.api_version;
          name = obj.metadata.name.value_or(std::string());
          namespace_ = obj.metadata.namespace_.value_or(std::string());
        }
      },
      object);
}

using trainer::capi::guard;
using trainer::capi::guard_value;
using trainer::capi::guard_void;
using trainer::capi::set_error;

extern "C" {

trainer_status trainer_parse_options_init(trainer_parse_options* opts, uint32_t version) {
  return guard(nullptr, [&] {
    if (opts == nullptr || version != TRAINER_PARSE_OPTIONS_VERSION) {
      return TRAINER_E_INVALID_ARGUMENT;
    }
    *opts = trainer_parse_options TRAINER_PARSE_OPTIONS_INIT;
    return TRAINER_OK;
  });
}

trainer_status trainer_documents_parse(const char* data, size_t len,
                                       const trainer_parse_options* opts,
                                       trainer_document_list** out, trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_documents_parse: out is NULL");
    }
    if (data == nullptr && len != 0) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_documents_parse: data is NULL but len is not 0");
    }
    trainer::DecodeOptions options;
    if (auto bad = trainer::capi::apply_parse_options(opts, options)) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_documents_parse: " + *bad);
    }
    auto values =
        trainer::parse_documents(std::string_view(data == nullptr ? "" : data, len), options);
    if (!values) return set_error(err, values.error());
    auto list = std::make_unique<trainer_document_list>();
    list->documents.resize(values->size());
    for (std::size_t i = 0; i < values->size(); ++i) {
      auto made = trainer::capi::make_document(std::move((*values)[i]), list->documents[i]);
      if (!made) return set_error(err, made.error());
    }
    *out = list.release();
    return TRAINER_OK;
  });
}

void trainer_document_list_free(trainer_document_list* list) {
  guard_void([&] { delete list; });
}

size_t trainer_document_list_count(const trainer_document_list* list) {
  return guard_value<size_t>(0, [&] { return list == nullptr ? 0 : list->documents.size(); });
}

trainer_document* trainer_document_list_get(trainer_document_list* list, size_t i) {
  return guard_value<trainer_document*>(nullptr, [&]() -> trainer_document* {
    if (list == nullptr || i >= list->documents.size()) return nullptr;
    return &list->documents[i];
  });
}

const char* trainer_document_kind(const trainer_document* doc) {
  return guard_value<const char*>("", [&] { return doc == nullptr ? "" : doc->kind.c_str(); });
}

const char* trainer_document_api_version(const trainer_document* doc) {
  return guard_value<const char*>("",
                                  [&] { return doc == nullptr ? "" : doc->api_version.c_str(); });
}

const char* trainer_document_name(const trainer_document* doc) {
  return guard_value<const char*>("", [&] { return doc == nullptr ? "" : doc->name.c_str(); });
}

const char* trainer_document_namespace(const trainer_document* doc) {
  return guard_value<const char*>("",
                                  [&] { return doc == nullptr ? "" : doc->namespace_.c_str(); });
}

size_t trainer_document_warning_count(const trainer_document* doc) {
  return guard_value<size_t>(0, [&] { return doc == nullptr ? 0 : doc->warnings.size(); });
}

const char* trainer_document_warning(const trainer_document* doc, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (doc == nullptr || i >= doc->warnings.size()) return nullptr;
    return doc->warnings[i].c_str();
  });
}

trainer_status trainer_document_default(trainer_document* doc, trainer_error** err) {
  return guard(err, [&] {
    if (doc == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_document_default: doc is NULL");
    }
    std::visit(
        [](auto& obj) {
          using T = std::decay_t<decltype(obj)>;
          if constexpr (!std::is_same_v<T, boost::json::value>) trainer::apply_defaults(obj);
        },
        doc->object);
    doc->refresh_header();
    return TRAINER_OK;
  });
}

trainer_status trainer_document_validate(const trainer_document* doc,
                                         const trainer_document_list* context,
                                         trainer_validation** out, trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (doc == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, "trainer_document_validate: doc is NULL");
    }
    trainer::capi::Outcome outcome;
    if (const auto* job = std::get_if<trainer::TrainJob>(&doc->object)) {
      outcome = trainer::capi::validate_job(*job, context);
    } else if (const auto* rt = std::get_if<trainer::TrainingRuntime>(&doc->object)) {
      outcome.result = trainer::validate_training_runtime(*rt);
    } else if (const auto* crt = std::get_if<trainer::ClusterTrainingRuntime>(&doc->object)) {
      outcome.result = trainer::validate_cluster_training_runtime(*crt);
    } else {
      return set_error(err, TRAINER_E_UNSUPPORTED,
                       "validation of kind \"" + doc->kind + "\" (apiVersion \"" +
                           doc->api_version +
                           "\") is not supported: only TrainJob, TrainingRuntime and "
                           "ClusterTrainingRuntime of trainer.kubeflow.org");
    }
    auto validation = std::make_unique<trainer_validation>();
    validation->warnings = std::move(outcome.result.warnings);
    trainer_status status = TRAINER_OK;
    if (outcome.failure) {
      status = set_error(err, *outcome.failure);
    } else if (!outcome.result.ok()) {
      status = set_error(err, outcome.result.to_error());
    }
    if (out != nullptr && (status == TRAINER_OK || status == TRAINER_E_INVALID)) {
      *out = validation.release();
    }
    return status;
  });
}

void trainer_validation_free(trainer_validation* validation) {
  guard_void([&] { delete validation; });
}

size_t trainer_validation_warning_count(const trainer_validation* validation) {
  return guard_value<size_t>(
      0, [&] { return validation == nullptr ? 0 : validation->warnings.size(); });
}

const char* trainer_validation_warning(const trainer_validation* validation, size_t i) {
  return guard_value<const char*>(nullptr, [&]() -> const char* {
    if (validation == nullptr || i >= validation->warnings.size()) return nullptr;
    return validation->warnings[i].c_str();
  });
}

trainer_status trainer_document_encode(const trainer_document* doc, trainer_format fmt,
                                       trainer_buffer* out, trainer_error** err) {
  return guard(err, [&] {
    if (doc == nullptr || out == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       doc == nullptr ? "trainer_document_encode: doc is NULL"
                                      : "trainer_document_encode: out is NULL");
    }
    if (out->data != nullptr || out->len != 0) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_document_encode: out is not empty (initialise it with "
                       "TRAINER_BUFFER_INIT or reset it with trainer_buffer_free)");
    }
    if (fmt != TRAINER_FORMAT_JSON && fmt != TRAINER_FORMAT_YAML &&
        fmt != TRAINER_FORMAT_JSON_PRETTY) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT,
                       "trainer_document_encode: unknown format " + std::to_string(fmt));
    }
    const auto encode = [fmt](const boost::json::value& value) {
      return fmt == TRAINER_FORMAT_YAML
                 ? trainer::encode_yaml(value)
                 : trainer::encode_json(value, fmt == TRAINER_FORMAT_JSON_PRETTY);
    };
    const std::string text = std::visit(
        [&](const auto& obj) {
          using T = std::decay_t<decltype(obj)>;
          if constexpr (std::is_same_v<T, boost::json::value>) {
            return encode(obj);
          } else {
            return encode(trainer::to_json(obj));
          }
        },
        doc->object);
    trainer::capi::buffer_assign(out, text);
    return TRAINER_OK;
  });
}

}  // extern "C"
