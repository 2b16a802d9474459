// SPDX-License-Identifier: Apache-2.0
//
// TrainJob <-> JSON, field for field with upstream's `trainjob_types.go` (JSON names and Go
// struct order).
#include "api/json_convert_trainjob.hpp"

#include "api/json_convert_metadata.hpp"
#include "trainer/codec.hpp"

namespace trainer {
namespace detail {

namespace json = boost::json;

// ---- decoding --------------------------------------------------------------------------------

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                LocalObjectReference& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) { return m("name", out.name); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                StorageInitializer& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("storageUri", out.storage_uri) || m("env", out.env) || m("secretRef", out.secret_ref);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, Initializer& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("dataset", out.dataset) || m("model", out.model);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, Trainer& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("image", out.image) || m("command", out.command) || m("args", out.args) ||
           m("env", out.env) || m("numNodes", out.num_nodes) ||
           m("resourcesPerNode", out.resources_per_node) ||
           m("numProcPerNode", out.num_proc_per_node);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, RuntimeRef& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("apiGroup", out.api_group) || m("kind", out.kind);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                ContainerPatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("env", out.env) || m("volumeMounts", out.volume_mounts) ||
           m("securityContext", out.security_context);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                PodSpecPatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("serviceAccountName", out.service_account_name) || m("volumes", out.volumes) ||
           m("initContainers", out.init_containers) || m("containers", out.containers) ||
           m("imagePullSecrets", out.image_pull_secrets) ||
           m("securityContext", out.security_context) || m("nodeSelector", out.node_selector) ||
           m("affinity", out.affinity) || m("tolerations", out.tolerations) ||
           m("schedulingGates", out.scheduling_gates) ||
           m("terminationGracePeriodSeconds", out.termination_grace_period_seconds);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                PodTemplatePatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("metadata", out.metadata) || m("spec", out.spec);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                JobSpecPatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) { return m("template", out.template_); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                JobTemplatePatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("metadata", out.metadata) || m("spec", out.spec);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                ReplicatedJobPatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("template", out.template_);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                JobSetSpecPatch& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("replicatedJobs", out.replicated_jobs); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                JobSetTemplatePatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("metadata", out.metadata) || m("spec", out.spec);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TrainingRuntimeSpecPatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) { return m("template", out.template_); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                RuntimePatch& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("manager", out.manager) || m("time", out.time) ||
           m("trainingRuntimeSpec", out.training_runtime_spec);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TrainJobSpec& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("runtimeRef", out.runtime_ref) || m("initializer", out.initializer) ||
           m("trainer", out.trainer) || m("runtimePatches", out.runtime_patches) ||
           m("suspend", out.suspend) || m("activeDeadlineSeconds", out.active_deadline_seconds) ||
           m("managedBy", out.managed_by);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, Condition& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("type", out.type) || m("status", out.status) ||
           m("observedGeneration", out.observed_generation) ||
           m("lastTransitionTime", out.last_transition_time) || m("reason", out.reason) ||
           m("message", out.message);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, JobStatus& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("name", out.name) || m("ready", out.ready) || m("succeeded", out.succeeded) ||
           m("failed", out.failed) || m("active", out.active) || m("suspended", out.suspended);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, Metric& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("name", out.name) || m("value", out.value); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TrainerStatus& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("progressPercentage", out.progress_percentage) ||
           m("estimatedRemainingSeconds", out.estimated_remaining_seconds) ||
           m("metrics", out.metrics) || m("lastUpdatedTime", out.last_updated_time);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TrainJobStatus& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("conditions", out.conditions) || m("jobsStatus", out.jobs_status) ||
           m("trainerStatus", out.trainer_status);
  });
}

// ---- encoding --------------------------------------------------------------------------------

json::value to_value(Enc, const LocalObjectReference& r) {
  json::object o;
  put(o, "name", r.name);
  return json::value(std::move(o));
}

json::value to_value(Enc, const StorageInitializer& s) {
  json::object o;
  put(o, "storageUri", s.storage_uri);
  put_nonempty(o, "env", s.env);
  put(o, "secretRef", s.secret_ref);
  return json::value(std::move(o));
}

json::value to_value(Enc, const Initializer& i) {
  json::object o;
  put(o, "dataset", i.dataset);
  put(o, "model", i.model);
  return json::value(std::move(o));
}

json::value to_value(Enc, const Trainer& t) {
  json::object o;
  put(o, "image", t.image);
  put(o, "command", t.command);
  put(o, "args", t.args);
  put_nonempty(o, "env", t.env);
  put(o, "numNodes", t.num_nodes);
  put(o, "resourcesPerNode", t.resources_per_node);
  put(o, "numProcPerNode", t.num_proc_per_node);
  return json::value(std::move(o));
}

json::value to_value(Enc, const RuntimeRef& r) {
  json::object o;
  put_nonempty(o, "name", r.name);
  put(o, "apiGroup", r.api_group);
  put(o, "kind", r.kind);
  return json::value(std::move(o));
}

json::value to_value(Enc, const ContainerPatch& p) {
  json::object o;
  put_nonempty(o, "name", p.name);
  put_nonempty(o, "env", p.env);
  put_nonempty(o, "volumeMounts", p.volume_mounts);
  put(o, "securityContext", p.security_context);
  return json::value(std::move(o));
}

