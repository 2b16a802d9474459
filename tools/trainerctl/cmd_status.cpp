// SPDX-License-Identifier: Apache-2.0
// `trainerctl status DIR`: the state of a local run (running or finished).
#include "commands.hpp"
#include "output.hpp"
#include "run_tuning.hpp"

#include "trainer/local.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <string>

namespace trainerctl {
namespace {

int run_status(const Parsed& args) {
  const std::string& dir = args.args()[0];
  const bool as_json = args.value("output") == "json";
  // A tuning run folder (trainerctl run of an OptimizationJob) has results.json.
  if (is_tuning_run(dir)) return print_tuning_status(dir, as_json, args.value("output") == "wide");
  auto status = trainer::local::read_status(dir);
  if (!status) return report_error(status.error());
  if (as_json) {
    std::printf("%s\n", boost::json::serialize(*status).c_str());
    return kExitOk;
  }
  const auto& o = status->as_object();
  const auto text = [](const boost::json::value* v) {
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string("-");
  };
  std::printf("TrainJob %s/%s\n%s\n", text(o.if_contains("namespace")).c_str(),
              text(o.if_contains("trainJob")).c_str(),
              trainer::local::summary_line(*status).c_str());
  if (auto progress = trainer::local::progress_line(*status); !progress.empty()) {
    std::printf("%s\n", progress.c_str());
  }
  if (const auto* c = o.if_contains("conditions"); c != nullptr && c->is_array()) {
    for (const auto& cond : c->get_array()) {
      const auto& co = cond.as_object();
      std::printf("condition %s=%s reason=%s: %s\n", text(co.if_contains("type")).c_str(),
                  text(co.if_contains("status")).c_str(), text(co.if_contains("reason")).c_str(),
                  text(co.if_contains("message")).c_str());
    }
  }
  std::printf("%-40s %-10s %-12s %-5s %-8s %s\n", "POD", "PHASE", "ADDRESS", "EXIT", "ATTEMPTS",
              "REASON");
  if (const auto* pods = o.if_contains("pods"); pods != nullptr && pods->is_array()) {
    for (const auto& p : pods->get_array()) {
      const auto& po = p.as_object();
      const auto* exit = po.if_contains("exitCode");
      const auto* attempts = po.if_contains("attempts");
      // The kubelet's termination reason, and for a pod that did not start, why.
      std::string reason = text(po.if_contains("reason"));
      if (const auto* m = po.if_contains("message");
          m != nullptr && m->is_string() && reason != "Error") {
        reason += ": " + std::string(m->get_string());
      }
      std::printf("%-40s %-10s %-12s %-5s %-8s %s\n", text(po.if_contains("name")).c_str(),
                  text(po.if_contains("phase")).c_str(), text(po.if_contains("address")).c_str(),
                  exit != nullptr ? boost::json::serialize(*exit).c_str() : "-",
                  attempts != nullptr ? boost::json::serialize(*attempts).c_str() : "0",
                  reason.c_str());
    }
  }
  return kExitOk;
}

}  // namespace

const Command& status_command() {
  static const Command command{
      "status",
      "the state of a local run folder",
      "The phase, TrainJob conditions and pods of a local run (`trainerctl run`); of a tuning run\n"
      "(an OptimizationJob), its conditions, best trial and trials from results.json.",
      {{"RUN_DIR", true}},
      {{"output",
        'o',
        "json|wide",
        "json: the run folder's state.json (results.json of a tuning run) as it is; wide: a "
        "tuning run's trial table with every value whole, not fitted to the terminal",
        {"json", "wide"}}},
      run_status};
  return command;
}

}  // namespace trainerctl
