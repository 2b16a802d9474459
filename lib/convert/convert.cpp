// SPDX-License-Identifier: Apache-2.0
//
// The dispatch of trainer::convert (include/trainer/convert.hpp): which kinds convert, and
// which converter handles each. The Training Operator v1 kinds are v1_*.cpp; Katib's
// Experiment is katib_*.cpp.
#include "trainer/convert.hpp"

#include "convert/katib_experiment.hpp"
#include "convert/v1_kinds.hpp"
#include "trainer/json_path.hpp"

namespace trainer::convert {
namespace json = boost::json;

namespace {

constexpr std::string_view kV1 = "kubeflow.org/v1";
constexpr std::string_view kKatib = "kubeflow.org/v1beta1";
constexpr std::string_view kExperiment = "Experiment";

}  // namespace

bool is_convertible(std::string_view api_version, std::string_view kind) {
  if (api_version == kV1) return detail::find_v1_kind(kind) != nullptr;
  return api_version == kKatib && kind == kExperiment;
}

Result<Conversion> convert_job(const json::value& job, const Options& options) {
  const auto* obj = job.if_object();
  if (obj == nullptr) return fail(ErrorCode::kInvalidArgument, "the job is not a JSON object");
  const auto api = trainer::find_string(*obj, "apiVersion").value_or("");
  const auto kind = trainer::find_string(*obj, "kind").value_or("");
  if (api == kV1) {
    if (const auto* converter = detail::find_v1_kind(kind)) {
      return detail::convert_v1(*obj, *converter, options);
    }
  }
  if (api == kKatib && kind == kExperiment) {
    return detail::convert_experiment(*obj, options);
  }
  return fail(ErrorCode::kUnsupported,
              "cannot convert " + (kind.empty() ? std::string("an object without a kind") : kind) +
                  (api.empty() ? std::string() : " of " + api) +
                  ": only kubeflow.org/v1 PyTorchJob, TFJob, MPIJob, XGBoostJob, JAXJob, "
                  "PaddleJob and kubeflow.org/v1beta1 Experiment convert");
}

Result<std::vector<json::value>> convert_documents(
    std::vector<json::value> documents, const Options& options,
    const std::function<void(std::string_view)>& on_warning) {
  std::vector<json::value> out;
  out.reserve(documents.size());
  for (auto& doc : documents) {
    const auto* obj = doc.if_object();
    const auto api = obj != nullptr ? trainer::find_string(*obj, "apiVersion").value_or("") : "";
    const auto kind = obj != nullptr ? trainer::find_string(*obj, "kind").value_or("") : "";
    if (!is_convertible(api, kind)) {
      out.push_back(std::move(doc));
      continue;
    }
    auto converted = convert_job(doc, options);
    if (!converted) return tl::unexpected(std::move(converted.error()));
    if (on_warning) {
      for (const auto& w : converted->warnings) on_warning(w);
    }
    for (auto& o : converted->objects) out.push_back(std::move(o));
  }
  return out;
}

}  // namespace trainer::convert
