// SPDX-License-Identifier: Apache-2.0
#include "framework/pod_count.hpp"

#include "trainer/json_path.hpp"
#include "trainer/plugin_support.hpp"
#include "trainer/validation.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace trainer::detail {
namespace {

constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

// Both factors are >= 0.
std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  return b != 0 && a > kSaturated / b ? kSaturated : a * b;
}

}  // namespace

std::int64_t count_pods(const Info& info, const TrainJob& job) {
  // A plain pointer, not a copied optional: g++ 12 then sees no maybe-uninitialized read.
  const std::int32_t* num_nodes =
      job.spec.trainer && job.spec.trainer->num_nodes ? &*job.spec.trainer->num_nodes : nullptr;
  const auto& ml_policy = info.runtime_policy.ml_policy;
  const bool mpi = ml_policy && ml_policy->mpi;
  const bool launcher_as_node = mpi && ml_policy->mpi->run_launcher_as_node.value_or(false);
  const PodSet* trainer_nodes = info.find_pod_set_by_ancestor(kAncestorTrainer);
  const auto* jobs = find_array(info.template_spec.jobset_spec, "replicatedJobs");

  std::int64_t total = 0;
  const auto& pod_sets = info.template_spec.pod_sets;
  for (std::size_t i = 0; i < pod_sets.size(); ++i) {
    const PodSet& ps = pod_sets[i];
    std::int64_t pods = ps.count.value_or(1);
    if (num_nodes != nullptr && mpi && ps.name == kNodeName) {
      pods = launcher_as_node ? std::max(*num_nodes - 1, 1) : *num_nodes;
    } else if (num_nodes != nullptr && &ps == trainer_nodes) {
      pods = *num_nodes;
    }
    std::int64_t replicas = 1;
    if (jobs != nullptr && i < jobs->size() && (*jobs)[i].is_object()) {
      replicas = find_int((*jobs)[i].get_object(), "replicas").value_or(1);
    }
    total = saturating_add(total, saturating_mul(std::max<std::int64_t>(replicas, 0),
                                                 std::max<std::int64_t>(pods, 0)));
  }
  return total;
}

std::optional<FieldError> check_pod_count(const Info& info, const TrainJob& job) {
  const std::int64_t pods = count_pods(info, job);
  if (pods <= kMaxPodsPerTrainJob) return std::nullopt;
  const auto& trainer = job.spec.trainer;
  const boost::json::value value = trainer && trainer->num_nodes
                                       ? boost::json::value(*trainer->num_nodes)
                                       : boost::json::value(nullptr);
  return field_invalid("spec.trainer.numNodes", value,
                       "the TrainJob would have " + std::to_string(pods) +
                           " pods across its replicated jobs, more than " +
                           std::to_string(kMaxPodsPerTrainJob) +
                           ", the most pods a TrainJob may have");
}

}  // namespace trainer::detail
