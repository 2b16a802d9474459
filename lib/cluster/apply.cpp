// SPDX-License-Identifier: Apache-2.0
// `apply`: local admission with the one admission path (`trainer::admit`, as `trainerctl
// validate`), completed with the runtimes the cluster holds, then server-side apply of every
// object in input order.
#include "cluster/cluster_internal.hpp"
#include "trainer/admission.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string>
#include <utility>
#include <vector>

namespace trainer::cluster {
namespace {

namespace json = boost::json;
using trainer::find_object;
using trainer::find_string;

TrainerKind kind_of(const json::object& object) {
  return trainer_kind(find_string(object, "apiVersion").value_or(""),
                      find_string(object, "kind").value_or(""));
}

// Whether `objects` hold the runtime of `kind` named `name` (namespace `ns` for a
// TrainingRuntime).
bool holds_runtime(const std::vector<json::object>& objects, TrainerKind kind,
                   const std::string& name, const std::string& ns) {
  for (const auto& object : objects) {
    if (kind_of(object) != kind || trainer::object_name(object) != name) continue;
    if (kind == TrainerKind::kClusterTrainingRuntime || trainer::object_namespace(object) == ns)
      return true;
  }
  return false;
}

// The runtimes the TrainJobs (and OptimizationJobs' trial templates) reference that `objects`
// lack, from the cluster. A runtime the cluster lacks too is left out: admission then warns, as
// `trainerctl validate` does.
Result<std::vector<json::value>> cluster_runtimes(kube::Client& client,
                                                  const std::vector<json::object>& objects,
                                                  const kube::CallOptions& call) {
  std::vector<json::value> found;
  std::vector<json::object> known = objects;
  for (const auto& object : objects) {
    const TrainerKind object_kind = kind_of(object);
    const json::object* ref = nullptr;
    if (object_kind == TrainerKind::kTrainJob) {
      ref = find_object(object, {"spec", "runtimeRef"});
    } else if (object_kind == TrainerKind::kOptimizationJob) {
      ref = find_object(object, {"spec", "trainJobTemplate", "spec", "runtimeRef"});
    } else {
      continue;
    }
    if (ref == nullptr) continue;  // admission reports it
    // The CRD defaults of runtimeRef.
    if (find_string(*ref, "apiGroup").value_or("trainer.kubeflow.org") != "trainer.kubeflow.org") {
      continue;
    }
    const std::string kind_text = find_string(*ref, "kind").value_or("ClusterTrainingRuntime");
    const std::string name = find_string(*ref, "name").value_or("");
    const Kind kind =
        kind_text == "TrainingRuntime" ? Kind::kTrainingRuntime : Kind::kClusterTrainingRuntime;
    if (name.empty() || (kind_text != "TrainingRuntime" && kind_text != "ClusterTrainingRuntime")) {
      continue;
    }
    const std::string ns = kind == Kind::kTrainingRuntime ? trainer::object_namespace(object) : "";
    const TrainerKind trainer_kind = kind == Kind::kTrainingRuntime
                                         ? TrainerKind::kTrainingRuntime
                                         : TrainerKind::kClusterTrainingRuntime;
    if (holds_runtime(known, trainer_kind, name, ns)) continue;
    auto runtime = get(client, kind, ns, name, call);
    if (!runtime) {
      if (runtime.error().code == ErrorCode::kNotFound) continue;
      return tl::unexpected(std::move(runtime.error()));
    }
    // What the server adds is not the user's to check: only the spec and identity count.
    if (auto* meta = find_object(*runtime, "metadata")) meta->erase("managedFields");
    runtime->erase("status");
    known.push_back(*runtime);
    found.emplace_back(std::move(*runtime));
  }
  return found;
}

}  // namespace

Result<std::vector<AppliedObject>> apply(kube::Client& client,
                                         const std::vector<boost::json::value>& documents,
                                         const ApplyOptions& options) {
  auto objects = objects_of(documents);
  if (!objects) return tl::unexpected(std::move(objects.error()));
  const std::string& ns =
      options.namespace_.empty() ? client.default_namespace() : options.namespace_;
  const kube::CallOptions call = options;

  // kubectl's rule for -n: an object naming another namespace is refused. Trainer objects
  // without a namespace get the effective one before admission, so admission and the
  // server see the same object.
  for (auto& object : *objects) {
    if (auto checked = check_namespace(object, options.namespace_); !checked) {
      return tl::unexpected(std::move(checked.error()));
    }
    const std::string object_ns = trainer::object_namespace(object);
    const TrainerKind kind = kind_of(object);
    if (object_ns.empty() &&
        (kind == TrainerKind::kTrainJob || kind == TrainerKind::kTrainingRuntime ||
         kind == TrainerKind::kOptimizationJob)) {
      trainer::ensure_object(object, {"metadata"})["namespace"] = ns;
    }
  }

  std::vector<json::value> admitted(objects->begin(), objects->end());
  auto runtimes = cluster_runtimes(client, *objects, call);
  if (!runtimes) return tl::unexpected(std::move(runtimes.error()));
  for (auto& runtime : *runtimes) admitted.push_back(std::move(runtime));

  AdmissionOptions admission_options;
  // Only an explicit namespace refuses objects naming another one (kubectl's -n rule).
  admission_options.namespace_ = options.namespace_;
  admission_options.on_warning = options.on_warning;
  admission_options.missing_runtime = MissingRuntime::kWarn;
  admission_options.runtimes_from_cluster = true;
  admission_options.framework = options.framework;
  admission_options.strict_fields = options.strict_fields;
  auto admission = admit(std::move(admitted), RenderContext{}, admission_options);
  if (!admission) return tl::unexpected(std::move(admission.error()));
  if (!admission->ok()) return tl::unexpected(Error::invalid(std::move(admission->errors)));

  kube::ApplyOptions apply_options;
  static_cast<kube::CallOptions&>(apply_options) = call;
  apply_options.field_manager = options.field_manager;
  apply_options.dry_run = options.dry_run;
  apply_options.force = options.force;

  // Every object's resource first, as kubectl maps every object before it sends any: an
  // object of a kind the server lacks fails the call before anything is applied.
  std::vector<kube::Resource> resources;
  for (const auto& object : *objects) {
    const std::string api_version = find_string(object, "apiVersion").value_or("");
    const std::string kind = find_string(object, "kind").value_or("");
    if (api_version.empty() || kind.empty()) {
      return fail(ErrorCode::kInvalid, "an object has no apiVersion or kind");
    }
    const auto* meta = find_object(object, "metadata");
    if (trainer::object_name(object).empty()) {
      if (meta != nullptr && find_string(*meta, "generateName")) {
        return fail(ErrorCode::kInvalid, "from " + *find_string(*meta, "generateName") +
                                             ": cannot use generate name with apply");
      }
      return fail(ErrorCode::kInvalid, kind + ": resource name may not be empty");
    }
    auto resource = client.resource_for(api_version, kind, call);
    if (!resource) return tl::unexpected(std::move(resource.error()));
    resources.push_back(std::move(*resource));
  }

  std::vector<AppliedObject> applied;
  for (std::size_t i = 0; i < objects->size(); ++i) {
    const auto& object = (*objects)[i];
    const auto& resource = resources[i];
    std::string object_ns;
    if (resource.namespaced) {
      object_ns = trainer::object_namespace(object);
      if (object_ns.empty()) object_ns = ns;
    }
    auto result = client.apply(resource, object_ns, object, apply_options);
    if (!result) return tl::unexpected(std::move(result.error()));
    applied.push_back(
        {resource.kind_group() + "/" + trainer::object_name(object), std::move(*result)});
    if (options.on_applied) options.on_applied(applied.back());
  }
  return applied;
}

}  // namespace trainer::cluster
