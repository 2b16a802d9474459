// SPDX-License-Identifier: Apache-2.0
#include "run_tuning.hpp"

#include "commands.hpp"
#include "output.hpp"
#include "render_context.hpp"
#include "stop_signals.hpp"

#include "trainer/codec.hpp"
#include "trainer/tuning_local.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <map>

namespace trainerctl {
namespace {
namespace json = boost::json;

bool is_optimization_job(const json::value& doc) {
  const auto* o = doc.if_object();
  return o != nullptr && o->contains("kind") && o->at("kind") == trainer::kOptimizationJobKind;
}

// One row of the trials table, from the runner's trials or from results.json.
struct Row {
  std::string name, state, parameters, metric, steps, message;
};

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

Row row_of(const trainer::tuning::LocalTrial& t, const std::string& metric) {
  Row r{t.trial.name, trainer::tuning::to_string(t.trial.state), "", "-", "0", t.message};
  for (const auto& p : t.trial.parameters) {
    r.parameters += (r.parameters.empty() ? "" : " ") + p.name + "=" + p.value;
  }
  if (const auto v = t.trial.objective(metric)) r.metric = number(*v);
  r.steps = std::to_string(t.trial.metrics.size());
  return r;
}

std::string text_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string("-");
}

Row row_of(const json::object& t) {
  Row r{text_of(t, "name"), text_of(t, "state"), "", "-", "0", ""};
  if (const auto* ps = t.if_contains("parameters"); ps != nullptr && ps->is_array()) {
    for (const auto& p : ps->get_array()) {
      if (!p.is_object()) continue;
      r.parameters += (r.parameters.empty() ? "" : " ") + text_of(p.get_object(), "name") + "=" +
                      text_of(p.get_object(), "value");
    }
  }
  if (const auto* v = t.if_contains("objective"); v != nullptr && v->is_number()) {
    r.metric = number(v->to_number<double>());
  }
  if (const auto* m = t.if_contains("metrics"); m != nullptr && m->is_array()) {
    r.steps = std::to_string(m->get_array().size());
  }
  if (const auto* m = t.if_contains("message"); m != nullptr && m->is_string()) {
    r.message = std::string(m->get_string());
  }
  return r;
}

// The table; returns the number of lines printed.
int print_rows(std::FILE* out, const std::vector<Row>& rows, const std::string& metric) {
  std::size_t name_w = 5, param_w = 10;
  for (const auto& r : rows) {
    name_w = std::max(name_w, r.name.size());
    param_w = std::max(param_w, r.parameters.size());
  }
  const int nw = static_cast<int>(name_w), pw = static_cast<int>(param_w);
  std::string metric_head = metric;
  for (auto& c : metric_head) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // Columns padded, the line's end without trailing blanks.
  const auto line = [&](const std::string& a, const std::string& b, const std::string& c,
                        const std::string& d, const std::string& e, const std::string& f) {
    const char* format = "%-*s  %-12s  %-*s  %-12s  %-5s  %s";
    const int size = std::snprintf(nullptr, 0, format, nw, a.c_str(), b.c_str(), pw, c.c_str(),
                                   d.c_str(), e.c_str(), f.c_str());
    std::string text(static_cast<std::size_t>(std::max(size, 0)) + 1, '\0');
    std::snprintf(text.data(), text.size(), format, nw, a.c_str(), b.c_str(), pw, c.c_str(),
                  d.c_str(), e.c_str(), f.c_str());
    text.pop_back();
    text.erase(text.find_last_not_of(' ') + 1);
    std::fprintf(out, "%s\n", text.c_str());
  };
  line("TRIAL", "STATE", "PARAMETERS", metric_head, "STEPS", "MESSAGE");
  for (const auto& r : rows) line(r.name, r.state, r.parameters, r.metric, r.steps, r.message);
  return static_cast<int>(rows.size()) + 1;
}

// Live progress: on a terminal the table redrawn in place on stderr; otherwise one line per
// change of a trial's state (parameters, latest metric, state).
class Progress {
 public:
  explicit Progress(std::string metric)
      : metric_(std::move(metric)), tty_(isatty(STDERR_FILENO) == 1) {}
  void update(const std::vector<trainer::tuning::LocalTrial>& trials) {
    std::vector<Row> rows;
    for (const auto& t : trials) rows.push_back(row_of(t, metric_));
    if (tty_) {
      // Back to the table's first line, clear below it, draw again.
      if (lines_ > 0) std::fprintf(stderr, "\033[%dF\033[J", lines_);
      lines_ = print_rows(stderr, rows, metric_);
      std::fflush(stderr);
      return;
    }
    for (const auto& r : rows) {
      auto& seen = states_[r.name];
      if (seen == r.state) continue;
      seen = r.state;
      std::fprintf(stderr, "trial %s %s %s %s=%s%s%s\n", r.name.c_str(), r.state.c_str(),
                   r.parameters.c_str(), metric_.c_str(), r.metric.c_str(),
                   r.message.empty() ? "" : ": ", r.message.c_str());
    }
    std::fflush(stderr);
  }
  // The final table (stdout) takes the live one's place.
  void done() {
    if (tty_ && lines_ > 0) std::fprintf(stderr, "\033[%dF\033[J", lines_);
    lines_ = 0;
  }

