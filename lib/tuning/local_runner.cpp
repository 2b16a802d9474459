// SPDX-License-Identifier: Apache-2.0
// run_local: the trials of an OptimizationJob on this machine, `parallelTrials` at a time, each
// rendered like `trainerctl run` renders a TrainJob and run by its own local::Executor.
//
// One thread (the caller's) decides everything: it starts trials, notices finished ones, applies
// median stopping and writes results.json. The executors' supervisor threads only append the
// metric values they read from pod output and wake it; every wait is a bounded tick.
#include "trainer/tuning_local.hpp"

#include "api/status_carrier.hpp"
#include "local/run_folder.hpp"
#include "trainer/codec.hpp"
#include "trainer/defaults.hpp"
#include "trainer/json_path.hpp"
#include "trainer/validation.hpp"
#include "tuning/results_file.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>
#include <algorithm>
#include <condition_variable>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace trainer::tuning {
namespace json = boost::json;
namespace {

// The loop's longest sleep: a finished trial or a stop request is noticed within it even when
// no callback wakes the loop.
constexpr std::chrono::milliseconds kTick{200};

struct Slot {
  LocalTrial t;
  std::unique_ptr<local::Executor> exec;
  bool early_stopped = false;   // cancelled by median stopping
  bool cancelled = false;       // cancelled by a stop request or the timeout
  bool median_checked = false;  // median stopping judged it (once, at its start_step-th report)
  json::value trainer_status;   // the latest progress post of its TrainJob
};

// The points a progress post (`status.trainerStatus` of a local run) holds for `metric`, read as
// the controller reads a trial TrainJob's status; each post is one report.
std::vector<MetricPoint> progress_points(const json::value& trainer_status, std::string_view metric,
                                         std::int64_t after) {
  auto job = trainer::detail::decode_train_job_status(
      "trial", json::object{{"trainerStatus", trainer_status}});
  if (!job) return {};
  return trainer_status_metrics(job->object, metric, after);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

constexpr const char* kStartFailed = "StartFailed";

using trainer::string_at;

// Why a finished run failed, from the executor's status: the reason (`StartFailed` when a pod
// could not be started, else the TrainJob's Failed condition's) and the condition's text.
std::pair<std::string, std::string> failure_of(const json::value& status) {
  const auto& s = status.as_object();
  std::string reason, message = "failed";
  if (const auto* conditions = s.if_contains("conditions"); conditions && conditions->is_array()) {
    for (const auto& c : conditions->get_array()) {
      const auto& o = c.as_object();
      if (string_at(o, "type") != "Failed" || string_at(o, "status") != "True") continue;
      reason = string_at(o, "reason");
      const std::string text = string_at(o, "message");
      if (!reason.empty() || !text.empty()) {
        message = reason + (reason.empty() || text.empty() ? "" : ": ") + text;
      }
      break;
    }
  }
  if (const auto* pods = s.if_contains("pods"); pods != nullptr && pods->is_array()) {
    for (const auto& p : pods->get_array()) {
      if (p.is_object() && string_at(p.get_object(), "reason") == "StartError") {
        reason = kStartFailed;
      }
    }
  }
  return {reason.empty() ? std::string("Failed") : reason, message};
}

class Runner {
 public:
  Runner(OptimizationJob job, LocalTuningOptions options, std::optional<MedianStop> rule,
         std::unique_ptr<Sampler> sampler)
      : job_(std::move(job)),
        options_(std::move(options)),
        rule_(rule),
        sampler_(std::move(sampler)),
        metric_(job_.spec.objectives.at(0).metric),
        num_trials_(static_cast<std::size_t>(std::max(1, job_.spec.num_trials.value_or(1)))),
        parallel_(static_cast<std::size_t>(std::max(1, job_.spec.parallel_trials.value_or(1)))) {}

  // The executors go first: their supervisor threads may still call back into this object
  // (its mutexes) while they stop.
  ~Runner() {
    for (auto& s : slots_) s->exec.reset();
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  Result<LocalTuningResult> run() {
    const auto started = std::chrono::steady_clock::now();
    bool& stopping = stopping_;
    bool& exhausted = exhausted_;
    for (;;) {
      reap_finished();
      apply_median_stop();
      const bool stop_asked = options_.stop != nullptr && options_.stop->load();
      const bool timed_out =
          options_.timeout && std::chrono::steady_clock::now() - started >= *options_.timeout;
      if (!stopping && (stop_asked || timed_out)) {
        stopping = true;
        cancel_all(timed_out && !stop_asked ? "timeout" : "cancelled");
      }
      if (!stopping && !exhausted && !halted()) {
        auto more = start_trials(exhausted);
        if (!more) {
          cancel_all("cancelled");
          drain();
          return tl::make_unexpected(more.error());
        }
      }
      if (changed()) {
        if (auto w = publish(false); !w) {
          cancel_all("cancelled");
          drain();
          return tl::make_unexpected(w.error());
        }
      }
      if (running() == 0 && (stopping || exhausted || halted() || slots_.size() >= num_trials_)) {
        break;
      }
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, kTick, [this] { return changed_; });
    }
    auto w = publish(true);
    if (!w) return tl::make_unexpected(w.error());
    LocalTuningResult result;
    result.trials = snapshot();
    result.status = status_;
    result.results_file = results_path(options_.run_dir);
    return result;
  }

 private:
  [[nodiscard]] bool changed() {
    std::lock_guard<std::mutex> lock(mu_);
    return changed_;
  }

  bool halted() {
    std::lock_guard<std::mutex> lock(mu_);
    return halted_;
  }

  std::size_t running() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<std::size_t>(std::count_if(
        slots_.begin(), slots_.end(), [](const auto& s) { return s->exec != nullptr; }));
  }

  std::vector<LocalTrial> snapshot() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<LocalTrial> out;
    for (const auto& s : slots_) out.push_back(s->t);
    return out;
  }

