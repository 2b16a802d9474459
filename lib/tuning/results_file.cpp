// SPDX-License-Identifier: Apache-2.0
#include "tuning/results_file.hpp"

#include "local/run_folder.hpp"
#include "trainer/codec.hpp"

#include <boost/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace trainer::tuning {
namespace json = boost::json;

namespace detail {

json::value results_document(const OptimizationJob& job, const std::vector<LocalTrial>& trials,
                             const OptimizationJobStatus& status, bool finished) {
  const std::string& metric =
      job.spec.objectives.empty() ? std::string() : job.spec.objectives[0].metric;
  const bool maximize = !job.spec.objectives.empty() &&
                        job.spec.objectives[0].direction == ObjectiveDirection::kMaximize;
  json::array out_trials;
  for (const auto& t : trials) {
    json::array params;
    for (const auto& p : t.trial.parameters)
      params.push_back({{"name", p.name}, {"value", p.value}});
    json::array metrics;
    for (const auto& m : t.trial.metrics) {
      metrics.push_back({{"name", m.name}, {"value", m.value}, {"step", m.step}});
    }
    json::object o{{"name", t.trial.name},
                   {"runDir", t.run_dir},
                   {"parameters", std::move(params)},
                   {"state", to_string(t.trial.state)}};
    if (!t.reason.empty()) o["reason"] = t.reason;
    if (!t.message.empty()) o["message"] = t.message;
    o["metrics"] = std::move(metrics);
    const auto objective = t.trial.objective(metric);
    o["objective"] = objective ? json::value(*objective) : json::value(nullptr);
    out_trials.push_back(std::move(o));
  }
  // The status as the API encodes it: one codec for the cluster and the file.
  OptimizationJob with_status = job;
  with_status.status = status;
  json::value encoded = to_json(with_status);
  json::value status_json = json::object{};
  if (const auto* s = encoded.as_object().if_contains("status")) status_json = *s;
  return json::object{
      {"apiVersion", job.api_version},
      {"kind", job.kind},
      {"name", job.metadata.name.value_or("")},
      {"namespace", job.metadata.namespace_.value_or("default")},
      {"objective", {{"metric", metric}, {"direction", maximize ? "Maximize" : "Minimize"}}},
      {"numTrials", job.spec.num_trials.value_or(1)},
      {"parallelTrials", job.spec.parallel_trials.value_or(1)},
      {"finished", finished},
      {"trials", std::move(out_trials)},
      {"status", std::move(status_json)}};
}

Result<void> write_results(const std::string& run_dir, const json::value& doc) {
  auto root = local::detail::open_root(run_dir);
  if (!root) return tl::make_unexpected(root.error());
  const std::string text = encode_json(doc, true) + "\n";
  auto written =
      local::detail::write_file_below(root->get(), "results.json.tmp", text, 0644, run_dir);
  if (!written) return written;
  if (renameat(root->get(), "results.json.tmp", root->get(), "results.json") != 0) {
    return tl::make_unexpected(
        Error(ErrorCode::kIo, "rename " + run_dir + "/results.json: " + std::strerror(errno)));
  }
  return {};
}

}  // namespace detail

std::string results_path(const std::string& run_dir) {
  return run_dir + "/results.json";
}

Result<json::value> read_results(const std::string& run_dir) {
  const std::string path = results_path(run_dir);
  std::ifstream in(path);
  if (!in) {
    return tl::make_unexpected(
        Error(ErrorCode::kNotFound, "no tuning run in " + run_dir + " (" + path + " is missing)"));
  }
  std::stringstream text;
  text << in.rdbuf();
  json::error_code ec;
  json::value doc = json::parse(text.str(), ec);
  if (ec || !doc.is_object() || !doc.as_object().contains("trials")) {
    return tl::make_unexpected(Error(ErrorCode::kParse, path + ": not a tuning results file"));
  }
  return doc;
}

}  // namespace trainer::tuning