 private:
  std::string metric_;
  bool tty_;
  int lines_ = 0;
  std::map<std::string, std::string> states_;
};

std::string default_run_dir(const std::string& name) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "trainer-runs/" + name + "-" + stamp;
}

// The conditions and the result of a status object as results.json holds it.
void print_status(const json::object& status) {
  if (const auto* c = status.if_contains("conditions"); c != nullptr && c->is_array()) {
    for (const auto& cond : c->get_array()) {
      if (!cond.is_object()) continue;
      const auto& co = cond.get_object();
      std::printf("condition %s=%s reason=%s: %s\n", text_of(co, "type").c_str(),
                  text_of(co, "status").c_str(), text_of(co, "reason").c_str(),
                  text_of(co, "message").c_str());
    }
  }
  const auto* result = status.if_contains("result");
  if (result == nullptr || !result->is_object()) {
    std::printf("best trial: none\n");
    return;
  }
  std::string params;
  if (const auto* ps = result->get_object().if_contains("parameters");
      ps != nullptr && ps->is_array()) {
    for (const auto& p : ps->get_array()) {
      if (!p.is_object()) continue;
      params += " " + text_of(p.get_object(), "name") + "=" + text_of(p.get_object(), "value");
    }
  }
  std::printf("best trial: %s%s\n", text_of(result->get_object(), "trainJobName").c_str(),
              params.c_str());
}

bool condition_true(const trainer::OptimizationJobStatus& status, std::string_view type) {
  for (const auto& c : status.conditions) {
    if (c.type == type && c.status == "True") return true;
  }
  return false;
}

}  // namespace

bool has_optimization_job(const std::vector<json::value>& docs) {
  for (const auto& d : docs) {
    if (is_optimization_job(d)) return true;
  }
  return false;
}

