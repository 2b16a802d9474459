// SPDX-License-Identifier: Apache-2.0
//
// TFJob (reference 1.2, 2.3, 3.6): one replicatedJob per replica type (chief, ps, worker,
// evaluator, ...), TF_CONFIG in the `tensorflow` container with one JobSet pod address per
// replica and the task index from the completion index ($(V1_REPLICA_INDEX)).
#include "api/ascii.hpp"
#include "convert/v1_kinds.hpp"
#include "trainer/json_path.hpp"

#include <boost/json/serialize.hpp>

#include <map>

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_string;

namespace {

bool counts_for_tf_config(const std::string& type) {
  return type == "Chief" || type == "Evaluator" || type == "Master" || type == "PS" ||
         type == "Worker";
}

// Go's encoding of v1's TFConfig struct: cluster (map keys sorted), task, environment.
std::string tf_config(const V1Job& job, const Role& self) {
  std::map<std::string, std::vector<std::string>> cluster;
  for (const auto& r : job.roles) {
    const std::string rjob = ascii::to_lower(r.type);
    auto& list = cluster[rjob];
    for (std::int64_t i = 0; i < r.replicas; ++i) {
      list.push_back(pod_address(job.name, rjob, i) + ":" + std::to_string(job.port(r)));
    }
  }
  std::string text = "{\"cluster\":{";
  bool first = true;
  for (const auto& [type, addrs] : cluster) {
    if (!first) text += ",";
    first = false;
    text += json::serialize(json::string(type)) + ":[";
    for (std::size_t i = 0; i < addrs.size(); ++i) {
      if (i != 0) text += ",";
      text += json::serialize(json::string(addrs[i]));
    }
    text += "]";
  }
  text += "},\"task\":{\"type\":" + json::serialize(json::string(ascii::to_lower(self.type))) +
          ",\"index\":$(" + std::string(kIndexVar) + ")},\"environment\":\"cloud\"}";
  return text;
}

// v1's sparse form for enableDynamicWorker (Go's SparseTFConfig: cluster.worker as a map with
// only the pod's own entry, cluster.ps, task; no environment). A Worker's own address and map
// key come from the completion index.
std::string sparse_tf_config(const V1Job& job, const Role& self) {
  const std::string idx = "$(" + std::string(kIndexVar) + ")";
  const std::string type = ascii::to_lower(self.type);
  const std::string own =
      job.name + "-" + type + "-0-" + idx + "." + job.name + ":" + std::to_string(job.port(self));
  std::string worker = "{}";
  std::string ps = "[]";
  if (type == "ps") {
    ps = "[" + json::serialize(json::string(own)) + "]";
  } else if (type == "worker") {
    worker = "{\"" + idx + "\":" + json::serialize(json::string(own)) + "}";
    const Role* ps_role = job.role("PS");
    if (ps_role == nullptr) {
      ps = "null";  // Go marshals the missing "ps" entry, a nil slice, as null
    } else {
      ps = "[";
      for (std::int64_t i = 0; i < ps_role->replicas; ++i) {
        if (i != 0) ps += ",";
        ps += json::serialize(json::string(pod_address(job.name, "ps", i) + ":" +
                                           std::to_string(job.port(*ps_role))));
      }
      ps += "]";
    }
  }
  return "{\"cluster\":{\"worker\":" + worker + ",\"ps\":" + ps +
         "},\"task\":{\"type\":" + json::serialize(json::string(type)) + ",\"index\":" + idx + "}}";
}

Plan tensorflow_plan(const V1Job& job, Diagnostics& diag) {
  Plan p;
  if (job.role("Chief") != nullptr && job.role("Master") != nullptr) {
    diag.refuse(
        field_forbidden("spec.tfReplicaSpecs", "must not have more than 1 Chief/Master replica"));
    return p;
  }
  std::int64_t tf_total = 0;
  for (const auto& r : job.roles) {
    if (counts_for_tf_config(r.type)) tf_total += r.replicas;
  }
  const Role* chief = job.role("Chief") != nullptr ? job.role("Chief") : job.role("Master");
  const bool has_worker = job.role("Worker") != nullptr;
  const auto* dyn = job.spec.if_contains("enableDynamicWorker");
  const bool dynamic = dyn != nullptr && dyn->is_bool() && dyn->get_bool();
  for (const auto& r : job.roles) {
    Group g;
    g.name = ascii::to_lower(r.type);
    g.role = &r;
    g.count = r.replicas;
    g.all_containers = false;
    if (tf_total != 1) {
      g.env.push_back(env_var("TF_CONFIG", dynamic ? sparse_tf_config(job, r) : tf_config(job, r)));
    }
    p.groups.push_back(std::move(g));
  }
  if (!has_worker && chief == nullptr && !p.groups.empty())
    p.groups.front().trainer_ancestor = true;

  const auto success = find_string(job.spec, "successPolicy").value_or("");
  if (success != "" && success != "AllWorkers") {
    diag.refuse(
        field_not_supported("spec.successPolicy", json::value(success), {"", "AllWorkers"}));
  }
  if (chief != nullptr) {
    p.success_targets = {ascii::to_lower(chief->type)};
  } else if (has_worker) {
    p.success_targets = {"worker"};
    if (success.empty()) {
      // v1's default: the job succeeds when Worker 0 has; the Job's own success policy says
      // the same for the worker Job, which completes the JobSet.
      for (auto& g : p.groups) {
        if (g.name != "worker") continue;
        g.job_fields["successPolicy"] =
            json::object{{"rules", json::array{json::object{{"succeededIndexes", "0"}}}}};
      }
    }
  }
  if (dynamic) {
    diag.warn("spec.enableDynamicWorker", *dyn,
              "keeps v1's sparse TF_CONFIG, but Trainer v2 has no dynamic workers: a failed "
              "Worker fails the job");
  }
  return p;
}

}  // namespace

const KindConverter& tensorflow_converter() {
  static const KindConverter c{KindInfo{"TFJob",
                                        "tfReplicaSpecs",
                                        "tensorflow",
                                        "tfjob-port",
                                        2222,
                                        "Never",
                                        {},
                                        "tfjob-controller"},
                               tensorflow_plan,
                               {"successPolicy", "enableDynamicWorker"}};
  return c;
}

}  // namespace trainer::convert::detail
