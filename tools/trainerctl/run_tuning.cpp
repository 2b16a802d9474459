// SPDX-License-Identifier: Apache-2.0
#include "run_tuning.hpp"

#include "commands.hpp"
#include "output.hpp"
#include "render_context.hpp"
#include "stop_signals.hpp"
#include "table_printer.hpp"

#include "trainer/codec.hpp"
#include "trainer/tuning_local.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <limits>
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

// A metric value: six significant digits, as kubectl shows quantities compactly; `wide`, the
// shortest text that reads back as the same double (results.json has every digit either way).
std::string number(double v, bool wide) {
  char text[32];
  if (wide) {
    const auto end = std::to_chars(text, text + sizeof text, v).ptr;
    return std::string(text, end);
  }
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// A parameter value as the table shows it: a fractional decimal number (a Float parameter's
// 17 digits) as `number`; integers, choices and anything else as written.
std::string value_text(const std::string& value, bool wide) {
  if (wide || value.find_first_of(".eE") == std::string::npos) return value;
  double v = 0;
  const auto* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  if (ec != std::errc{} || ptr != end) return value;
  std::string text = number(v, false);
  return text.size() < value.size() ? text : value;
}

void add_parameter(std::string& out, const std::string& name, const std::string& value, bool wide) {
  out += (out.empty() ? "" : " ") + name + "=" + value_text(value, wide);
}

Row row_of(const trainer::tuning::LocalTrial& t, const std::string& metric, bool wide) {
  Row r{t.trial.name, trainer::tuning::to_string(t.trial.state), "", "-", "0", t.message};
  for (const auto& p : t.trial.parameters) add_parameter(r.parameters, p.name, p.value, wide);
  if (const auto v = t.trial.objective(metric)) r.metric = number(*v, wide);
  r.steps = std::to_string(t.trial.metrics.size());
  return r;
}

std::string text_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string("-");
}

Row row_of(const json::object& t, bool wide) {
  Row r{text_of(t, "name"), text_of(t, "state"), "", "-", "0", ""};
  if (const auto* ps = t.if_contains("parameters"); ps != nullptr && ps->is_array()) {
    for (const auto& p : ps->get_array()) {
      if (!p.is_object()) continue;
      add_parameter(r.parameters, text_of(p.get_object(), "name"), text_of(p.get_object(), "value"),
                    wide);
    }
  }
  if (const auto* v = t.if_contains("objective"); v != nullptr && v->is_number()) {
    r.metric = number(v->to_number<double>(), wide);
  }
  if (const auto* m = t.if_contains("metrics"); m != nullptr && m->is_array()) {
    r.steps = std::to_string(m->get_array().size());
  }
  if (const auto* m = t.if_contains("message"); m != nullptr && m->is_string()) {
    r.message = std::string(m->get_string());
  }
  return r;
}

