// SPDX-License-Identifier: Apache-2.0
//
// XGBoostJob (reference 1.2, 2.5): Master and Worker with the same template become one `node`
// replicatedJob (RANK = completion index, as v1's Master 0, Worker i -> i+1); different
// templates become `master` and `worker`, each Worker its own Job, so that JobSet's global Job
// index is its v1 rank.
#include "convert/v1_kinds.hpp"
#include "trainer/json_path.hpp"

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_int;

namespace {

Plan xgboost_plan(const V1Job& job, Diagnostics& diag) {
  Plan p;
  const Role* master = job.role("Master");
  const Role* worker = job.role("Worker");
  if (master == nullptr) {
    diag.refuse(field_required("spec.xgbReplicaSpecs[Master]", "must be present"));
    return p;
  }
  const auto* raw = raw_replica_spec(job, *master);
  if ((raw != nullptr ? find_int(*raw, "replicas") : std::nullopt) !=
      std::optional<std::int64_t>(1)) {
    diag.refuse(field_forbidden(master->path + ".replicas",
                                "must be 1 (the v1 webhook requires it set explicitly)"));
    return p;
  }
  const bool merged = worker != nullptr && same_template(*master, *worker) &&
                      master->restart_policy == worker->restart_policy;
  const std::int64_t total = job.total_replicas();
  const std::string master_rjob = merged ? "node" : "master";

  // global_rank: the Worker's RANK is its Job's global index (the Master's Job is index 0).
  auto env_for = [&](bool global_rank) {
    json::array env;
    env.push_back(env_var("MASTER_PORT", std::to_string(job.port(*master))));
    env.push_back(env_var("MASTER_ADDR", pod_address(job.name, master_rjob, 0)));
    env.push_back(env_var("WORLD_SIZE", std::to_string(total)));
    env.push_back(global_rank ? env_field("RANK", kGlobalIndexField)
                              : env_var("RANK", std::string(kIndexRef)));
    env.push_back(env_var("PYTHONUNBUFFERED", "1"));
    if (total > 1 && worker != nullptr) {
      env.push_back(env_var("WORKER_PORT", std::to_string(job.port(*worker))));
      std::string addrs;
      for (std::int64_t i = 0; i < total - 1; ++i) {
        if (!addrs.empty()) addrs += ",";
        addrs += merged ? pod_address(job.name, "node", master->replicas + i)
                        : pod_address(job.name, "worker", i, 0);
      }
      env.push_back(env_var("WORKER_ADDRS", addrs));
    }
    return env;
  };

  if (merged) {
    p.groups.push_back(make_group("node", master, total, false, env_for(false)));
    p.success_targets = {"node"};
    return p;
  }
  p.groups.push_back(make_group("master", master, master->replicas, false, env_for(false)));
  p.success_targets = {"master"};
  if (worker != nullptr) {
    // The webhook made the Master one replica: Worker i's Job is global index i + 1.
    Group g = make_group("worker", worker, worker->replicas, false, env_for(true));
    g.pod_per_job = true;
    p.groups.push_back(std::move(g));
  }
  return p;
}

}  // namespace

const KindConverter& xgboost_converter() {
  static const KindConverter c{KindInfo{"XGBoostJob",
                                        "xgbReplicaSpecs",
                                        "xgboost",
                                        "xgboostjob-port",
                                        9999,
                                        "Never",
                                        {"Master", "Worker"},
                                        "xgboostjob-controller"},
                               xgboost_plan,
                               {}};
  return c;
}

}  // namespace trainer::convert::detail
