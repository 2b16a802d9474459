// SPDX-License-Identifier: Apache-2.0
//
// The request document every callback receives (trainer/plugin.h, top comment).
#include "plugin/plugin_internal.hpp"
#include "trainer/codec.hpp"
#include "trainer/plugin.hpp"
#include "trainer/plugin_support.hpp"

namespace trainer::detail {

const char* phase_name(PluginPhase phase) noexcept {
  switch (phase) {
    case PluginPhase::kValidate: return "validate";
    case PluginPhase::kEnforceMLPolicy: return "enforceMLPolicy";
    case PluginPhase::kEnforcePodGroupPolicy: return "enforcePodGroupPolicy";
    case PluginPhase::kEnforcePodSpec: return "enforcePodSpec";
    case PluginPhase::kPreBuildSync: return "preBuildSync";
    case PluginPhase::kBuild: return "build";
    case PluginPhase::kStatus: return "status";
  }
  return "unknown";
}

boost::json::object plugin_request_document(const RequestInputs& in) {
  boost::json::object doc;
  doc["phase"] = phase_name(in.phase);
  // The UID the pipeline renders with, so that the TrainJob and the owner reference agree.
  TrainJob job = *in.job;
  if (!in.train_job_uid.empty()) job.metadata.uid = in.train_job_uid;
  doc["trainJob"] = to_json(job);
  if (in.old_job != nullptr) doc["oldTrainJob"] = to_json(*in.old_job);
  if (in.info != nullptr) doc["info"] = info_to_json(*in.info);
  if (in.status != nullptr) doc["status"] = *in.status;
  boost::json::object context;
  context["trainJobUID"] = job.metadata.uid.value_or("");
  context["namespace"] = trainer::train_job_namespace(job);
  context["ownerReference"] =
      trainer::train_job_owner_reference(job, job.metadata.uid.value_or(""));
  context["operatorNamespace"] = in.config.operator_namespace;
  context["featureGates"] = boost::json::object{{"TrainJobStatus", in.gates.trainjob_status}};
  doc["context"] = std::move(context);
  return doc;
}

}  // namespace trainer::detail
