// SPDX-License-Identifier: Apache-2.0
//
// Controller::run, controller-runtime's manager + controller for TrainJobs (reference 9): once
// leader (leader_election.hpp), watch TrainJobs, the kinds they own and their runtimes
// (watched_kinds.hpp; each watch lists first, resumes after dropped connections and relists
// after 410: kube::Client::watch), keep what they deliver in the informer stores
// (object_cache.hpp) the reconciles read from, map every event to a TrainJob key
// (owner_key.hpp), and, once every store holds its first list, let `workers` threads reconcile
// keys from the work queue (work_queue.hpp) with controller-runtime's result handling (9.2).
// Stopping cancels the watches, stops the queue and gives in-flight reconciles `shutdown_timeout`
// before their requests are cancelled; the lease is released last (9.5). Losing the lease stops
// everything at once and run() fails with `leader election lost`. OptimizationJobs share the queue
// under keys of their own kind (owner_key.hpp): their events, and those of the trial TrainJobs they
// control, queue the OptimizationJob's key, which the optimization pass
// (optimization_reconciler.hpp) reconciles with the same resync and backoff.
#include "trainer/controller.hpp"
#include "controller/admission_webhooks.hpp"
#include "controller/controller_internal.hpp"
#include "controller/leader_election.hpp"
#include "controller/metrics_text.hpp"
#include "controller/object_cache.hpp"
#include "controller/optimization_reconciler.hpp"
#include "controller/owner_key.hpp"
#include "controller/status_server.hpp"
#include "controller/watched_kinds.hpp"
#include "controller/webhook_certs.hpp"
#include "controller/work_queue.hpp"
#include "kube/client/cancel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace trainer::controller {
namespace {

using Steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a read after the controller's own write waits for the watch to deliver it before it
// reads the server instead (object_cache.hpp): watch events reach a loopback or in-cluster
// controller within milliseconds.
constexpr milliseconds kOwnWriteWait{1000};

// controller-runtime spreads resyncs of its informers by a factor in [0.9, 1.1).
// A period of 0 or less turns resync off (a day at a time: nothing is queued meanwhile).
milliseconds jittered_resync(milliseconds period) {
  if (period <= milliseconds(0)) return std::chrono::hours(24);
  period = std::min<milliseconds>(period, std::chrono::hours(24 * 365));  // no overflow below
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> factor(0.9, 1.1);
  return milliseconds(static_cast<std::int64_t>(static_cast<double>(period.count()) * factor(rng)));
}

}  // namespace

struct Controller::Impl {
  kube::Client& client;
  ControllerOptions options;

  mutable std::mutex mutex;
  std::condition_variable wake;
  bool running = false;
  bool stop_requested = false;
  bool lease_lost = false;
  std::optional<Error> fatal;  // a watch that cannot continue
  kube::CancelToken stop_token;
  kube::CancelToken watch_token;
  kube::CancelToken reconcile_token;
  std::shared_ptr<detail::WorkQueue> queue;
  // once mode
  std::size_t once_left = 0;
  std::optional<Error> first_error;

  ControllerMetrics counters;  // queue_depth and leader are filled in by metrics()
  std::atomic<bool> leader{false};
  // The webhook and status servers' certificates while run() runs (needs_certificates); every
  // replica keeps them current, leader or not, as upstream's cert-controller does.
  std::unique_ptr<WebhookCertificates> certificates;

  // The admission webhooks of the run and their server (every replica serves them, leader or
  // not, as upstream's manager does), on the certificates above.
  std::unique_ptr<AdmissionWebhooks> webhooks;
  std::unique_ptr<serving::HttpsServer> webhook_server;
  std::unique_ptr<serving::HttpsServer> status_server;
  kube::CancelToken serving_token;

  // Starts the admission webhooks when `options.serving.webhook_port` asks for them.
  // The TrainJobStatus progress endpoint, with the gate on, on every replica (upstream ignores
  // leader election for it), with the webhooks' certificate.
  Result<void> start_status_server() {
    if (!options.reconciler.framework_or_default().feature_gates().trainjob_status ||
        options.serving.status_server_port <= 0) {
      return {};
    }
    if (!certificates) return fail(ErrorCode::kInternal, "status server: no certificates");
    serving::ServerOptions server;
    server.name = "status server";
    server.bind_address = options.serving.status_server_bind_address;
    server.port = options.serving.status_server_port;
    server.certificates = certificates->store();
    server.routes = serving::progress_routes(
        cluster_progress_backend(client, serving_token, std::chrono::seconds(10)));
    server.fallback = serving::progress_not_found;
    server.threads = 4;
    auto started = serving::HttpsServer::start(std::move(server));
    if (!started) {
      return fail(started.error().code, "status server: " + started.error().message);
    }
    status_server = std::move(*started);
    if (options.on_serving) options.on_serving("trainer status", status_server->port());
    return {};
  }