  std::vector<Trial> history_locked() const {
    std::vector<Trial> out;
    for (const auto& s : slots_) out.push_back(s->t.trial);
    return out;
  }

  // The trials whose executor has finished (every pod process gone) get their final state.
  void reap_finished() {
    std::vector<std::unique_ptr<local::Executor>> done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& s : slots_) {
        if (s->exec == nullptr) continue;
        const auto phase = s->exec->wait(std::chrono::milliseconds(0));
        if (phase == local::Phase::kPending || phase == local::Phase::kRunning) continue;
        auto& trial = s->t.trial;
        if (phase == local::Phase::kComplete && !s->cancelled) {
          // A stop that reached the trial after it had completed (at its last report) does not
          // undo the completion its run folder records.
          trial.state = TrialState::kSucceeded;
          if (s->early_stopped) s->t.reason = s->t.message = "";
        } else if (s->early_stopped) {
          trial.state = TrialState::kEarlyStopped;
        } else {
          trial.state = TrialState::kFailed;
          if (s->t.message.empty() && phase == local::Phase::kSuspended) {
            s->t.reason = "Suspended";
            s->t.message = "suspended";
          } else if (s->t.message.empty()) {
            std::tie(s->t.reason, s->t.message) = failure_of(s->exec->status());
          }
        }
        count_start_failure_locked(s->t);
        done.push_back(std::move(s->exec));
        changed_ = true;
      }
    }
    // Destroyed outside the lock: a supervisor thread may be in a callback that takes it.
    done.clear();
  }

  // Katib's collector judges a trial once, at its start_step-th report, against the trials
  // completed by then: a trial that passes runs to its end, whatever completes later (judged
  // again at a later report, it would be stopped at the end of its run). Its steps are counted
  // as the STEPS column counts them: the reports so far, the first being step 1.
  void apply_median_stop() {
    if (!rule_) return;
    const auto start_step = static_cast<std::size_t>(rule_->start_step);
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : slots_) {
      if (s->exec == nullptr || s->median_checked || s->cancelled) continue;
      if (s->t.trial.metrics.size() < start_step) continue;
      s->median_checked = true;
      if (!should_stop_early(*rule_, job_, s->t.trial, history_locked())) continue;
      s->early_stopped = true;
      s->t.reason = "MedianStopped";
      s->t.message = "median stopping: " + metric_ + " worse than the completed trials' at step " +
                     std::to_string(s->t.trial.metrics.size());
      s->exec->cancel();  // returns at once; reap_finished sees the end
      changed_ = true;
    }
  }

  void cancel_all(const std::string& why) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : slots_) {
      if (s->exec == nullptr || s->early_stopped) continue;
      s->cancelled = true;
      if (s->t.message.empty()) {
        s->t.reason = why == "timeout" ? "Timeout" : "Cancelled";
        s->t.message = why;
      }
      s->exec->cancel();
    }
    changed_ = true;
  }

  // A trial that got its final state: trials that could not start, in a row, stop the run from
  // starting more (kMaxConsecutiveStartFailures); any other outcome breaks the row.
  void count_start_failure_locked(const LocalTrial& t) {
    if (t.reason != kStartFailed) {
      start_failures_ = 0;
      return;
    }
    if (++start_failures_ < kMaxConsecutiveStartFailures || halted_) return;
    halted_ = true;
    halt_message_ = std::to_string(start_failures_) +
                    " trials in a row could not start (the last: " + t.trial.name + ": " +
                    t.message + ")";
  }

  // Waits (bounded by the executors' own grace periods) until every cancelled trial is gone.
  void drain() {
    for (int i = 0; i < 600 && running() > 0; ++i) {
      reap_finished();
      if (running() == 0) break;
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, kTick);
    }
  }

  // Starts as many trials as free slots and remaining trials allow. A render error of the first
  // trial is the run's error (the inputs are wrong for every trial); of a later one, that trial
  // fails. A trial that cannot start fails (StartFailed), the first one too: the cause may be
  // the machine (out of processes) rather than the inputs, and results.json then says so.
  Result<void> start_trials(bool& exhausted) {
    const std::size_t active = running();
    if (active >= parallel_ || slots_.size() >= num_trials_) return {};
    const std::size_t count = std::min(parallel_ - active, num_trials_ - slots_.size());
    std::vector<Trial> history;
    {
      std::lock_guard<std::mutex> lock(mu_);
      history = history_locked();
    }
    auto suggestions = sampler_->suggest(history, count);
    if (!suggestions) return tl::make_unexpected(suggestions.error());
    if (suggestions->size() < count) exhausted = true;
    for (auto& assignment : *suggestions) {
      if (halted()) break;
      if (auto started = start_trial(std::move(assignment)); !started) return started;
    }
    return {};
  }

  Result<void> start_trial(Assignment assignment) {
    const std::size_t index = slots_.size();
    auto trial_job = make_trial(job_, index, assignment);
    if (!trial_job) return tl::make_unexpected(trial_job.error());
    auto slot = std::make_unique<Slot>();
    slot->t.trial.name = trial_job->metadata.name.value_or("");
    slot->t.trial.parameters = std::move(assignment);
    slot->t.trial.state = TrialState::kRunning;
    slot->t.run_dir = options_.run_dir + "/" + slot->t.trial.name;

    const json::value trial_doc = to_json(*trial_job);
    std::vector<json::value> docs = options_.inputs;
    docs.push_back(trial_doc);
    RenderContext ctx = options_.context;
    ctx.train_job_uid = random_uuid();
    RenderDocumentsOptions render = options_.render;
    // Admission says the same for every trial: its warnings once.
    if (index > 0) render.on_warning = nullptr;
    auto rendered = render_documents(std::move(docs), ctx, render);
    std::string reason, failure;
    std::unique_ptr<local::Executor> exec;
    if (!rendered) {
      if (index == 0) return tl::make_unexpected(rendered.error());
      reason = "RenderFailed";
      failure = "render: " + rendered.error().message;
    } else if (!rendered->skipped_reason.empty()) {
      reason = "RenderFailed";
      failure = rendered->skipped_reason;
    } else {
      // As `trainerctl run`: the TrainJob carries what the JobSet does not (name, deadline).
      auto objects = std::move(rendered->objects);
      objects.push_back(trial_doc);
      auto exec_options = executor_options(*slot);
      auto started = local::Executor::start(objects, std::move(exec_options));
      if (!started) {
        reason = kStartFailed;
        failure = "start: " + started.error().message;
      } else {
        exec = std::move(*started);
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (exec == nullptr) {
      slot->t.trial.state = TrialState::kFailed;
      slot->t.reason = reason;
      slot->t.message = failure;
      count_start_failure_locked(slot->t);
    }
    slot->exec = std::move(exec);
    slots_.push_back(std::move(slot));
    changed_ = true;
    return {};
  }

  local::ExecutorOptions executor_options(Slot& slot) {
    local::ExecutorOptions o = options_.executor;
    o.run_dir = slot.t.run_dir;
    Slot* s = &slot;  // owned by slots_ for the runner's lifetime, which outlives the executor
    o.on_log = [this, s](const local::LogLine& line) {
      const auto values = parse_metrics_line(line.text, {metric_});
      if (values.empty()) return;
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [name, value] : values) {
        auto& points = s->t.trial.metrics;
        points.push_back({name, value, static_cast<std::int64_t>(points.size())});
      }
      changed_ = true;
      cv_.notify_one();
    };
    // Only what results.json shows wakes the loop: a new progress post (its metrics) and the
    // end of the run (the trial's final state); the run's other changes (pods starting,
    // getting ready) would only rewrite the same document.
    o.on_status = [this, s](const json::value& status) {
      const auto& doc = status.as_object();
      const auto* posted = doc.if_contains("trainerStatus");
      const auto* finished = doc.if_contains("finished");
      const bool ended = finished != nullptr && finished->is_bool() && finished->get_bool();
      std::lock_guard<std::mutex> lock(mu_);
      bool news = ended;
      if (posted != nullptr && *posted != s->trainer_status) {
        s->trainer_status = *posted;
        auto& points = s->t.trial.metrics;
        for (auto& point :
             progress_points(*posted, metric_, static_cast<std::int64_t>(points.size()))) {
          points.push_back(std::move(point));
        }
        news = true;
      }
      if (!news) return;
      changed_ = true;
      cv_.notify_one();
    };
    if (options_.executor.on_warning) {
      // Every trial's executor says the same (the host fallback): each text once.
      o.on_warning = [this](std::string_view text) {
        std::lock_guard<std::mutex> lock(warn_mu_);
        if (warned_.insert(std::string(text)).second) options_.executor.on_warning(text);
      };
    }
    return o;
  }

  // The status after the trials so far, the progress callback and results.json.
  Result<void> publish(bool finished) {
    std::vector<LocalTrial> trials;
    {
      std::lock_guard<std::mutex> lock(mu_);
      changed_ = false;
      for (const auto& s : slots_) trials.push_back(s->t);
    }
    std::vector<Trial> plain;
    for (const auto& t : trials) plain.push_back(t.trial);
    const std::string now = options_.context.now ? options_.context.now() : utc_now();
    // A sampler with fewer suggestions than numTrials (a small grid) ends the job with the
    // trials it has, as Katib's experiment ends when its suggestions are exhausted; so does a
    // stopped run (its cancelled trials are Failed).
    if ((exhausted_ || stopping_ || halted()) && plain.size() < num_trials_ &&
        std::none_of(plain.begin(), plain.end(), [](const Trial& t) {
          return t.state == TrialState::kPending || t.state == TrialState::kRunning;
        })) {
      OptimizationJob ended = job_;
      ended.spec.num_trials = static_cast<std::int32_t>(plain.size());
      status_ = derive_status(ended, plain, status_, now);
    } else {
      status_ = derive_status(job_, plain, status_, now);
    }
    if (halted() && std::none_of(plain.begin(), plain.end(), [](const Trial& t) {
          return t.state == TrialState::kPending || t.state == TrialState::kRunning;
        })) {
      std::string message;
      {
        std::lock_guard<std::mutex> lock(mu_);
        message = halt_message_;
      }
      message += "; stopped after " + std::to_string(plain.size()) + " of " +
                 std::to_string(num_trials_) + " trials";
      status_ = failed_status(job_, status_, kTrialsFailedToStartReason, message, now);
    }
    if (options_.on_progress) options_.on_progress(trials);
    return detail::write_results(options_.run_dir,
                                 detail::results_document(job_, trials, status_, finished));
  }

  OptimizationJob job_;
  LocalTuningOptions options_;
  std::optional<MedianStop> rule_;
  std::unique_ptr<Sampler> sampler_;
  std::string metric_;
  std::size_t num_trials_;
  std::size_t parallel_;
  OptimizationJobStatus status_;
  bool exhausted_ = false;  // the sampler has no further suggestion
  bool stopping_ = false;   // a stop request or the timeout: no further trial starts

  std::mutex mu_;  // guards slots_' trials and executors, changed_ and the start failures
  std::condition_variable cv_;
  bool changed_ = true;
  std::size_t start_failures_ = 0;  // trials in a row that could not start
  bool halted_ = false;             // kMaxConsecutiveStartFailures reached: none starts
  std::string halt_message_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex warn_mu_;  // serialises on_warning across the trials' threads
  std::set<std::string> warned_;
};

}  // namespace

