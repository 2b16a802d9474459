// SPDX-License-Identifier: Apache-2.0
//
// TrainingRuntime / ClusterTrainingRuntime <-> JSON, field for field with upstream's
// `trainingruntime_types.go`. The JobSet spec is carried verbatim.
#include "api/json_convert_metadata.hpp"
#include "trainer/codec.hpp"

namespace trainer {
namespace detail {

namespace json = boost::json;

// ---- decoding --------------------------------------------------------------------------------

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                EnvInjectionTarget& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("jobName", out.job_name) || m("containerNames", out.container_names);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                EnvInjection& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) { return m("targets", out.targets); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TorchMLPolicySource& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("envInjection", out.env_injection); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                MPIMLPolicySource& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("numProcPerNode", out.num_proc_per_node) ||
           m("mpiImplementation", out.mpi_implementation) ||
           m("sshAuthMountPath", out.ssh_auth_mount_path) ||
           m("runLauncherAsNode", out.run_launcher_as_node);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                FluxMLPolicySource& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("numProcPerNode", out.num_proc_per_node); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                JAXMLPolicySource&) {
  read_fields(c, v, path, [](const FieldMatch&) { return false; });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                XGBoostMLPolicySource&) {
  read_fields(c, v, path, [](const FieldMatch&) { return false; });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path, MLPolicy& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("numNodes", out.num_nodes) || m("torch", out.torch) || m("mpi", out.mpi) ||
           m("flux", out.flux) || m("jax", out.jax) || m("xgboost", out.xgboost);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                CoschedulingPodGroupPolicySource& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("scheduleTimeoutSeconds", out.schedule_timeout_seconds);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                VolcanoPodGroupPolicySource& out) {
  read_fields(c, v, path,
              [&](const FieldMatch& m) { return m("networkTopology", out.network_topology); });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                PodGroupPolicy& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("coscheduling", out.coscheduling) || m("volcano", out.volcano);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                JobSetTemplateSpec& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("metadata", out.metadata) || m("spec", out.spec);
  });
}

void read_value(DecodeContext& c, const json::value& v, const std::string& path,
                TrainingRuntimeSpec& out) {
  read_fields(c, v, path, [&](const FieldMatch& m) {
    return m("mlPolicy", out.ml_policy) || m("podGroupPolicy", out.pod_group_policy) ||
           m("template", out.template_);
  });
}

// ---- encoding --------------------------------------------------------------------------------

json::value to_value(Enc, const EnvInjectionTarget& t) {
  json::object o;
  put_nonempty(o, "jobName", t.job_name);
  put_nonempty(o, "containerNames", t.container_names);
  return json::value(std::move(o));
}

json::value to_value(Enc, const EnvInjection& e) {
  json::object o;
  put_nonempty(o, "targets", e.targets);
  return json::value(std::move(o));
}

json::value to_value(Enc, const TorchMLPolicySource& t) {
  json::object o;
  put(o, "envInjection", t.env_injection);
  return json::value(std::move(o));
}

json::value to_value(Enc, const MPIMLPolicySource& m) {
  json::object o;
  put(o, "numProcPerNode", m.num_proc_per_node);
  put(o, "mpiImplementation", m.mpi_implementation);
  put(o, "sshAuthMountPath", m.ssh_auth_mount_path);
  put(o, "runLauncherAsNode", m.run_launcher_as_node);
  return json::value(std::move(o));
}

json::value to_value(Enc, const FluxMLPolicySource& f) {
  json::object o;
  put(o, "numProcPerNode", f.num_proc_per_node);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JAXMLPolicySource&) {
  return json::value(json::object());
}
json::value to_value(Enc, const XGBoostMLPolicySource&) {
  return json::value(json::object());
}

json::value to_value(Enc, const MLPolicy& p) {
  json::object o;
  put(o, "numNodes", p.num_nodes);
  put(o, "torch", p.torch);
  put(o, "mpi", p.mpi);
  put(o, "flux", p.flux);
  put(o, "jax", p.jax);
  put(o, "xgboost", p.xgboost);
  return json::value(std::move(o));
}

json::value to_value(Enc, const CoschedulingPodGroupPolicySource& s) {
  json::object o;
  put(o, "scheduleTimeoutSeconds", s.schedule_timeout_seconds);
  return json::value(std::move(o));
}

json::value to_value(Enc, const VolcanoPodGroupPolicySource& s) {
  json::object o;
  put(o, "networkTopology", s.network_topology);
  return json::value(std::move(o));
}

json::value to_value(Enc, const PodGroupPolicy& p) {
  json::object o;
  put(o, "coscheduling", p.coscheduling);
  put(o, "volcano", p.volcano);
  return json::value(std::move(o));
}

json::value to_value(Enc, const JobSetTemplateSpec& t) {
  json::object o;
  // Empty parts are left out, as the API server returns a runtime (see the snapshot ConfigMaps
  // of the conformance cases).
  if (!is_empty(t.metadata)) o.emplace("metadata", to_value(Enc{}, t.metadata));
  if (!t.spec.empty()) o.emplace("spec", t.spec);
  return json::value(std::move(o));
}

json::value to_value(Enc, const TrainingRuntimeSpec& s) {
  json::object o;
  put(o, "mlPolicy", s.ml_policy);
  put(o, "podGroupPolicy", s.pod_group_policy);
  json::value t = to_value(Enc{}, s.template_);
  if (!t.get_object().empty()) o.emplace("template", std::move(t));
  return json::value(std::move(o));
}

namespace {

template <class Runtime>
Result<Decoded<Runtime>> decode_runtime(const json::value& doc, const char* kind) {
  DecodeContext c;
  Runtime rt;
  if (check_type_meta(c, doc, kind)) {
    read_fields(c, doc, "", [&](const FieldMatch& m) {
      return m("apiVersion", rt.api_version) || m("kind", rt.kind) || m("metadata", rt.metadata) ||
             m("spec", rt.spec);
    });
  }
  if (c.error()) return tl::unexpected<Error>(*c.error());
  return Decoded<Runtime>{std::move(rt), c.take_warnings()};
}

template <class Runtime>
json::value runtime_to_json(const Runtime& rt) {
  json::object o = type_and_object_meta(rt.api_version, rt.kind, rt.metadata);
  o.emplace("spec", to_value(Enc{}, rt.spec));
  return json::value(std::move(o));
}

}  // namespace
}  // namespace detail

Result<Decoded<TrainingRuntime>> decode_training_runtime(const boost::json::value& doc) {
  return detail::decode_runtime<TrainingRuntime>(doc, kTrainingRuntimeKind);
}

Result<Decoded<ClusterTrainingRuntime>> decode_cluster_training_runtime(
    const boost::json::value& doc) {
  return detail::decode_runtime<ClusterTrainingRuntime>(doc, kClusterTrainingRuntimeKind);
}

boost::json::value to_json(const TrainingRuntime& runtime) {
  return detail::runtime_to_json(runtime);
}

boost::json::value to_json(const ClusterTrainingRuntime& runtime) {
  return detail::runtime_to_json(runtime);
}

}  // namespace trainer
