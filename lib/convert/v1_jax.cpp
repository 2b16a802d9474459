// SPDX-License-Identifier: Apache-2.0
//
// JAXJob (reference 1.2, 2.6): the Workers become one `node` replicatedJob (as in
// jax-distributed) with v1's
// COORDINATOR_* / NUM_PROCESSES / PROCESS_ID (= completion index).
#include "convert/v1_kinds.hpp"

namespace trainer::convert::detail {
namespace json = boost::json;

namespace {

Plan jax_plan(const V1Job& job, Diagnostics& /*diag*/) {
  Plan p;
  const Role* worker = job.role("Worker");
  json::array env;
  env.push_back(env_var("PYTHONUNBUFFERED", "1"));
  env.push_back(env_var("COORDINATOR_PORT", std::to_string(job.port(*worker))));
  env.push_back(env_var("COORDINATOR_ADDRESS", pod_address(job.name, "node", 0)));
  env.push_back(env_var("NUM_PROCESSES", std::to_string(job.total_replicas())));
  env.push_back(env_var("PROCESS_ID", "$(" + std::string(kIndexVar) + ")"));
  p.groups.push_back(make_group("node", worker, worker->replicas, false, std::move(env)));
  p.success_targets = {"node"};
  return p;
}

}  // namespace

const KindConverter& jax_converter() {
  static const KindConverter c{KindInfo{"JAXJob",
                                        "jaxReplicaSpecs",
                                        "jax",
                                        "jaxjob-port",
                                        6666,
                                        "Never",
                                        {"Worker"},
                                        "jaxjob-controller"},
                               jax_plan,
                               {}};
  return c;
}

}  // namespace trainer::convert::detail
