// SPDX-License-Identifier: Apache-2.0
#include "convert/v1_run_policy.hpp"

#include "trainer/json_path.hpp"

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

namespace {

constexpr const char* kRunPolicy = "spec.runPolicy";

void map_clean_pod_policy(const json::value& value, const std::string& path, Diagnostics& diag) {
  // v1's default `None` keeps finished pods, as a JobSet does: only the others are lost.
  if (value.is_string() && value.get_string() == "None") return;
  diag.warn(path, value,
            "has no Trainer v2 equivalent; pods are kept until the TrainJob is deleted");
}

bool uses_volcano(const V1Job& job) {
  for (const auto& r : job.roles) {
    const auto* spec = find_object(r.pod_template, "spec");
    if (spec != nullptr && find_string(*spec, "schedulerName") == std::string("volcano")) {
      return true;
    }
  }
  return false;
}

void map_scheduling_policy(const V1Job& job, const json::object& sp, RunPolicyMapping& out,
                           Diagnostics& diag) {
  const std::string base = std::string(kRunPolicy) + ".schedulingPolicy";
  const bool volcano = sp.contains("queue") || sp.contains("priorityClass") || uses_volcano(job);
  if (volcano) {
    out.pod_group_policy["volcano"] = json::object();
    if (auto q = find_string(sp, "queue"); q && !q->empty()) {
      out.template_annotations["scheduling.volcano.sh/queue-name"] = *q;
    }
  } else {
    json::object cos;
    if (auto t = find_int(sp, "scheduleTimeoutSeconds")) cos["scheduleTimeoutSeconds"] = *t;
    out.pod_group_policy["coscheduling"] = std::move(cos);
  }
  for (const auto& [key, value] : sp) {
    const std::string path = base + "." + std::string(key);
    if (key == "queue") continue;
    if (key == "scheduleTimeoutSeconds") {
      if (volcano) {
        diag.warn(path, value,
                  "applies to the scheduler-plugins gang scheduler only; the Volcano PodGroup "
                  "has no timeout");
      }
      continue;
    }
    if (key == "minAvailable") {
      if (value.is_int64() && value.get_int64() == job.total_replicas()) continue;
      diag.warn(path, value,
                "has no Trainer v2 equivalent; the PodGroup's minMember is every pod (" +
                    std::to_string(job.total_replicas()) + ")");
      continue;
    }
    if (key == "minResources") {
      diag.warn(path, value,
                "has no Trainer v2 equivalent; the PodGroup's minResources is the sum of the "
                "pods' requests");
      continue;
    }
    if (key == "priorityClass") {
      diag.warn(path, value,
                "has no Trainer v2 equivalent; the Volcano PodGroup takes the priority class of "
                "the pods' priorityClassName");
      continue;
    }
    diag.warn(path, value, "is not a known v1 field; it is dropped");
  }
}

}  // namespace

RunPolicyMapping map_run_policy(const V1Job& job, Diagnostics& diag) {
  RunPolicyMapping out;
  if (job.info->kind == "MPIJob") {
    if (const auto* v = job.spec.if_contains("cleanPodPolicy")) {
      map_clean_pod_policy(*v, "spec.cleanPodPolicy", diag);
    }
  }
  const auto* rp_value = job.spec.if_contains("runPolicy");
  if (rp_value == nullptr || rp_value->is_null()) return out;
  const auto* rp = rp_value->if_object();
  if (rp == nullptr) {
    diag.refuse(field_type_invalid(kRunPolicy, *rp_value, "must be an object"));
    return out;
  }
  for (const auto& [key, value] : *rp) {
    const std::string path = std::string(kRunPolicy) + "." + std::string(key);
    if (key == "cleanPodPolicy") {
      map_clean_pod_policy(value, path, diag);
    } else if (key == "ttlSecondsAfterFinished") {
      out.jobset_spec["ttlSecondsAfterFinished"] = value;
    } else if (key == "activeDeadlineSeconds") {
      out.train_job_spec["activeDeadlineSeconds"] = value;
    } else if (key == "backoffLimit") {
      if (auto n = find_int(*rp, "backoffLimit")) out.backoff_limit = *n;
    } else if (key == "suspend") {
      out.train_job_spec["suspend"] = value;
    } else if (key == "managedBy") {
      const auto by = value.is_string() ? std::string(value.get_string()) : std::string();
      if (by == "kueue.x-k8s.io/multikueue") {
        out.train_job_spec["managedBy"] = by;
      } else if (by != "kubeflow.org/training-operator") {
        diag.refuse(field_not_supported(
            path, value, {"kubeflow.org/training-operator", "kueue.x-k8s.io/multikueue"}));
      }
    } else if (key == "schedulingPolicy" && value.is_object()) {
      map_scheduling_policy(job, value.get_object(), out, diag);
    } else if (key == "schedulingPolicy" && !value.is_null()) {
      diag.refuse(field_type_invalid(path, value, "must be an object"));
    } else {
      diag.warn(path, value, "is not a known v1 field; it is dropped");
    }
  }
  return out;
}

void map_restart_policy(const Role& role, std::string_view container,
                        const std::optional<std::int64_t>& backoff_limit, json::object& job_spec,
                        json::object& pod_spec, Diagnostics& diag) {
  if (const auto* own = pod_spec.if_contains("restartPolicy");
      own != nullptr && own->is_string() && !own->get_string().empty()) {
    // v1 overwrote it too, with a warning event (SettedPodTemplateRestartPolicy).
    diag.warn(role.path + ".template.spec.restartPolicy", *own,
              "is replaced by the replica's restartPolicy " + role.restart_policy +
                  ", as Training Operator v1 did");
  }
  const std::string& policy = role.restart_policy;
  if (policy == "Never") {
    pod_spec["restartPolicy"] = "Never";
    job_spec["backoffLimit"] = 0;
    return;
  }
  if (backoff_limit) job_spec["backoffLimit"] = *backoff_limit;
  if (policy == "OnFailure" || policy == "Always") {
    // A Job's pods may not use Always; OnFailure restarts the container in place as v1's
    // recreated pod did.
    pod_spec["restartPolicy"] = "OnFailure";
    return;
  }
  // ExitCode: exit codes 1-127 of the default container are permanent, the others retried.
  pod_spec["restartPolicy"] = "Never";
  json::array codes;
  for (int c = 1; c <= 127; ++c) codes.push_back(c);
  json::object on_exit{
      {"containerName", container}, {"operator", "In"}, {"values", std::move(codes)}};
  job_spec["podFailurePolicy"] = json::object{
      {"rules",
       json::array{json::object{{"action", "FailJob"}, {"onExitCodes", std::move(on_exit)}}}}};
}

}  // namespace trainer::convert::detail
