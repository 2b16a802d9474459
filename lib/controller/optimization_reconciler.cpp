// SPDX-License-Identifier: Apache-2.0
#include "controller/optimization_reconciler.hpp"

#include "trainer/codec.hpp"
#include "trainer/controller.hpp"
#include "trainer/defaults.hpp"
#include "trainer/tuning.hpp"
#include "trainer/tuning_local.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdlib>

namespace trainer::controller {
namespace json = boost::json;
namespace {

constexpr const char* kJobLabel = "trainer.kubeflow.org/optimizationjob-name";
constexpr const char* kParamAnnotationPrefix = "trainer.kubeflow.org/opt-param-";

// The trial number of `<job>-trial-<n>` (creation order); npos when the name is not one.
std::size_t trial_index(const std::string& job, const std::string& name) {
  const std::string prefix = job + "-trial-";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return std::string::npos;
  char* end = nullptr;
  const unsigned long n = std::strtoul(name.c_str() + prefix.size(), &end, 10);
  return *end == '\0' ? static_cast<std::size_t>(n) : std::string::npos;
}

bool condition_true(const TrainJob& t, std::string_view type) {
  if (!t.status) return false;
  return std::any_of(t.status->conditions.begin(), t.status->conditions.end(),
                     [&](const Condition& c) { return c.type == type && c.status == "True"; });
}

// What the tuning pieces know of one trial TrainJob.
tuning::Trial trial_of(const OptimizationJob& job, const TrainJob& t, const std::string& metric) {
  tuning::Trial trial;
  trial.name = t.metadata.name.value_or("");
  for (const auto& p : job.spec.parameters) {
    const auto it = t.metadata.annotations.find(kParamAnnotationPrefix + p.name);
    trial.parameters.push_back({p.name, it == t.metadata.annotations.end() ? "" : it->second});
  }
  trial.state = condition_true(t, "Complete") ? tuning::TrialState::kSucceeded
                : condition_true(t, "Failed") ? tuning::TrialState::kFailed
                                              : tuning::TrialState::kRunning;
  trial.metrics = tuning::trainer_status_metrics(t, metric, 0);
  return trial;
}

}  // namespace

Result<OptimizationReconcileResult> reconcile_optimization_job(kube::Client& client,
                                                               std::string_view ns,
                                                               std::string_view name,
                                                               const std::string& now,
                                                               const kube::CancelToken& cancel) {
  kube::CallOptions call;
  call.cancel = cancel;
  auto jobs = client.resource_for(kApiVersion, kOptimizationJobKind, call);
  if (!jobs) return tl::make_unexpected(jobs.error());
  auto trainjobs = client.resource_for(kApiVersion, kTrainJobKind, call);
  if (!trainjobs) return tl::make_unexpected(trainjobs.error());
  auto object = client.get(*jobs, ns, name, call);
  if (!object) return tl::make_unexpected(object.error());
  auto decoded = decode_optimization_job(json::value(*object));
  if (!decoded) return tl::make_unexpected(decoded.error());
  OptimizationJob job = std::move(decoded->object);
  apply_defaults(job);
  const std::string job_name(name);
  const std::string metric = job.spec.objectives.empty() ? "" : job.spec.objectives[0].metric;

  // The trials it owns, in creation order.
  kube::ListOptions list;
  list.cancel = cancel;
  list.label_selector = std::string(kJobLabel) + "=" + job_name;
  auto owned = client.list(*trainjobs, ns, list);
  if (!owned) return tl::make_unexpected(owned.error());
  std::vector<std::pair<std::size_t, tuning::Trial>> indexed;
  for (const auto& item : owned->at("items").as_array()) {
    auto t = decode_train_job(item);
    if (!t) return tl::make_unexpected(t.error());
    const auto index = trial_index(job_name, t->object.metadata.name.value_or(""));
    if (index == std::string::npos) continue;
    indexed.emplace_back(index, trial_of(job, t->object, metric));
  }
  std::sort(indexed.begin(), indexed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<tuning::Trial> trials;
  for (auto& [index, trial] : indexed) trials.push_back(std::move(trial));

  OptimizationReconcileResult result;
  const auto is_active = [](const tuning::Trial& t) {
    return t.state == tuning::TrialState::kPending || t.state == tuning::TrialState::kRunning;
  };
  const auto num_trials = static_cast<std::size_t>(job.spec.num_trials.value_or(1));
  const auto parallel = static_cast<std::size_t>(job.spec.parallel_trials.value_or(1));
  std::size_t active =
      static_cast<std::size_t>(std::count_if(trials.begin(), trials.end(), is_active));
  bool exhausted = false;  // the sampler has fewer suggestions left than asked for
  if (trials.size() < num_trials && active < parallel) {
    auto sampler = tuning::make_sampler(job);
    if (!sampler) return tl::make_unexpected(sampler.error());
    const std::size_t count = std::min(parallel - active, num_trials - trials.size());
    auto suggestions = (*sampler)->suggest(trials, count);
    if (!suggestions) return tl::make_unexpected(suggestions.error());
    exhausted = suggestions->size() < count;
    kube::ApplyOptions apply;
    apply.cancel = cancel;
    apply.field_manager = std::string(kFieldManager);
    // The next free number: a trial deleted by hand is not made again under its name.
    std::size_t next = std::max(trials.size(), indexed.empty() ? 0 : indexed.back().first + 1);
    for (auto& assignment : *suggestions) {
      const std::size_t index = next++;
      auto trial_job = tuning::make_trial(job, index, assignment);
      if (!trial_job) return tl::make_unexpected(trial_job.error());
      auto applied = client.apply(*trainjobs, ns, to_json(*trial_job).as_object(), apply);
      if (!applied) return tl::make_unexpected(applied.error());
      tuning::Trial trial;
      trial.name = trial_job->metadata.name.value_or("");
      trial.parameters = std::move(assignment);
      trial.state = tuning::TrialState::kPending;
      result.created_names.push_back(trial.name);
      trials.push_back(std::move(trial));
      ++result.created;
      ++active;
    }
  }

  const OptimizationJobStatus previous = job.status.value_or(OptimizationJobStatus{});
  // A sampler that runs out before numTrials (a small grid) ends the job with the trials it
  // made, as the local runner does and a Katib experiment does.
  OptimizationJob judged = job;
  if (exhausted && active == 0) judged.spec.num_trials = static_cast<std::int32_t>(trials.size());
  result.status = tuning::derive_status(judged, trials, previous, now);
  // Upstream's CRD has no `result.metrics` (libtrainer's addition, model.hpp): the API server
  // would refuse it under strict field validation, or prune it and differ at every pass.
  if (result.status.result) result.status.result->metrics.clear();
  result.trials = trials.size();
  result.active = active;
  // The status as the API encodes it, written when it differs from what the cluster holds.
  OptimizationJob before = job;
  before.status = previous;
  OptimizationJob after = job;
  after.status = result.status;
  const auto status_of = [](const OptimizationJob& j) {
    const json::value encoded = to_json(j);
    const auto* s = encoded.as_object().if_contains("status");
    return s != nullptr ? *s : json::value(json::object{});
  };
  const json::value old_status = status_of(before);
  const json::value new_status = status_of(after);
  if (old_status != new_status) {
    kube::WriteOptions write;
    write.cancel = cancel;
    write.field_manager = std::string(kFieldManager);
    write.subresource = "status";
    const std::string body = json::serialize(json::object{{"status", new_status}});
    auto patched = client.patch(*jobs, ns, name, kube::PatchType::kMerge, body, write);
    if (!patched) return tl::make_unexpected(patched.error());
    result.status_written = true;
  }
  return result;
}

}  // namespace trainer::controller