int run_tuning(const Parsed& args, std::vector<json::value> docs,
               const trainer::Framework* framework) {
  const json::value* job_doc = nullptr;
  trainer::tuning::LocalTuningOptions options;
  for (auto& d : docs) {
    const auto* o = d.if_object();
    if (o != nullptr && o->contains("kind") && o->at("kind") == trainer::kTrainJobKind) {
      return report_error({trainer::ErrorCode::kInvalid,
                           "an OptimizationJob runs the TrainJobs of its spec.trainJobTemplate: "
                           "give no TrainJob with it"});
    }
    if (!is_optimization_job(d)) {
      options.inputs.push_back(std::move(d));
    } else if (job_doc != nullptr) {
      return report_error({trainer::ErrorCode::kInvalid, "more than one OptimizationJob given"});
    } else {
      job_doc = &d;
    }
  }
  auto decoded = trainer::decode_optimization_job(*job_doc);
  if (!decoded) return report_error(decoded.error());
  for (const auto& w : decoded->warnings) print_warning(w);
  auto job = std::move(decoded->object);
  const std::string ns = args.value("namespace");
  if (!job.metadata.namespace_) job.metadata.namespace_ = ns.empty() ? "default" : ns;
  if (!args.value("uid").empty()) job.metadata.uid = args.value("uid");

  const std::string run_dir = args.value("run-dir");
  options.run_dir =
      run_dir.empty() ? default_run_dir(job.metadata.name.value_or("optimizationjob")) : run_dir;
  options.render.namespace_ = ns;
  options.render.on_warning = print_warning;
  options.render.builtin_runtimes = true;
  options.render.framework = framework;
  options.context = make_render_context("", std::nullopt);
  const std::string isolation = args.value("isolation");
  options.executor.isolation = isolation == "namespaces" ? trainer::local::Isolation::kNamespaces
                               : isolation == "host"     ? trainer::local::Isolation::kHost
                                                         : trainer::local::Isolation::kAuto;
  options.executor.pod_helper = args.value("pod-helper");
  options.executor.on_warning = print_warning;
  const std::string metric =
      job.spec.objectives.empty() ? std::string("objective") : job.spec.objectives[0].metric;
  Progress progress(metric);
  options.on_progress = [&progress](const std::vector<trainer::tuning::LocalTrial>& trials) {
    progress.update(trials);
  };

  // A signal stops the run: running trials are cancelled, none starts, results.json is written.
  std::atomic<bool> stop{false};
  options.stop = &stop;
  StopSignals::block();
  StopSignals signals([&stop] { stop.store(true); });

  auto result = trainer::tuning::run_local(std::move(job), std::move(options));
  progress.done();
  if (!result) return report_error(result.error());
  std::vector<Row> rows;
  for (const auto& t : result->trials) rows.push_back(row_of(t, metric));
  (void)print_rows(stdout, rows, metric);
  // The status printed as the API encodes it, as in results.json.
  trainer::OptimizationJob with_status;
  with_status.status = result->status;
  const json::value status = trainer::to_json(with_status);
  if (const auto* s = status.as_object().if_contains("status"); s != nullptr && s->is_object()) {
    print_status(s->get_object());
  }
  std::printf("results: %s\n", result->results_file.c_str());
  if (signals.signalled()) return kExitFailed;
  return condition_true(result->status, "Complete") ? kExitOk : kExitFailed;
}

bool is_tuning_run(const std::string& run_dir) {
  struct stat st {};
  return ::stat(trainer::tuning::results_path(run_dir).c_str(), &st) == 0;
}

int print_tuning_status(const std::string& run_dir, bool as_json) {
  auto results = trainer::tuning::read_results(run_dir);
  if (!results) return report_error(results.error());
  if (as_json) {
    std::printf("%s\n", json::serialize(*results).c_str());
    return kExitOk;
  }
  const auto& o = results->as_object();
  std::string metric = "objective";
  if (const auto* obj = o.if_contains("objective"); obj != nullptr && obj->is_object()) {
    metric = text_of(obj->get_object(), "metric");
  }
  const auto* finished = o.if_contains("finished");
  std::printf(
      "OptimizationJob %s/%s (%s %s)%s\n", text_of(o, "namespace").c_str(),
      text_of(o, "name").c_str(),
      o.if_contains("objective") != nullptr
          ? text_of(o.at("objective").as_object(), "direction").c_str()
          : "-",
      metric.c_str(),
      finished != nullptr && finished->is_bool() && finished->get_bool() ? "" : ", running");
  if (const auto* s = o.if_contains("status"); s != nullptr && s->is_object()) {
    print_status(s->get_object());
  }
  std::vector<Row> rows;
  if (const auto* ts = o.if_contains("trials"); ts != nullptr && ts->is_array()) {
    for (const auto& t : ts->get_array()) {
      if (t.is_object()) rows.push_back(row_of(t.get_object()));
    }
  }
  (void)print_rows(stdout, rows, metric);
  return kExitOk;
}

}  // namespace trainerctl