// The table, kubectl's layout; unless `wide`, fitted to `width` columns: an empty MESSAGE column
// is dropped, the message is cut,
// then STEPS dropped, then parameters, message and trial names cut (names in the middle, so that
// the trial number stays), then the message dropped. `skipped` earlier trials are left out (the
// live table's rows beyond the terminal's height) with a line saying so. Returns the number of
// lines printed.
int print_rows(std::FILE* out, const std::vector<Row>& rows, const std::string& metric, bool wide,
               std::size_t width, std::size_t skipped = 0) {
  std::string metric_head = metric;
  for (auto& c : metric_head) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<TextRow> lines{{"TRIAL", "STATE", "PARAMETERS", metric_head, "STEPS", "MESSAGE"}};
  for (std::size_t i = skipped; i < rows.size(); ++i) {
    const auto& r = rows[i];
    // A message is one line (kubectl's rule for a cell), so the table's line count holds.
    std::string message = r.message.substr(0, r.message.find_first_of("\r\n\f"));
    if (message.size() < r.message.size()) message += "...";
    lines.push_back({r.name, r.state, r.parameters, r.metric, r.steps, message});
  }
  enum Column : std::size_t { kTrial, kState, kParameters, kMetric, kSteps, kMessage };
  std::vector<FitStep> steps{{kMessage, 24}, {kSteps, 0},        {kParameters, 24},
                             {kMessage, 12}, {kTrial, 16, true}, {kParameters, 12},
                             {kMetric, 12},  {kMessage, 0}};
  // A MESSAGE column without a message is the first to go.
  if (std::all_of(lines.begin() + 1, lines.end(),
                  [](const TextRow& l) { return l[kMessage].empty(); })) {
    steps.insert(steps.begin(), {kMessage, 0});
  }
  // Wide: every value whole, however long the lines get.
  const std::string text = tab_write_fit(
      std::move(lines), wide ? std::numeric_limits<std::size_t>::max() : width, steps);
  int count = 0;
  if (skipped > 0) {
    std::fprintf(out, "(%zu earlier trials not shown)\n", skipped);
    ++count;
  }
  std::fputs(text.c_str(), out);
  return count + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// Live progress: on a terminal the table redrawn in place on stderr; otherwise one line per
// change of a trial's state (parameters, latest metric, state).
class Progress {
 public:
  Progress(std::string metric, bool wide)
      : metric_(std::move(metric)), wide_(wide), tty_(isatty(STDERR_FILENO) == 1) {}
  void update(const std::vector<trainer::tuning::LocalTrial>& trials) {
    std::vector<Row> rows;
    for (const auto& t : trials) rows.push_back(row_of(t, metric_, wide_));
    if (tty_) {
      // Back to the table's first line, clear below it, draw again. The cursor cannot go back
      // above the screen's top: the table keeps to the terminal's height (its latest trials)
      // and, unless wide, its width (a wrapped line would count twice).
      if (lines_ > 0) std::fprintf(stderr, "\033[%dF\033[J", lines_);
      const std::size_t height = terminal_height(STDERR_FILENO);
      // The header, the "not shown" line and a line for the cursor stay free.
      const std::size_t room = height > 3 ? height - 3 : 1;
      const std::size_t skipped = rows.size() > room ? rows.size() - room : 0;
      lines_ = print_rows(stderr, rows, metric_, wide_, terminal_width(STDERR_FILENO), skipped);
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
  bool wide_;
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
  // The objective's value after the parameters, in the table's column order.
  std::string value;
  if (const auto* ms = result->get_object().if_contains("metrics");
      ms != nullptr && ms->is_array()) {
    for (const auto& m : ms->get_array()) {
      if (!m.is_object()) continue;
      value += " " + text_of(m.get_object(), "metric") + "=" + text_of(m.get_object(), "value");
    }
  }
  std::printf("best trial: %s%s%s\n", text_of(result->get_object(), "trainJobName").c_str(),
              params.c_str(), value.c_str());
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
               const trainer::Framework* framework, trainer::RenderContext context,
               trainer::local::ExecutorOptions executor) {
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
  const bool strict = args.enabled("strict");
  if (strict && !decoded->warnings.empty()) {
    return report_error(trainer::strict_decoding_error(*job_doc, decoded->warnings));
  }
  WarningPrinter warnings;
  for (const auto& w : decoded->warnings) warnings.print(w);
  auto job = std::move(decoded->object);
  const std::string ns = args.value("namespace");
  if (!job.metadata.namespace_) job.metadata.namespace_ = ns.empty() ? "default" : ns;
  if (!args.value("uid").empty()) job.metadata.uid = args.value("uid");

  const std::string run_dir = args.value("run-dir");
  options.run_dir =
      run_dir.empty() ? default_run_dir(job.metadata.name.value_or("optimizationjob")) : run_dir;
  options.render.namespace_ = ns;
  options.render.on_warning = [&warnings](std::string_view w) { warnings.print(w); };
  options.render.strict_fields = strict;
  options.render.builtin_runtimes = true;
  options.render.framework = framework;
  options.context = std::move(context);  // each trial gets a UID of its own
  options.executor = std::move(executor);
  options.executor.on_warning = print_warning;
  const std::string metric =
      job.spec.objectives.empty() ? std::string("objective") : job.spec.objectives[0].metric;
  const bool wide = args.value("output") == "wide";
  Progress progress(metric, wide);
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
  for (const auto& t : result->trials) rows.push_back(row_of(t, metric, wide));
  (void)print_rows(stdout, rows, metric, wide, terminal_width(STDOUT_FILENO));
  // The status printed as the API encodes it, as in results.json.
  trainer::OptimizationJob with_status;
  with_status.status = result->status;
  const json::value status = trainer::to_json(with_status);
  if (const auto* s = status.as_object().if_contains("status"); s != nullptr && s->is_object()) {
    print_status(s->get_object());
  }
  std::printf("results: %s\n", result->results_file.c_str());
  std::fflush(stdout);
  warnings.print_ignored_fields();
  if (signals.signalled()) return kExitFailed;
  return condition_true(result->status, "Complete") ? kExitOk : kExitFailed;
}

bool is_tuning_run(const std::string& run_dir) {
  struct stat st {};
  return ::stat(trainer::tuning::results_path(run_dir).c_str(), &st) == 0;
}

int print_tuning_status(const std::string& run_dir, bool as_json, bool wide) {
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
      if (t.is_object()) rows.push_back(row_of(t.get_object(), wide));
    }
  }
  (void)print_rows(stdout, rows, metric, wide, terminal_width(STDOUT_FILENO));
  return kExitOk;
}

}  // namespace trainerctl
