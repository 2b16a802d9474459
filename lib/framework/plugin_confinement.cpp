// SPDX-License-Identifier: Apache-2.0
//
// The confinement of plugin output (plugin_confinement.hpp): a plugin reaches the cluster only
// through the objects the controller applies with its own rights, so every object must stay in
// the TrainJob's namespace, under the TrainJob's control, and the TrainJob it is built for must
// keep its identity.
#include "framework/plugin_confinement.hpp"

#include "trainer/codec.hpp"
#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace trainer::detail {
namespace {

namespace json = boost::json;

// Kinds namespaced in every cluster that serves them (Kubernetes' built-in resources, and the
// CRDs the built-in plugins build), by API group: what a render without a cluster accepts.
constexpr std::array<std::pair<std::string_view, std::string_view>, 35> kNamespacedKinds{{
    {"", "ConfigMap"},
    {"", "Endpoints"},
    {"", "Event"},
    {"", "LimitRange"},
    {"", "PersistentVolumeClaim"},
    {"", "Pod"},
    {"", "PodTemplate"},
    {"", "ReplicationController"},
    {"", "ResourceQuota"},
    {"", "Secret"},
    {"", "Service"},
    {"", "ServiceAccount"},
    {"apps", "ControllerRevision"},
    {"apps", "DaemonSet"},
    {"apps", "Deployment"},
    {"apps", "ReplicaSet"},
    {"apps", "StatefulSet"},
    {"autoscaling", "HorizontalPodAutoscaler"},
    {"batch", "CronJob"},
    {"batch", "Job"},
    {"coordination.k8s.io", "Lease"},
    {"discovery.k8s.io", "EndpointSlice"},
    {"events.k8s.io", "Event"},
    {"networking.k8s.io", "Ingress"},
    {"networking.k8s.io", "NetworkPolicy"},
    {"policy", "PodDisruptionBudget"},
    {"rbac.authorization.k8s.io", "Role"},
    {"rbac.authorization.k8s.io", "RoleBinding"},
    {"storage.k8s.io", "CSIStorageCapacity"},
    {"jobset.x-k8s.io", "JobSet"},
    {"scheduling.x-k8s.io", "PodGroup"},
    {"scheduling.volcano.sh", "PodGroup"},
    {"trainer.kubeflow.org", "TrainJob"},
    {"trainer.kubeflow.org", "TrainingRuntime"},
    {"trainer.kubeflow.org", "OptimizationJob"},
}};

Error refused(std::string_view plugin, const char* phase, FieldError fe) {
  Error e(ErrorCode::kInvalid,
          "plugin \"" + std::string(plugin) + "\": " + phase + ": " + fe.to_string());
  e.fields.push_back(std::move(fe));
  return e;
}

FieldError type_invalid(std::string path, std::string detail) {
  FieldError fe;
  fe.type = FieldErrorType::kTypeInvalid;
  fe.path = std::move(path);
  fe.detail = std::move(detail);
  return fe;
}

std::optional<json::value> status_of(const TrainJob& job) {
  if (!job.status) return std::nullopt;
  TrainJob carrier;
  carrier.status = job.status;
  json::value doc = to_json(carrier);
  if (auto* s = doc.get_object().if_contains("status")) return std::move(*s);
  return json::value();
}

// Whether owner reference `ref` names the TrainJob of `expected` (its own controller reference).
bool same_owner(const json::object& ref, const json::object& expected) {
  for (const char* key : {"apiVersion", "kind", "name", "uid"}) {
    const auto* a = ref.if_contains(key);
    if (a == nullptr || *a != expected.at(key)) return false;
  }
  return true;
}

std::string owner_text(const json::object& ref) {
  return find_string(ref, "kind").value_or("?") + " \"" + find_string(ref, "name").value_or("") +
         "\"";
}

// Scope of `kind`: the cluster's answer when the render has a cluster, else the fixed table.
// nullopt: not known to be namespaced (`why` says what the cluster answered).
Result<std::optional<bool>> scope_of(const RenderContext& ctx, std::string_view api_version,
                                     std::string_view kind, std::string& why) {
  if (!ctx.namespaced) {
    if (known_namespaced_kind(api_version, kind)) return std::optional<bool>(true);
    return std::optional<bool>();
  }
  auto answer = ctx.namespaced(api_version, kind);
  if (answer) return std::optional<bool>(*answer);
  if (answer.error().code != ErrorCode::kNotFound) return tl::unexpected(answer.error());
  why = answer.error().message;
  return std::optional<bool>();
}

}  // namespace

TrainJobIdentity::TrainJobIdentity(const TrainJob& job)
    : api_version_(job.api_version),
      kind_(job.kind),
      metadata_(job.metadata),
      status_(status_of(job)) {}

std::string TrainJobIdentity::changed_in(const TrainJob& job) const {
  const ObjectMeta& m = job.metadata;
  const ObjectMeta& was = metadata_;
  const std::pair<bool, const char*> fields[] = {
      {job.api_version != api_version_, "apiVersion"},
      {job.kind != kind_, "kind"},
      {m.name != was.name, "metadata.name"},
      {m.generate_name != was.generate_name, "metadata.generateName"},
      {m.namespace_ != was.namespace_, "metadata.namespace"},
      {m.uid != was.uid, "metadata.uid"},
      {m.resource_version != was.resource_version, "metadata.resourceVersion"},
      {m.generation != was.generation, "metadata.generation"},
      {m.creation_timestamp != was.creation_timestamp, "metadata.creationTimestamp"},
      {m.deletion_timestamp != was.deletion_timestamp, "metadata.deletionTimestamp"},
      {m.deletion_grace_period_seconds != was.deletion_grace_period_seconds,
       "metadata.deletionGracePeriodSeconds"},
      {m.labels != was.labels, "metadata.labels"},
      {m.annotations != was.annotations, "metadata.annotations"},
      {m.finalizers != was.finalizers, "metadata.finalizers"},
      {m.owner_references != was.owner_references, "metadata.ownerReferences"},
      {m.managed_fields != was.managed_fields, "metadata.managedFields"},
  };
  for (const auto& [changed, path] : fields) {
    if (changed) return std::string("trainJob.") + path;
  }
  if (job.status.has_value() != status_.has_value() || (status_ && status_of(job) != status_)) {
    return "trainJob.status";
  }
  return {};
}