json::value to_value(Enc, const PodSpecPatch& p) {
  json::object o;
  put(o, "serviceAccountName", p.service_account_name);
  put_nonempty(o, "volumes", p.volumes);
  put_nonempty(o, "initContainers", p.init_containers);
  put_nonempty(o, "containers", p.containers);
  put_nonempty(o, "imagePullSecrets", p.image_pull_secrets);
  put(o, "securityContext", p.security_context);
  put_nonempty(o, "nodeSelector", p.node_selector);
  put(o, "affinity", p.affinity);
  put_nonempty(o, "tolerations", p.tolerations);
  put_nonempty(o, "schedulingGates", p.scheduling_gates);
  put(o, "terminationGracePeriodSeconds", p.termination_grace_period_seconds);
  return json::value(std::move(o));
}

json::value to_value(Enc, const PodTemplatePatch& p) {
  json::object o;
  put(o, "metadata", p.metadata);
  put(o, "spec", p.spec);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JobSpecPatch& p) {
  json::object o;
  put(o, "template", p.template_);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JobTemplatePatch& p) {
  json::object o;
  put(o, "metadata", p.metadata);
  put(o, "spec", p.spec);
  return json::value(std::move(o));
}

json::value to_value(Enc, const ReplicatedJobPatch& p) {
  json::object o;
  put_nonempty(o, "name", p.name);
  put(o, "template", p.template_);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JobSetSpecPatch& p) {
  json::object o;
  put_nonempty(o, "replicatedJobs", p.replicated_jobs);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JobSetTemplatePatch& p) {
  json::object o;
  put(o, "metadata", p.metadata);
  put(o, "spec", p.spec);
  return json::value(std::move(o));
}

json::value to_value(Enc, const TrainingRuntimeSpecPatch& p) {
  json::object o;
  put(o, "template", p.template_);
  return json::value(std::move(o));
}

json::value to_value(Enc, const RuntimePatch& p) {
  json::object o;
  put_nonempty(o, "manager", p.manager);
  put(o, "time", p.time);
  put(o, "trainingRuntimeSpec", p.training_runtime_spec);
  return json::value(std::move(o));
}

json::value to_value(Enc, const TrainJobSpec& s) {
  json::object o;
  json::value ref = to_value(Enc{}, s.runtime_ref);
  // `omitzero`: an all-empty runtimeRef is left out.
  if (!ref.get_object().empty()) o.emplace("runtimeRef", std::move(ref));
  put(o, "initializer", s.initializer);
  put(o, "trainer", s.trainer);
  put_nonempty(o, "runtimePatches", s.runtime_patches);
  put(o, "suspend", s.suspend);
  put(o, "activeDeadlineSeconds", s.active_deadline_seconds);
  put(o, "managedBy", s.managed_by);
  return json::value(std::move(o));
}

json::value to_value(Enc, const Condition& c) {
  json::object o;
  // metav1.Condition's fields are required (no omitempty) except observedGeneration.
  o.emplace("type", c.type);
  o.emplace("status", c.status);
  put(o, "observedGeneration", c.observed_generation);
  o.emplace("lastTransitionTime", c.last_transition_time);
  o.emplace("reason", c.reason);
  o.emplace("message", c.message);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JobStatus& s) {
  json::object o;
  put_nonempty(o, "name", s.name);
  put(o, "ready", s.ready);
  put(o, "succeeded", s.succeeded);
  put(o, "failed", s.failed);
  put(o, "active", s.active);
  put(o, "suspended", s.suspended);
  return json::value(std::move(o));
}

json::value to_value(Enc, const Metric& m) {
  json::object o;
  put_nonempty(o, "name", m.name);
  put_nonempty(o, "value", m.value);
  return json::value(std::move(o));
}

json::value to_value(Enc, const TrainerStatus& s) {
  json::object o;
  put(o, "progressPercentage", s.progress_percentage);
  put(o, "estimatedRemainingSeconds", s.estimated_remaining_seconds);
  put_nonempty(o, "metrics", s.metrics);
  put(o, "lastUpdatedTime", s.last_updated_time);
  return json::value(std::move(o));
}

json::value to_value(Enc, const TrainJobStatus& s) {
  json::object o;
  put_nonempty(o, "conditions", s.conditions);
  put_nonempty(o, "jobsStatus", s.jobs_status);
  put(o, "trainerStatus", s.trainer_status);
  return json::value(std::move(o));
}

}  // namespace detail

Result<Decoded<TrainJob>> decode_train_job(const boost::json::value& doc) {
  detail::DecodeContext c;
  TrainJob job;
  if (detail::check_type_meta(c, doc, kTrainJobKind)) {
    detail::read_fields(c, doc, "", [&](const detail::FieldMatch& m) {
      return m("apiVersion", job.api_version) || m("kind", job.kind) ||
             m("metadata", job.metadata) || m("spec", job.spec) || m("status", job.status);
    });
  }
  if (c.error()) return tl::unexpected<Error>(*c.error());
  return Decoded<TrainJob>{std::move(job), c.take_warnings()};
}

boost::json::value to_json(const TrainJob& job) {
  boost::json::object o = detail::type_and_object_meta(job.api_version, job.kind, job.metadata);
  o.emplace("spec", detail::to_value(detail::Enc{}, job.spec));
  detail::put(o, "status", job.status);
  return boost::json::value(std::move(o));
}

}  // namespace trainer