Result<LocalTuningResult> run_local(OptimizationJob job, LocalTuningOptions options) {
  if (options.run_dir.empty()) {
    return tl::make_unexpected(Error(ErrorCode::kInvalidArgument, "no run folder given"));
  }
  struct stat st {};
  if (::stat(results_path(options.run_dir).c_str(), &st) == 0) {
    return tl::make_unexpected(
        Error(ErrorCode::kInvalidArgument, options.run_dir + " holds a previous tuning run"));
  }
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(options.run_dir, ec);
  if (!ec) options.run_dir = absolute.lexically_normal().string();
  apply_defaults(job);
  if (auto v = validate_optimization_job(job); !v.ok()) return tl::make_unexpected(v.to_error());
  auto rule = early_stopping_rule(job);
  if (!rule) return tl::make_unexpected(rule.error());
  auto sampler = make_sampler(job);
  if (!sampler) return tl::make_unexpected(sampler.error());
  // The trials' owner references name the OptimizationJob's UID, as on a cluster.
  if (!job.metadata.uid || job.metadata.uid->empty()) job.metadata.uid = random_uuid();
  auto root = local::detail::open_root(options.run_dir);
  if (!root) return tl::make_unexpected(root.error());
  Runner runner(std::move(job), std::move(options), *rule, std::move(*sampler));
  return runner.run();
}

}  // namespace trainer::tuning
