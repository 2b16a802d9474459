// SPDX-License-Identifier: Apache-2.0
//
// The CRD schema defaults of reference section 1.13. Every default fills a field only when it
// is absent, so applying them twice changes nothing.
#include "trainer/defaults.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace trainer {
namespace {

namespace json = boost::json;
using trainer::find_array;
using trainer::find_object;

template <class T, class V>
void default_to(std::optional<T>& field, V&& value) {
  if (!field) field = std::forward<V>(value);
}

// JSON null counts as absent, as it does for the API server's defaulting.
void default_key(json::object& o, std::string_view key, json::value value) {
  json::value* existing = o.if_contains(key);
  if (existing == nullptr) {
    o.emplace(key, std::move(value));
  } else if (existing->is_null()) {
    *existing = std::move(value);
  }
}

void default_secret_ref(std::optional<StorageInitializer>& init) {
  if (init && init->secret_ref) default_to(init->secret_ref->name, std::string());
}

// core/v1 ContainerPort.protocol inside the pod template of every replicated job.
void default_container_ports(json::object& pod_spec) {
  for (const char* list : {"initContainers", "containers"}) {
    json::array* containers = find_array(pod_spec, list);
    if (containers == nullptr) continue;
    for (json::value& c : *containers) {
      if (!c.is_object()) continue;
      json::array* ports = find_array(c.get_object(), "ports");
      if (ports == nullptr) continue;
      for (json::value& p : *ports) {
        if (p.is_object()) default_key(p.get_object(), "protocol", json::string("TCP"));
      }
    }
  }
}

void default_jobset_spec(json::object& spec) {
  if (json::array* jobs = find_array(spec, "replicatedJobs")) {
    for (json::value& job : *jobs) {
      if (!job.is_object()) continue;
      json::object& j = job.get_object();
      default_key(j, "groupName", json::string("default"));
      default_key(j, "replicas", json::value(std::int64_t{1}));
      // replicatedJobs[].template.spec.template.spec
      json::object* pod_spec = find_object(j, "template");
      for (const char* key : {"spec", "template", "spec"}) {
        if (pod_spec != nullptr) pod_spec = find_object(*pod_spec, key);
      }
      if (pod_spec != nullptr) default_container_ports(*pod_spec);
    }
  }
  if (json::object* failure = find_object(spec, "failurePolicy")) {
    default_key(*failure, "restartStrategy", json::string("Recreate"));
  }
}

void default_runtime_spec(TrainingRuntimeSpec& spec) {
  if (spec.ml_policy) {
    if (auto& mpi = spec.ml_policy->mpi) {
      default_to(mpi->num_proc_per_node, 1);
      default_to(mpi->mpi_implementation, "OpenMPI");
      default_to(mpi->ssh_auth_mount_path, "/root/.ssh");
      default_to(mpi->run_launcher_as_node, false);
    }
    if (auto& flux = spec.ml_policy->flux) default_to(flux->num_proc_per_node, 1);
  }
  if (spec.pod_group_policy) {
    if (auto& co = spec.pod_group_policy->coscheduling) {
      default_to(co->schedule_timeout_seconds, 60);
    }
    if (auto& volcano = spec.pod_group_policy->volcano) {
      if (auto& topology = volcano->network_topology) {
        default_key(*topology, "mode", json::string("hard"));
        default_key(*topology, "highestTierAllowed", json::value(std::int64_t{1}));
      }
    }
  }
  default_jobset_spec(spec.template_.spec);
}

// The TrainJobSpec schema defaults, shared by a TrainJob's `spec` and an OptimizationJob's
// `trainJobTemplate.spec` (the OptimizationJob CRD embeds the same schema).
void default_train_job_spec(TrainJobSpec& spec) {
  default_to(spec.suspend, false);
  default_to(spec.managed_by, kManagedByTrainer);
  default_to(spec.runtime_ref.api_group, kGroup);
  default_to(spec.runtime_ref.kind, kClusterTrainingRuntimeKind);
  if (spec.initializer) {
    default_secret_ref(spec.initializer->dataset);
    default_secret_ref(spec.initializer->model);
  }
}

void default_range(std::optional<RangeSearchSpace>& range) {
  if (range) default_to(range->type, ParameterType::kFloat);
}

}  // namespace

void apply_defaults(TrainJob& job) {
  default_train_job_spec(job.spec);
}

void apply_defaults(OptimizationJob& job) {
  OptimizationJobSpec& spec = job.spec;
  for (Objective& o : spec.objectives) default_to(o.direction, ObjectiveDirection::kMinimize);
  default_to(spec.search_algorithm, SearchAlgorithm{RandomSearch{}, std::nullopt});
  for (OptimizationParameter& p : spec.parameters) {
    default_range(p.search_space.uniform);
    default_range(p.search_space.log_uniform);
  }
  default_to(spec.num_trials, 1);
  default_to(spec.parallel_trials, 1);
  default_train_job_spec(spec.train_job_template.spec);
}

void apply_defaults(TrainingRuntime& runtime) {
  default_runtime_spec(runtime.spec);
}

void apply_defaults(ClusterTrainingRuntime& runtime) {
  default_runtime_spec(runtime.spec);
}

}  // namespace trainer
