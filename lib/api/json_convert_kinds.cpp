// SPDX-License-Identifier: Apache-2.0
//
// The public JSON <-> typed entry points of the four kinds (trainer/codec.hpp). The fields come
// from the descriptions of model_describe.hpp; only the type check of a document is done here.
#include "api/decode_taking.hpp"
#include "api/status_carrier.hpp"
#include "api/struct_codec.hpp"
#include "trainer/codec.hpp"

#include <string_view>
#include <utility>

namespace trainer {
namespace detail {
namespace {

namespace json = boost::json;

/// Refuses a document that is not an object of `apiVersion: trainer.kubeflow.org/v1alpha1` and
/// the given kind, before any field is decoded.
bool check_type_meta(DecodeContext& c, const json::value& doc, std::string_view kind) {
  if (!doc.is_object()) {
    c.type_error(FieldPath("<document>"), doc, "expected object");
    return false;
  }
  const json::object& o = doc.get_object();
  const auto check = [&](std::string_view field, std::string_view expected) {
    const json::value* v = o.if_contains(field);
    FieldError fe;
    if (v == nullptr || v->is_null()) {
      fe = field_required(std::string(field), "must be \"" + std::string(expected) + "\"");
    } else if (!v->is_string() || v->get_string() != expected) {
      fe = field_invalid(std::string(field), *v, "expected \"" + std::string(expected) + "\"");
    } else {
      return true;
    }
    Error e(ErrorCode::kParse, fe.to_string());
    e.fields.push_back(std::move(fe));
    c.fail(std::move(e));
    return false;
  };
  return check("apiVersion", kApiVersion) && check("kind", kind);
}

// `takes_document`: the caller gives `doc` up (decode_taking), see DecodeContext.
template <class Kind>
Result<Decoded<Kind>> decode_kind(const json::value& doc, std::string_view kind,
                                  bool takes_document = false) {
  DecodeContext c(takes_document);
  Kind object;
  if (check_type_meta(c, doc, kind)) read_value(c, doc, FieldPath(), object);
  if (c.error()) return tl::unexpected<Error>(*c.error());
  return Decoded<Kind>{std::move(object), c.take_warnings()};
}

}  // namespace
}  // namespace detail

Result<Decoded<TrainJob>> decode_train_job(const boost::json::value& doc) {
  return detail::decode_kind<TrainJob>(doc, kTrainJobKind);
}

Result<Decoded<TrainJob>> detail::decode_train_job_status(std::string_view name,
                                                          boost::json::object status) {
  return decode_train_job(boost::json::object{{"apiVersion", kApiVersion},
                                              {"kind", kTrainJobKind},
                                              {"metadata", boost::json::object{{"name", name}}},
                                              {"status", std::move(status)}});
}

Result<Decoded<TrainingRuntime>> decode_training_runtime(const boost::json::value& doc) {
  return detail::decode_kind<TrainingRuntime>(doc, kTrainingRuntimeKind);
}

Result<Decoded<ClusterTrainingRuntime>> decode_cluster_training_runtime(
    const boost::json::value& doc) {
  return detail::decode_kind<ClusterTrainingRuntime>(doc, kClusterTrainingRuntimeKind);
}

Result<Decoded<OptimizationJob>> decode_optimization_job(const boost::json::value& doc) {
  return detail::decode_kind<OptimizationJob>(doc, kOptimizationJobKind);
}

Error strict_decoding_error(const boost::json::value& doc,
                            const std::vector<std::string>& unknown_fields) {
  const auto* obj = doc.if_object();
  const auto text_of = [obj](std::string_view key) {
    const auto* v = obj != nullptr ? obj->if_contains(key) : nullptr;
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  const std::string kind = text_of("kind");
  const std::string api_version = text_of("apiVersion");
  const auto slash = api_version.find('/');
  // apimachinery's strict decoding error inside the CRD handler's "cannot be handled as" text.
  std::string text = kind + " in version \"" +
                     (slash == std::string::npos ? api_version : api_version.substr(slash + 1)) +
                     "\" cannot be handled as a " + kind + ": strict decoding error: ";
  for (std::size_t i = 0; i < unknown_fields.size(); ++i) {
    if (i > 0) text += ", ";
    text += unknown_fields[i];
  }
  return Error(ErrorCode::kParse, std::move(text));
}

template <>
Result<Decoded<TrainJob>> detail::decode_taking(boost::json::value&& doc) {
  return detail::decode_kind<TrainJob>(doc, kTrainJobKind, true);
}

template <>
Result<Decoded<TrainingRuntime>> detail::decode_taking(boost::json::value&& doc) {
  return detail::decode_kind<TrainingRuntime>(doc, kTrainingRuntimeKind, true);
}

template <>
Result<Decoded<ClusterTrainingRuntime>> detail::decode_taking(boost::json::value&& doc) {
  return detail::decode_kind<ClusterTrainingRuntime>(doc, kClusterTrainingRuntimeKind, true);
}

template <>
Result<Decoded<OptimizationJob>> detail::decode_taking(boost::json::value&& doc) {
  return detail::decode_kind<OptimizationJob>(doc, kOptimizationJobKind, true);
}

boost::json::value to_json(const TrainJob& job) {
  return detail::to_value(detail::Enc{}, job);
}

boost::json::value to_json(const TrainingRuntime& runtime) {
  return detail::to_value(detail::Enc{}, runtime);
}

boost::json::value to_json(const ClusterTrainingRuntime& runtime) {
  return detail::to_value(detail::Enc{}, runtime);
}

boost::json::value to_json(const OptimizationJob& job) {
  return detail::to_value(detail::Enc{}, job);
}

}  // namespace trainer