  Result<void> start_serving() {
    if (auto status = start_status_server(); !status) return status;
    if (options.serving.webhook_port == 0) return {};
    // needs_certificates() holds: run() started them.
    if (!certificates) return fail(ErrorCode::kInternal, "webhook server: no certificates");
    WebhookOptions hooks;
    hooks.framework = options.reconciler.framework;
    hooks.reader = [this, token = serving_token] { return cluster_reader(client, token); };
    webhooks = std::make_unique<AdmissionWebhooks>(std::move(hooks));
    serving::ServerOptions server;
    server.name = "webhook server";
    server.bind_address = options.serving.webhook_bind_address;
    server.port = options.serving.webhook_port;
    server.certificates = certificates->store();
    server.routes = webhooks->routes();
    // Admission of one review reads the cluster (the runtime, plugin lookups): a few handler
    // threads, so that a slow API server answer does not hold every review.
    server.threads = 4;
    auto started = serving::HttpsServer::start(std::move(server));
    if (!started) {
      return fail(started.error().code, "webhook server: " + started.error().message);
    }
    webhook_server = std::move(*started);
    if (options.on_serving) options.on_serving("webhooks", webhook_server->port());
    return {};
  }

  void stop_serving() noexcept {
    serving_token.cancel();
    if (webhook_server) webhook_server->stop();
    webhook_server.reset();
    if (status_server) status_server->stop();
    status_server.reset();
    webhooks.reset();
  }

  Impl(kube::Client& c, ControllerOptions o) : client(c), options(std::move(o)) {}

  bool should_stop_locked() const { return stop_requested || lease_lost || fatal.has_value(); }

  // stop() was called: a request it cancelled is no failure.
  bool stopped() {
    std::lock_guard<std::mutex> lock(mutex);
    return stop_requested;
  }

  // One pass of the optimization reconcile for `object_key`, told as a ReconcileResult: the
  // trial TrainJobs it created are `applied`, their keys also in `created`.
  Result<ReconcileResult> reconcile_optimization(const std::string& key,
                                                 std::string_view object_key,
                                                 std::vector<std::string>& created) {
    const auto [ns, name] = detail::split_key(object_key);
    const Clock::time_point now = options.reconciler.now ? options.reconciler.now() : Clock::now();
    ReconcileResult out;
    out.key = key;
    auto pass =
        reconcile_optimization_job(client, ns, name, detail::format_time(now), reconcile_token);
    if (!pass) {
      if (pass.error().code != ErrorCode::kNotFound) return tl::unexpected(pass.error());
      out.skipped = true;  // deleted meanwhile: its trials go with it (owner references)
      return out;
    }
    for (const auto& trial : pass->created_names) {
      out.applied.push_back("trainjob.trainer.kubeflow.org/" + trial);
      created.push_back(std::string(ns) + "/" + trial);
    }
    out.status_patched = pass->status_written;
    out.conditions = pass->status.conditions;
    return out;
  }

