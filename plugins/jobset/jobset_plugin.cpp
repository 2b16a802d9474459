// SPDX-License-Identifier: Apache-2.0
//
// PreBuildSync (reference 4.1.2) and the factory.
#include "jobset_plugin.hpp"
#include "jobset_internal.hpp"

#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"

#include <string>

namespace trainer {
namespace plugins::jobset {
namespace {

namespace json = boost::json;

// Pod DNS names `<job>-<rjob>-<replica>-<pod>.<subdomain>`, replica-major.
void sync_pod_network(Info& info, const TrainJob& job) {
  const auto& spec = info.template_spec.jobset_spec;
  const std::string job_name = job.metadata.name.value_or("");
  std::string subdomain = job_name;
  if (const auto* network = find_object(spec, {"network"})) {
    if (auto s = find_string(*network, "subdomain")) subdomain = *s;
  }
  const auto* jobs = find_array(spec, "replicatedJobs");
  if (jobs == nullptr) return;
  auto& pod_sets = info.template_spec.pod_sets;
  for (std::size_t i = 0; i < jobs->size() && i < pod_sets.size(); ++i) {
    if (!(*jobs)[i].is_object()) continue;
    const auto& rjob = (*jobs)[i].get_object();
    const std::string rjob_name = find_string(rjob, "name").value_or("");
    const std::int64_t replicas = find_int(rjob, "replicas").value_or(1);
    // Named on demand: only an output that lists every pod pays for a string per pod.
    pod_sets[i].endpoints = PodEndpoints::jobset(job_name, rjob_name, subdomain, replicas,
                                                 pod_sets[i].count.value_or(1));
  }
}

// parallelism = completions = count, for every PodSet with a count.
void sync_parallel_count(Info& info) {
  auto* jobs = find_array(info.template_spec.jobset_spec, "replicatedJobs");
  if (jobs == nullptr) return;
  for (const auto& ps : info.template_spec.pod_sets) {
    if (!ps.count) continue;
    for (auto& rjob : *jobs) {
      if (!rjob.is_object() || string_view_at(rjob.get_object(), "name") != ps.name) {
        continue;
      }
      auto& job_spec = ensure_object(rjob.get_object(), {"template", "spec"});
      job_spec["parallelism"] = *ps.count;
      job_spec["completions"] = *ps.count;
      break;
    }
  }
}

}  // namespace

Result<void> JobSetPlugin::pre_build_sync(Info& info, const TrainJob& job,
                                          const PluginContext& /*ctx*/) {
  sync_pod_network(info, job);
  sync_parallel_count(info);
  return {};
}

}  // namespace plugins::jobset

std::unique_ptr<Plugin> make_jobset_plugin() {
  return std::make_unique<plugins::jobset::JobSetPlugin>();
}

}  // namespace trainer