Error train_job_change_refused(std::string_view plugin, const std::string& path) {
  return refused(plugin, "enforceMLPolicy",
                 field_forbidden(path, "a plugin may change only the TrainJob's spec"));
}

bool known_namespaced_kind(std::string_view api_version, std::string_view kind) {
  const auto slash = api_version.find('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  if (slash == std::string_view::npos && api_version != "v1") return false;
  for (const auto& [g, k] : kNamespacedKinds) {
    if (g == group && k == kind) return true;
  }
  return false;
}

Result<void> confine_built_objects(std::string_view plugin, std::vector<json::value>& objects,
                                   const TrainJob& job, const PluginContext& ctx) {
  // Most builders build nothing for a given TrainJob (the other frameworks' plugins).
  if (objects.empty()) return {};
  auto bad = [&](FieldError fe) { return tl::unexpected(refused(plugin, "build", std::move(fe))); };
  const std::string ns = train_job_namespace(job);
  // The TrainJob as controller, built when an object names a controller or has none.
  std::optional<json::object> owner_ref;
  const auto owner = [&]() -> const json::object& {
    if (!owner_ref) owner_ref = train_job_owner_reference(job, effective_uid(job, ctx));
    return *owner_ref;
  };
  for (std::size_t i = 0; i < objects.size(); ++i) {
    // The object's path and description are written out only for an error.
    const auto path = [i] { return "objects[" + std::to_string(i) + "]"; };
    auto* obj = objects[i].if_object();
    if (obj == nullptr) return bad(type_invalid(path(), "expected object"));
    for (const char* key : {"apiVersion", "kind"}) {
      const auto* s = obj->if_contains(key);
      if (s == nullptr || !s->is_string() || s->get_string().empty()) {
        return bad(field_required(path() + "." + key, ""));
      }
    }
    const std::string_view api_version = obj->at("apiVersion").get_string();
    const std::string_view kind = obj->at("kind").get_string();
    auto* meta_value = obj->if_contains("metadata");
    if (meta_value == nullptr) return bad(field_required(path() + ".metadata", ""));
    if (!meta_value->is_object()) return bad(type_invalid(path() + ".metadata", "expected object"));
    json::object& meta = meta_value->get_object();
    const auto* name = meta.if_contains("name");
    if (name == nullptr || !name->is_string() || name->get_string().empty()) {
      return bad(field_required(path() + ".metadata.name", ""));
    }
    // Looks the name up again: setting the namespace below may move the metadata's members.
    const auto who = [&] {
      return std::string(kind) + " \"" + std::string(meta.at("name").get_string()) + "\" (" +
             std::string(api_version) + ")";
    };

    std::string why;
    auto scope = scope_of(ctx.inputs, api_version, kind, why);
    if (!scope) {
      Error e = std::move(scope.error());
      e.message = "plugin \"" + std::string(plugin) + "\": build: " + path() + " (" + who() +
                  "): " + e.message;
      return tl::unexpected(std::move(e));
    }
    if (!*scope) {
      return bad(
          field_forbidden(path() + ".kind", who() + " is not known to be namespaced" +
                                                (why.empty() ? "" : " (" + why + ")") +
                                                ": a plugin builds only namespaced objects"));
    }
    if (!**scope) {
      return bad(field_forbidden(path() + ".kind",
                                 who() + " is cluster-scoped: a plugin builds only namespaced "
                                         "objects, in the TrainJob's namespace"));
    }

    if (const auto* given = meta.if_contains("namespace")) {
      if (!given->is_string() || given->get_string() != ns) {
        return bad(field_forbidden(path() + ".metadata.namespace",
                                   who() + " must be in the TrainJob's namespace \"" + ns + "\""));
      }
    } else {
      meta["namespace"] = ns;
    }

    auto* owners = meta.if_contains("ownerReferences");
    if (owners != nullptr && !owners->is_array()) {
      return bad(type_invalid(path() + ".metadata.ownerReferences", "expected array"));
    }
    bool controlled = false;
    if (owners != nullptr) {
      const json::array& refs = owners->get_array();
      for (std::size_t j = 0; j < refs.size(); ++j) {
        const auto ref_path = [&] {
          return path() + ".metadata.ownerReferences[" + std::to_string(j) + "]";
        };
        const auto* ref = refs[j].if_object();
        if (ref == nullptr) return bad(type_invalid(ref_path(), "expected object"));
        const auto* controller = ref->if_contains("controller");
        if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
        if (!same_owner(*ref, owner())) {
          return bad(
              field_forbidden(ref_path(), who() + " names another controller, " + owner_text(*ref) +
                                              ": its controller must be " + owner_text(owner())));
        }
        controlled = true;
      }
    }
    if (!controlled) {
      if (owners == nullptr) owners = &(meta["ownerReferences"] = json::array());
      owners->get_array().emplace_back(owner());
    }
  }
  return {};
}

}  // namespace trainer::detail