  void process(Reconciler::Impl& reconciler, detail::WorkQueue& work, const std::string& key) {
    const auto optimization = detail::optimization_object_key(key);
    std::vector<std::string> created;  // trial TrainJob keys
    const auto started = Steady::now();
    Result<ReconcileResult> result = [&] {
      if (optimization) return reconcile_optimization(key, *optimization, created);
      const auto [ns, name] = detail::split_key(key);
      return detail::reconcile(reconciler, ns, name);
    }();
    const double seconds = std::chrono::duration<double>(Steady::now() - started).count();
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (optimization) {
        ++counters.optimization_reconciles;
        if (!result) ++counters.optimization_errors;
      } else {
        ++counters.reconciles;
        if (!result) ++counters.errors;
      }
      counters.reconcile_seconds_sum += seconds;
      ++counters.reconcile_seconds_count;
      if (options.once) {
        if (!result && !first_error) first_error = result.error();
        // The trials made now are reconciled in this run too (their JobSets), counted first
        // so that the run does not end before they are.
        once_left += created.size();
        if (once_left > 0) --once_left;
        wake.notify_all();
      }
    }
    if (options.once) {
      for (const auto& trial : created) work.add(trial);
    }
    // Result handling as controller-runtime's (reference 9.2); `once` never requeues.
    if (result) {
      work.forget(key);
      if (result->requeue_after && !options.once) work.add_after(key, *result->requeue_after);
    } else if (!options.once) {
      work.add_rate_limited(key);  // a requeue_after with an error is ignored
    }
    if (options.on_reconcile) {
      if (result) {
        options.on_reconcile(*result, nullptr);
      } else {
        ReconcileResult failed;
        failed.key = key;
        options.on_reconcile(failed, &result.error());
      }
    }
    work.done(key);
  }

  void worker(Reconciler::Impl& reconciler, const std::shared_ptr<detail::WorkQueue>& work) {
    while (!work->shutting_down()) {
      auto key = work->get(milliseconds(500));
      if (key) process(reconciler, *work, *key);
    }
  }

  // One kind's informer: its watch feeds the kind's store, then queues what the event concerns.
  void watch(const detail::WatchedKind& kind, detail::ObjectCache& cache,
             const std::shared_ptr<detail::WorkQueue>& work) {
    const auto on_change = [&](const kube::WatchEvent& event,
                               const detail::ObjectCache::Change& change) {
      switch (kind.role) {
        case detail::WatchRole::kTrainJobs:
          work->add(detail::object_key(event.object));
          // A trial's progress is its OptimizationJob's business.
          if (auto owner = detail::optimization_owner_key(event.object)) work->add(*owner);
          break;
        case detail::WatchRole::kOptimizationJobs:
          work->add(detail::optimization_key(detail::object_key(event.object)));
          break;
        case detail::WatchRole::kOwned:
          // The controlling TrainJob; an update that changes or drops the controller
          // ownerReference queues the old owner too (controller-runtime queues the owners of
          // both the old and the new object).
          if (!change.old_owner.empty() && change.old_owner != change.new_owner) {
            work->add(change.old_owner);
          }
          if (!change.new_owner.empty()) work->add(change.new_owner);
          break;
        case detail::WatchRole::kRuntimes: break;
      }
    };
    const auto on_listed = [&] {
      std::lock_guard<std::mutex> lock(mutex);
      wake.notify_all();
    };
    auto result = detail::run_informer(client, kind.resource, options.namespace_, watch_token,
                                       cache, on_change, on_listed);
    if (!result && result.error().code != ErrorCode::kCancelled) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!fatal) {
        fatal = result.error();
        fatal->message = "watch " + kind.resource.kind_group() + ": " + fatal->message;
      }
      wake.notify_all();
    }
  }

  // controller-runtime's WaitForCacheSync: true once every store holds its watch's first list;
  // false on stop, lease loss, a fatal watch error or the cache sync timeout (then fatal).
  bool wait_for_sync(const detail::ObjectCache& cache) {
    const auto timeout = std::max(options.cache_sync_timeout, milliseconds(0));
    const auto deadline = Steady::now() + timeout;
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      if (should_stop_locked()) return false;
      const auto waiting = cache.unsynced();
      if (waiting.empty()) return true;
      const auto now = Steady::now();
      if (now >= deadline) {
        std::string kinds;
        for (const auto& kind : waiting) kinds += (kinds.empty() ? "" : ", ") + kind;
        fatal = Error(ErrorCode::kTimeout, "timed out after " + std::to_string(timeout.count()) +
                                               " ms waiting for the first list of " + kinds);
        return false;
      }
      // Every first list notifies; the bound is only a safety net.
      wake.wait_until(lock, std::min(deadline, now + std::chrono::seconds(1)));
    }
  }

  // Waits until stop, lease loss, a fatal watch error or (once) every key reconciled; queues
  // every TrainJob and OptimizationJob of the stores again each resync period meanwhile.
  void wait_for_end(detail::WorkQueue& work, const detail::ObjectCache* cache,
                    const std::vector<detail::WatchedKind>& kinds) {
    auto next_resync = Steady::now() + jittered_resync(options.resync_period);
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      if (should_stop_locked()) return;
      if (options.once && once_left == 0) return;
      const auto now = Steady::now();
      if (cache != nullptr && now >= next_resync) {
        lock.unlock();
        if (options.resync_period > milliseconds(0)) {
          for (const auto& kind : kinds) {
            if (kind.role == detail::WatchRole::kTrainJobs) {
              for (const auto& key : cache->keys(kind.resource)) work.add(key);
            } else if (kind.role == detail::WatchRole::kOptimizationJobs) {
              for (const auto& key : cache->keys(kind.resource)) {
                work.add(detail::optimization_key(key));
              }
            }
          }
        }
        lock.lock();
        next_resync = now + jittered_resync(options.resync_period);
        continue;
      }
      // Every change of the conditions above notifies; the bound is only a safety net.
      wake.wait_until(lock, std::min(next_resync, now + std::chrono::seconds(1)));
    }
  }

  // Stops the watches and the queue, then the workers: gracefully (in-flight reconciles get
  // shutdown_timeout) unless the lease was lost.
  void shut_down(detail::WorkQueue& work, std::vector<std::thread>& watchers,
                 std::vector<std::thread>& workers) {
    watch_token.cancel();
    for (auto& thread : watchers) thread.join();
    work.shut_down();
    bool lost = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      lost = lease_lost;
    }
    const milliseconds grace =
        lost ? milliseconds(0) : std::max(options.shutdown_timeout, milliseconds(0));
    if (!work.wait_idle(grace)) reconcile_token.cancel();  // in-flight requests end promptly
    for (auto& thread : workers) thread.join();
  }

  Result<void> run_led() {
    auto kinds = detail::watched_kinds(client, stop_token);
    if (!kinds) return stopped() ? Result<void>{} : tl::unexpected(kinds.error());
    ReconcilerOptions reconciler_options = options.reconciler;
    reconciler_options.cancel = reconcile_token;
    // The stores the watches fill and the reconciles read (none in once mode: no watches).
    std::unique_ptr<detail::ObjectCache> cache;
    if (!options.once) {
      cache = std::make_unique<detail::ObjectCache>(kOwnWriteWait);
      for (const auto& kind : *kinds) {
        const detail::Keep keep = kind.role == detail::WatchRole::kOwned ? detail::Keep::kOwned
                                  : kind.role == detail::WatchRole::kOptimizationJobs
                                      ? detail::Keep::kNames
                                      : detail::Keep::kAll;
        cache->add_kind(kind.resource, keep, options.namespace_);
      }
    }
    auto reconciler = detail::cached_reconciler(client, reconciler_options, cache.get());
    auto work = std::make_shared<detail::WorkQueue>(options.backoff_base, options.backoff_max);
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue = work;
    }

    std::vector<std::thread> watchers;
    if (options.once) {
      // Every TrainJob and OptimizationJob that exists now, once: no watches, no requeues.
      kube::ListOptions list_options;
      list_options.cancel = stop_token;
      list_options.all_namespaces = options.namespace_.empty();
      std::vector<std::string> keys;
      for (const auto& kind : *kinds) {
        if (kind.role != detail::WatchRole::kTrainJobs &&
            kind.role != detail::WatchRole::kOptimizationJobs) {
          continue;
        }
        auto list = client.list(kind.resource, options.namespace_, list_options);
        if (!list) return stopped() ? Result<void>{} : tl::unexpected(list.error());
        if (const auto* items = list->if_contains("items"); items && items->is_array()) {
          for (const auto& item : items->get_array()) {
            if (!item.is_object()) continue;
            const std::string key = detail::object_key(item.get_object());
            keys.push_back(kind.role == detail::WatchRole::kOptimizationJobs
                               ? detail::optimization_key(key)
                               : key);
          }
        }
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        once_left = keys.size();
      }
      for (const auto& key : keys) work->add(key);
    } else {
      for (const auto& kind : *kinds) {
        watchers.emplace_back([this, &kind, &cache, work] { watch(kind, *cache, work); });
      }
    }
    std::vector<std::thread> workers;
    if (options.once || wait_for_sync(*cache)) {
      for (int i = 0; i < std::max(1, options.workers); ++i) {
        workers.emplace_back([this, &reconciler, work] { worker(*reconciler, work); });
      }
      wait_for_end(*work, cache.get(), *kinds);
    }
    shut_down(*work, watchers, workers);

    std::lock_guard<std::mutex> lock(mutex);
    if (fatal) return tl::unexpected(*fatal);
    if (options.once) {
      if (first_error) return tl::unexpected(*first_error);
      if (once_left > 0 && !lease_lost) {
        return fail(ErrorCode::kCancelled,
                    "stopped before every TrainJob and OptimizationJob was reconciled once");
      }
    }
    return {};
  }
};

