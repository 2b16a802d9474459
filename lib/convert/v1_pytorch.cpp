// SPDX-License-Identifier: Apache-2.0
//
// PyTorchJob (reference 1.2, 1.3, 2.2): Master and Worker with the same template (or only one
// of them) become one `node` replicatedJob (node rank = completion index, as v1's Master 0,
// Worker i -> i+1); different templates become `master` and `worker`, each Worker its own Job,
// so that JobSet's global Job index is its v1 rank (env expansion cannot add 1).
#include "convert/v1_kinds.hpp"
#include "trainer/json_path.hpp"
#include "trainer/validation.hpp"

#include <charconv>

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_array;
using trainer::find_int;
using trainer::find_object;
using trainer::find_string;

namespace {

void check_webhook(const V1Job& job, const json::object* elastic, Diagnostics& diag) {
  const Role* master = job.role("Master");
  if (master != nullptr) {
    const auto* raw = raw_replica_spec(job, *master);
    const auto n = raw != nullptr ? find_int(*raw, "replicas") : std::nullopt;
    if (n != std::optional<std::int64_t>(1)) {
      diag.refuse(field_forbidden(master->path + ".replicas",
                                  "must be 1 (the v1 webhook requires it set explicitly)"));
    }
  }
  if (const Role* worker = job.role("Worker")) {
    const auto* raw = raw_replica_spec(job, *worker);
    if (auto n = raw != nullptr ? find_int(*raw, "replicas") : std::nullopt; n && *n < 1) {
      diag.refuse(field_forbidden(worker->path + ".replicas", "must be at least 1"));
    }
  } else if (elastic != nullptr) {
    diag.refuse(field_required("spec.pytorchReplicaSpecs[Worker]",
                               "must be configured if elastic policy is used"));
  }
  if (elastic != nullptr && elastic->contains("nProcPerNode") &&
      job.spec.contains("nprocPerNode")) {
    diag.refuse(field_forbidden("spec.elasticPolicy.nProcPerNode",
                                "must not be used with spec.nprocPerNode"));
  }
}

// The rendezvous variables v1 set with an elastic policy (reference 2.2 step 4).
void elastic_env(const V1Job& job, const json::object& ep, const std::string& worker0,
                 std::int64_t worker_port, json::array& env, Diagnostics& diag) {
  const std::int64_t workers = job.role("Worker")->replicas;
  auto min = find_int(ep, "minReplicas");
  auto max = find_int(ep, "maxReplicas");
  if (!min && max) min = max;
  if (!max && min) max = min;
  if (!min) min = max = workers;
  const std::string host = find_string(ep, "rdzvHost").value_or(worker0);
  const auto port = find_int(ep, "rdzvPort").value_or(worker_port);
  env.push_back(env_var("PET_RDZV_ENDPOINT", host + ":" + std::to_string(port)));
  env.push_back(env_var("PET_RDZV_BACKEND", find_string(ep, "rdzvBackend").value_or("c10d")));
  env.push_back(env_var("PET_NNODES", std::to_string(*min) + ":" + std::to_string(*max)));
  if (auto r = find_int(ep, "maxRestarts"))
    env.push_back(env_var("PET_MAX_RESTARTS", std::to_string(*r)));
  if (auto n = find_int(ep, "nProcPerNode"))
    env.push_back(env_var("PET_NPROC_PER_NODE", std::to_string(*n)));
  if (auto id = find_string(ep, "rdzvId")) env.push_back(env_var("PET_RDZV_ID", *id));
  if (const auto* conf = find_array(ep, "rdzvConf"); conf != nullptr && !conf->empty()) {
    std::string text;
    for (const auto& kv : *conf) {
      if (!kv.is_object()) continue;
      if (!text.empty()) text += ",";
      text += find_string(kv.get_object(), "key").value_or("") + "=" +
              find_string(kv.get_object(), "value").value_or("");
    }
    env.push_back(env_var("PET_RDZV_CONF", text));
  }
  if (const auto* s = ep.if_contains("standalone"); s != nullptr && s->is_bool() && s->get_bool()) {
    env.push_back(env_var("PET_STANDALONE", ""));
  }
  if (*min != workers || *max != workers) {
    diag.warn("spec.elasticPolicy", json::value(ep),
              "elastic scaling has no Trainer v2 equivalent; the job runs a fixed " +
                  std::to_string(workers) + " Worker pods (the PET_* rendezvous env is kept)");
  }
  if (const auto* m = ep.if_contains("metrics")) {
    diag.warn("spec.elasticPolicy.metrics", *m,
              "has no Trainer v2 equivalent; no HorizontalPodAutoscaler is created");
  }
}

Plan pytorch_plan(const V1Job& job, Diagnostics& diag) {
  const auto* elastic = find_object(job.spec, "elasticPolicy");
  if (const auto* e = job.spec.if_contains("elasticPolicy");
      e != nullptr && !e->is_null() && elastic == nullptr) {
    diag.refuse(field_type_invalid("spec.elasticPolicy", *e, "must be an object"));
  }
  check_webhook(job, elastic, diag);
  Plan p;
  if (diag.failed()) return p;
  const Role* master = job.role("Master");
  const Role* worker = job.role("Worker");
  const bool merged = master != nullptr && worker != nullptr && same_template(*master, *worker) &&
                      master->restart_policy == worker->restart_policy;

  std::string nproc = find_string(job.spec, "nprocPerNode").value_or("");
  if (nproc.empty() && (elastic == nullptr || !elastic->contains("nProcPerNode"))) nproc = "auto";
  // v1 multiplied an integer nprocPerNode into WORLD_SIZE (else 1: `auto`, `cpu`, `gpu`).
  std::int64_t nproc_n = 1;
  if (!nproc.empty()) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(nproc.data(), nproc.data() + nproc.size(), n);
    if (end == nproc.data() + nproc.size() && ec != std::errc::invalid_argument) {
      if (ec == std::errc::result_out_of_range || n < 1 || n > kMaxPodsPerTrainJob) {
        diag.refuse(field_invalid("spec.nprocPerNode", json::value(nproc),
                                  "must be auto, cpu, gpu or an integer from 1 to " +
                                      std::to_string(kMaxPodsPerTrainJob)));
        return p;
      }
      nproc_n = n;
    }
  }
  if (elastic != nullptr) {
    if (const auto* n = elastic->if_contains("nProcPerNode"); n != nullptr && !n->is_null()) {
      if (!read_count(*n, "spec.elasticPolicy.nProcPerNode", 1, diag)) return p;
    }
  }
  const std::int64_t total = job.total_replicas();
  // One replicatedJob `node` unless Master and Worker templates differ.
  const bool single = merged || master == nullptr || worker == nullptr;
  const std::string master_rjob = single ? "node" : "master";
  const std::string worker_rjob = single ? "node" : "worker";
  const std::int64_t worker_offset = master != nullptr ? master->replicas : 0;
  const std::string worker0 = pod_address(job.name, worker_rjob, merged ? worker_offset : 0);

