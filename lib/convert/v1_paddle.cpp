// SPDX-License-Identifier: Apache-2.0
//
// PaddleJob (reference 1.2, 2.7): `master` and `worker` replicatedJobs (PS mode) or `worker`
// alone (collective mode), with v1's PADDLE_* variables. PADDLE_MASTER is the first Master's
// (or Worker's) pod address for every pod, index 0 included, where v1 gave index 0 its own
// pod IP: the address resolves to that IP.
#include "api/ascii.hpp"
#include "convert/v1_kinds.hpp"
#include "trainer/json_path.hpp"

namespace trainer::convert::detail {
namespace json = boost::json;
using trainer::find_object;

namespace {

Plan paddle_plan(const V1Job& job, Diagnostics& diag) {
  Plan p;
  const Role* master = job.role("Master");
  const Role* worker = job.role("Worker");
  const Role* first = master != nullptr ? master : worker;
  if (first == nullptr) {
    diag.refuse(field_required("spec.paddleReplicaSpecs", "must have a Master or a Worker"));
    return p;
  }
  const std::string first_rjob = ascii::to_lower(first->type);
  const std::string endpoint =
      pod_address(job.name, first_rjob, 0) + ":" + std::to_string(job.port(*first));
  for (const auto& r : job.roles) {
    json::array env;
    env.push_back(env_var("PYTHONUNBUFFERED", "1"));
    env.push_back(env_var("PADDLE_JOB_ID", job.name));
    env.push_back(env_var("PADDLE_NNODES", std::to_string(job.total_replicas())));
    env.push_back(env_var("PADDLE_MASTER", endpoint));
    if (master != nullptr) {
      env.push_back(env_var(r.type == "Master" ? "PADDLE_SERVER_NUM" : "PADDLE_TRAINER_NUM", "1"));
    }
    p.groups.push_back(make_group(ascii::to_lower(r.type), &r, r.replicas, false, std::move(env)));
  }
  p.success_targets = {worker != nullptr ? "worker" : "master"};
  if (const auto* ep = find_object(job.spec, "elasticPolicy")) {
    diag.warn("spec.elasticPolicy", json::value(*ep),
              "has no Trainer v2 equivalent; the job runs a fixed number of pods");
  }
  return p;
}

}  // namespace

const KindConverter& paddle_converter() {
  static const KindConverter c{KindInfo{"PaddleJob",
                                        "paddleReplicaSpecs",
                                        "paddle",
                                        "master",
                                        36543,
                                        "OnFailure",
                                        {"Master", "Worker"},
                                        "paddlejob-controller"},
                               paddle_plan,
                               {"elasticPolicy"}};
  return c;
}

}  // namespace trainer::convert::detail