namespace {

// The serving options are the one source of the names the TrainJobStatus plugin renders into the
// pods (the server's URL, the Secret whose CA they trust): the Secret the certificate manager
// keeps is the one the plugin reads.
ControllerOptions with_operator_config(ControllerOptions options) {
  OperatorConfig config;
  config.operator_namespace = operator_namespace(options.serving);
  config.webhook_service_name = options.serving.webhook_service_name;
  config.webhook_secret_name = options.serving.webhook_secret_name;
  config.status_server_port = std::nullopt;
  if (options.serving.status_server_port > 0) {
    config.status_server_port = options.serving.status_server_port;
  }
  options.reconciler.framework = std::make_shared<const Framework>(
      options.reconciler.framework_or_default().with_config(std::move(config)));
  return options;
}

}  // namespace

Controller::Controller(kube::Client& client, ControllerOptions options)
    : impl_(std::make_unique<Impl>(client, with_operator_config(std::move(options)))) {}

Controller::~Controller() = default;

Result<void> Controller::run() {
  Impl& s = *impl_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.running) return fail(ErrorCode::kInvalidArgument, "the controller is already running");
    s.running = true;
    s.lease_lost = false;
    s.fatal.reset();
    s.first_error.reset();
    s.once_left = 0;
    s.watch_token = kube::CancelToken();
    s.reconcile_token = kube::CancelToken();
  }
  // A stop() that came before (or during) run ends this run; the next one starts afresh.
  struct Finish {
    Impl& s;
    ~Finish() {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.running = false;
      s.stop_requested = false;
      s.stop_token = kube::CancelToken();
      s.leader = false;
      s.certificates.reset();
    }
  } finish{s};
  struct StopServing {
    Impl& s;
    ~StopServing() { s.stop_serving(); }
  } stop_serving{s};

  // The caller's token (ReconcilerOptions::cancel) stops the run as stop() does: gracefully.
  // The reconciles themselves get a token of the run's own, cancelled only when the shutdown
  // timeout passes or the lease is lost.
  const kube::detail::CancelRegistration caller_cancel(s.options.reconciler.cancel,
                                                       [this] { stop(); });
  if (s.stopped()) return {};
  if (needs_certificates(s.options)) {
    auto started = WebhookCertificates::start(s.client, s.options.serving);
    if (!started) {
      auto error = std::move(started.error());
      error.message = "webhook certificates: " + error.message;
      return tl::unexpected(std::move(error));
    }
    s.certificates = std::move(*started);
  }
  s.serving_token = kube::CancelToken();
  if (auto served = s.start_serving(); !served) return served;
  const LeaderElection& election = s.options.leader_election;
  if (!election.enabled) {
    s.leader = true;
    return s.run_led();
  }
  if (auto valid = detail::validate(election); !valid) return valid;
  detail::LeaderElector elector(s.client, election);
  kube::CancelToken lease_token;
  {
    // Acquiring waits until stop(): its token is cancelled by stop().
    kube::CancelToken stop_token;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      stop_token = s.stop_token;
      if (s.stop_requested) return {};
    }
    if (!elector.acquire(stop_token)) return {};
  }
  s.leader = true;
  std::thread renewer([&] {
    if (!elector.renew(lease_token)) {
      std::lock_guard<std::mutex> lock(s.mutex);
      s.lease_lost = true;
      s.leader = false;
      s.reconcile_token.cancel();  // never keep writing once the lease is gone
      s.wake.notify_all();
    }
  });
  auto result = s.run_led();
  lease_token.cancel();
  renewer.join();
  bool lost = false;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    lost = s.lease_lost;
  }
  if (lost) return fail(ErrorCode::kFailed, "leader election lost");
  elector.release();
  return result;
}

void Controller::stop() noexcept {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.stop_requested = true;
  s.stop_token.cancel();
  s.wake.notify_all();
}

ControllerMetrics Controller::metrics() const {
  const Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mutex);
  ControllerMetrics m = s.counters;
  m.queue_depth = s.queue ? s.queue->depth() : 0;
  m.leader = s.leader && s.running;
  return m;
}

std::string Controller::metrics_text() const {
  return detail::prometheus_text(metrics());
}

}  // namespace trainer::controller