  // Made once, not per group: its warnings are the job's, whatever number of groups share it.
  json::array elastic_vars;
  if (elastic != nullptr) {
    elastic_env(job, *elastic, worker0, worker != nullptr ? job.port(*worker) : 0, elastic_vars,
                diag);
  }

  // global_rank: the Worker's RANK is its Job's global index (the Master's Job is index 0).
  auto env_for = [&](bool global_rank) {
    json::array env;
    env.push_back(env_var("PYTHONUNBUFFERED", "1"));
    if (master != nullptr) {
      const auto port = std::to_string(job.port(*master));
      const auto addr = pod_address(job.name, master_rjob, 0);
      env.push_back(env_var("MASTER_PORT", port));
      env.push_back(env_var("PET_MASTER_PORT", port));
      env.push_back(env_var("MASTER_ADDR", addr));
      env.push_back(env_var("PET_MASTER_ADDR", addr));
      env.push_back(env_var("WORLD_SIZE", std::to_string(total * nproc_n)));
      if (global_rank) {
        env.push_back(env_field("RANK", kGlobalIndexField));
        env.push_back(env_var("PET_NODE_RANK", "$(RANK)"));
      } else {
        env.push_back(env_var("RANK", std::string(kIndexRef)));
        env.push_back(env_var("PET_NODE_RANK", std::string(kIndexRef)));
      }
    }
    if (!nproc.empty()) env.push_back(env_var("PET_NPROC_PER_NODE", nproc));
    if (elastic == nullptr) {
      env.push_back(env_var("PET_NNODES", std::to_string(total)));
    } else {
      for (const auto& e : elastic_vars) env.push_back(e);
    }
    return env;
  };

  if (single) {
    const Role* role = master != nullptr ? master : worker;
    p.groups.push_back(make_group("node", role, total, false, env_for(false)));
    p.success_targets = {"node"};
    return p;
  }
  // The webhook made the Master one replica, so the Master's Job is global index 0 and
  // Worker i's Job is i + 1, v1's rank.
  p.groups.push_back(make_group("master", master, master->replicas, false, env_for(false)));
  p.success_targets = {"master"};
  Group g = make_group("worker", worker, worker->replicas, false, env_for(true));
  g.pod_per_job = true;
  p.groups.push_back(std::move(g));
  return p;
}

}  // namespace

const KindConverter& pytorch_converter() {
  static const KindConverter c{KindInfo{"PyTorchJob",
                                        "pytorchReplicaSpecs",
                                        "pytorch",
                                        "pytorchjob-port",
                                        23456,
                                        "OnFailure",
                                        {"Master", "Worker"},
                                        "pytorchjob-controller"},
                               pytorch_plan,
                               {"elasticPolicy", "nprocPerNode"}};
  return c;
}

}  // namespace trainer::convert::detail
