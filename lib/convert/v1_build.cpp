// SPDX-License-Identifier: Apache-2.0
#include "convert/v1_build.hpp"

#include "api/ascii.hpp"
#include "convert/v1_run_policy.hpp"
#include "trainer/json_path.hpp"

#include <algorithm>
#include <set>

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::ensure_array;
using trainer::ensure_object;
using trainer::find_array;
using trainer::find_object;
using trainer::find_string;

namespace {

constexpr const char* kApiVersion = "trainer.kubeflow.org/v1alpha1";

// The v1 contract into one container: the index first (so later values may say
// $(V1_REPLICA_INDEX)), the container's own env, then the contract as v1 appended it.
void inject(json::object& container, const Group& group) {
  json::array env;
  env.push_back(env_field(kIndexVar, group.pod_per_job ? kJobIndexField : kCompletionIndexField));
  std::set<std::string> names{std::string(kIndexVar)};
  if (const auto* own = find_array(container, "env")) {
    for (const auto& e : *own) {
      if (e.is_object()) names.insert(find_string(e.get_object(), "name").value_or(""));
      env.push_back(e);
    }
  }
  for (const auto& e : group.env) {
    if (names.count(find_string(e.get_object(), "name").value_or("")) != 0) continue;
    env.push_back(e);
  }
  container["env"] = std::move(env);
}

json::object pod_template(const V1Job& job, const Group& group,
                          const std::optional<std::int64_t>& backoff_limit, json::object& job_spec,
                          Diagnostics& diag) {
  json::object tmpl = group.role->pod_template;
  auto& labels = ensure_object(tmpl, {"metadata", "labels"});
  labels["training.kubeflow.org/job-name"] = job.name;
  labels["training.kubeflow.org/operator-name"] = job.info->operator_name;
  if (group.name == ascii::to_lower(group.role->type)) {
    labels["training.kubeflow.org/replica-type"] = group.name;
  }
  auto& spec = ensure_object(tmpl, {"spec"});
  map_restart_policy(*group.role, group.rename_to_node ? "node" : job.info->container,
                     backoff_limit, job_spec, spec, diag);
  auto& containers = ensure_array(spec, "containers");
  for (std::size_t i = 0; i < containers.size(); ++i) {
    if (!containers[i].is_object()) continue;
    auto& c = containers[i].get_object();
    if (group.rename_to_node == i) {
      c["name"] = "node";
      if (!group.default_command.empty() && !c.contains("command")) {
        c["command"] = group.default_command;
      }
    }
    if (!group.all_containers &&
        find_string(c, "name") != std::optional<std::string>(job.info->container)) {
      continue;
    }
    if (group.env.empty()) continue;
    inject(c, group);
  }
  return tmpl;
}

}  // namespace

std::string runtime_name(const V1Job& job) {
  return job.name + "-v1";
}

void warn_unknown_spec_fields(const V1Job& job, const std::vector<std::string_view>& handled,
                              Diagnostics& diag) {
  for (const auto& [key, value] : job.spec) {
    if (key == job.info->specs_field || key == "runPolicy") continue;
    if (std::find(handled.begin(), handled.end(), key) != handled.end()) continue;
    diag.warn("spec." + std::string(key), value, "is not a known v1 field; it is dropped");
  }
}

std::vector<json::value> build_objects(const V1Job& job, const Plan& plan, RunPolicyMapping rp,
                                       Diagnostics& diag) {
  json::array rjobs;
  std::int64_t num_nodes = 1;
  bool has_ancestor = false;
  for (const auto& g : plan.groups) {
    json::object job_spec;
    const std::int64_t pods_per_job = g.pod_per_job ? 1 : g.count;
    job_spec["parallelism"] = pods_per_job;
    job_spec["completions"] = pods_per_job;
    job_spec["completionMode"] = "Indexed";
    for (const auto& [k, v] : g.job_fields) job_spec[k] = v;
    json::object tmpl = pod_template(job, g, rp.backoff_limit, job_spec, diag);
    job_spec["template"] = std::move(tmpl);
    json::object rjob_template;
    if (g.trainer_ancestor) {
      has_ancestor = true;
      num_nodes = g.count;
      rjob_template["metadata"] = json::object{
          {"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step", "trainer"}}}};
    }
    rjob_template["spec"] = std::move(job_spec);
    rjobs.push_back(json::object{
        {"name", g.name}, {"replicas", g.pod_per_job ? g.count : 1}, {"template", rjob_template}});
  }

  json::object jobset_spec = std::move(rp.jobset_spec);
  if (!plan.success_targets.empty()) {
    json::array targets;
    for (const auto& t : plan.success_targets) targets.push_back(json::string(t));
    jobset_spec["successPolicy"] =
        json::object{{"operator", "All"}, {"targetReplicatedJobs", std::move(targets)}};
  }
  jobset_spec["replicatedJobs"] = std::move(rjobs);

  json::object template_;
  if (!rp.template_annotations.empty()) {
    template_["metadata"] = json::object{{"annotations", std::move(rp.template_annotations)}};
  }
  template_["spec"] = std::move(jobset_spec);

  json::object runtime_spec;
  if (has_ancestor) {
    json::object ml_policy = plan.ml_policy;
    ml_policy["numNodes"] = num_nodes;
    runtime_spec["mlPolicy"] = std::move(ml_policy);
  }
  if (!rp.pod_group_policy.empty()) runtime_spec["podGroupPolicy"] = std::move(rp.pod_group_policy);
  runtime_spec["template"] = std::move(template_);

  json::object runtime{
      {"apiVersion", kApiVersion},
      {"kind", "TrainingRuntime"},
      {"metadata", json::object{{"name", runtime_name(job)},
                                {"namespace", job.ns},
                                {"labels", json::object{{"training.kubeflow.org/converted-from",
                                                         ascii::to_lower(job.info->kind)}}}}},
      {"spec", std::move(runtime_spec)}};

  json::object meta{{"name", job.name}, {"namespace", job.ns}};
  for (const char* key : {"labels", "annotations"}) {
    if (const auto* v = find_object(job.metadata, key)) meta[key] = *v;
  }
  json::object tj_spec{{"runtimeRef", json::object{{"apiGroup", "trainer.kubeflow.org"},
                                                   {"kind", "TrainingRuntime"},
                                                   {"name", runtime_name(job)}}}};
  for (auto& [k, v] : rp.train_job_spec) tj_spec[k] = v;
  json::object train_job{{"apiVersion", kApiVersion},
                         {"kind", "TrainJob"},
                         {"metadata", std::move(meta)},
                         {"spec", std::move(tj_spec)}};
  return {json::value(std::move(runtime)), json::value(std::move(train_job))};
}

}  // namespace trainer::convert::detail
