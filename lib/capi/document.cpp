// SPDX-License-Identifier: Apache-2.0
// Documents: parse (YAML/JSON -> typed or JSON), default, validate, encode.
#include "capi/capi.hpp"
#include "capi/options_version.hpp"
#include "capi/plugin.hpp"

#include "trainer/admission.hpp"
#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <type_traits>

namespace trainer::capi {
namespace {

template <class T>
void take(trainer_document& doc, Decoded<T>&& decoded) {
  doc.object = std::move(decoded.object);
  doc.warnings = std::move(decoded.warnings);
}

template <class Decode>
Result<void> decode_typed(const boost::json::value& value, Decode decode, trainer_document& doc) {
  auto decoded = decode(value);
  if (!decoded) return tl::unexpected(std::move(decoded).error());
  take(doc, std::move(*decoded));
  return {};
}

// One parsed document: the Trainer kinds are decoded to the typed model, the rest kept as JSON.
Result<void> make_document(boost::json::value value, trainer_document& doc) {
  const ObjectHeader header = object_header(value);
  Result<void> made;
  switch (trainer_kind(header.api_version, header.kind)) {
    case TrainerKind::kTrainJob: made = decode_typed(value, decode_train_job, doc); break;
    case TrainerKind::kTrainingRuntime:
      made = decode_typed(value, decode_training_runtime, doc);
      break;
    case TrainerKind::kClusterTrainingRuntime:
      made = decode_typed(value, decode_cluster_training_runtime, doc);
      break;
    case TrainerKind::kOptimizationJob:
      made = decode_typed(value, decode_optimization_job, doc);
      break;
    case TrainerKind::kNone:
    case TrainerKind::kUnknown: doc.object = std::move(value); break;
  }
  if (!made) return made;
  doc.refresh_header();
  return {};
}

// The runtimes and existing objects of `context` (NULL: none), as admission sees them.
AdmissionScope scope_of(const trainer_document_list* context) {
  AdmissionScope scope;
  if (context == nullptr) return scope;
  for (const auto& doc : context->documents) {
    if (const auto* rt = std::get_if<TrainingRuntime>(&doc.object)) {
      scope.training_runtimes.push_back(rt);
    } else if (const auto* crt = std::get_if<ClusterTrainingRuntime>(&doc.object)) {
      scope.cluster_training_runtimes.push_back(crt);
    } else if (const auto* other = std::get_if<boost::json::value>(&doc.object)) {
      scope.existing_objects.push_back(other);
    }
  }
  return scope;
}

// A TrainJob or an OptimizationJob (whose template is admitted like a TrainJob).
template <class Job>
Result<ValidationResult> admit_job(const Job& job, const trainer_document_list* context,
                                   const trainer_framework* framework) {
  if (framework == nullptr) return admit_object(job, scope_of(context));
  return admit_object(job, scope_of(context), RenderContext{}, framework->framework.get());
}

// Admission of `doc` against `context`: the admission path of trainerctl validate, with the
// plugins of `framework` (NULL: the built-in ones, gates off).
Result<ValidationResult> admit_document(const trainer_document& doc,
                                        const trainer_document_list* context,
                                        const trainer_framework* framework) {
  if (const auto* job = std::get_if<TrainJob>(&doc.object)) {
    return admit_job(*job, context, framework);
  }
  if (const auto* opt = std::get_if<OptimizationJob>(&doc.object)) {
    return admit_job(*opt, context, framework);
  }
  if (const auto* rt = std::get_if<TrainingRuntime>(&doc.object)) return admit_object(*rt);
  if (const auto* crt = std::get_if<ClusterTrainingRuntime>(&doc.object)) {
    return admit_object(*crt);
  }
  return fail(ErrorCode::kUnsupported,
              "validation of kind \"" + doc.kind + "\" (apiVersion \"" + doc.api_version +
                  "\") is not supported: only TrainJob, TrainingRuntime, "
                  "ClusterTrainingRuntime and OptimizationJob of trainer.kubeflow.org");
}

}  // namespace

// trainer_document_validate and trainer_document_validate_with (`fn`: the name in messages).
trainer_status validate_document(const char* fn, const trainer_document* doc,
                                 const trainer_document_list* context,
                                 const trainer_framework* framework, trainer_validation** out,
                                 trainer_error** err) {
  return guard(err, [&] {
    if (out != nullptr) *out = nullptr;
    if (doc == nullptr) {
      return set_error(err, TRAINER_E_INVALID_ARGUMENT, std::string(fn) + ": doc is NULL");
    }
    auto validation = std::make_unique<trainer_validation>();
    auto admitted = admit_document(*doc, context, framework);
    trainer_status status = TRAINER_OK;
    if (!admitted) {
      status = set_error(err, admitted.error());
    } else {
      validation->warnings = std::move(admitted->warnings);
      if (!admitted->ok()) status = set_error(err, admitted->to_error());
    }
    if (out != nullptr && (status == TRAINER_OK || status == TRAINER_E_INVALID)) {
      *out = validation.release();
    }
    return status;
  });
}

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
  // Version 1 ends before `max_alias_bytes`.
  return trainer::capi::init_options(
      opts, version, TRAINER_PARSE_OPTIONS_VERSION,
      trainer_parse_options TRAINER_PARSE_OPTIONS_INIT, [](uint32_t v) {
        return v >= 2 ? sizeof(trainer_parse_options)
                      : offsetof(trainer_parse_options, max_alias_bytes);
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
    // A `v1` `List` contributes its items, as in admission and trainer_render.
    auto values =
        trainer::capi::read_objects(std::string_view(data == nullptr ? "" : data, len), options);
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
  return trainer::capi::validate_document("trainer_document_validate", doc, context, nullptr, out,
                                          err);
}

trainer_status trainer_document_validate_with(const trainer_document* doc,
                                              const trainer_document_list* context,
                                              const trainer_framework* framework,
                                              trainer_validation** out, trainer_error** err) {
  return trainer::capi::validate_document("trainer_document_validate_with", doc, context, framework,
                                          out, err);
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
