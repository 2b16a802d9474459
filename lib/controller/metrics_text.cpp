// SPDX-License-Identifier: Apache-2.0
#include "controller/metrics_text.hpp"

#include <array>
#include <cstdio>

namespace trainer::controller::detail {
namespace {

void metric(std::string& out, const char* name, const char* type, const char* help,
            const std::string& samples) {
  out += std::string("# HELP ") + name + " " + help + "\n";
  out += std::string("# TYPE ") + name + " " + type + "\n";
  out += samples;
}

std::string sample(const std::string& name, double value) {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), "%.9g", value);
  return name + " " + text.data() + "\n";
}

std::string sample(const std::string& name, std::uint64_t value) {
  return name + " " + std::to_string(value) + "\n";
}

}  // namespace

std::string prometheus_text(const ControllerMetrics& m) {
  std::string out;
  metric(out, "trainer_reconcile_total", "counter",
         "Reconciles of TrainJobs, failed ones included.",
         sample("trainer_reconcile_total", m.reconciles));
  metric(out, "trainer_reconcile_errors_total", "counter", "Reconciles that returned an error.",
         sample("trainer_reconcile_errors_total", m.errors));
  metric(out, "trainer_workqueue_depth", "gauge",
         "TrainJobs and OptimizationJobs waiting in the work queue.",
         sample("trainer_workqueue_depth", m.queue_depth));
  metric(out, "trainer_reconcile_duration_seconds", "summary", "Time spent in reconciles.",
         sample("trainer_reconcile_duration_seconds_sum", m.reconcile_seconds_sum) +
             sample("trainer_reconcile_duration_seconds_count", m.reconcile_seconds_count));
  metric(out, "trainer_optimizationjob_reconcile_total", "counter",
         "Reconciles of OptimizationJobs, failed ones included.",
         sample("trainer_optimizationjob_reconcile_total", m.optimization_reconciles));
  metric(out, "trainer_optimizationjob_reconcile_errors_total", "counter",
         "OptimizationJob reconciles that returned an error.",
         sample("trainer_optimizationjob_reconcile_errors_total", m.optimization_errors));
  metric(out, "trainer_leader", "gauge",
         "1 while this instance may write: it holds the leader lease, or runs without election.",
         sample("trainer_leader", std::uint64_t{m.leader ? 1U : 0U}));
  return out;
}

}  // namespace trainer::controller::detail
