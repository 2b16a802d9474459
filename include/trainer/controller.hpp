// SPDX-License-Identifier: Apache-2.0
//
// libtrainer as the TrainJob controller (docs/controller.md): what upstream's
// trainjob_controller does (reference section 5), over a `kube::Client`.
//
//   status.hpp-level pure steps:  derive_status(job, jobset, now)  (no I/O; unit-tested)
//   Reconciler::reconcile(ns, name)  one pass of upstream's reconcile (reads, applies, patches)
//   Controller::run(cancel)          watches + the stores they fill (the reconciles read them) +
//                                    work queue + workers + resync + leader election
//
// Thread safety: `Reconciler::reconcile` may be called from several threads at once for
// different TrainJobs (the Controller's work queue guarantees one TrainJob is never reconciled
// twice at the same time). `Controller::run` blocks; `stop()` may be called from any thread.
#pragma once

#include "trainer/error.hpp"
#include "trainer/framework.hpp"
#include "trainer/kube.hpp"
#include "trainer/model.hpp"
#include "trainer/render.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::controller {

using Clock = std::chrono::system_clock;

/// The field manager of every object and status the controller writes (upstream's).
inline constexpr std::string_view kFieldManager = "trainer";
/// `spec.managedBy` of TrainJobs this controller acts on (also: unset).
inline constexpr std::string_view kManagedBy = "trainer.kubeflow.org/trainjob-controller";

// ---- Pure steps (no I/O) ---------------------------------------------------------------------

/// Kubernetes `meta.SetStatusCondition`: updates the condition of `c.type` in place (status
/// change: new `lastTransitionTime` = `c`'s or `now`; reason, message, observedGeneration always)
/// or appends it. Returns true when something changed.
bool set_status_condition(std::vector<Condition>& conditions, Condition c, const std::string& now);

/// Steps 6-8 of upstream's reconcile (reference 5.1-5.3) on `job.status`: the Suspended
/// condition, the status copied from `jobset` (null: the JobSet does not exist; its Completed/
/// Failed conditions and replicatedJobsStatus), the DeadlineExceeded condition kept across the
/// copy, and `activeDeadlineSeconds`. `now` is RFC 3339.
struct DerivedStatus {
  TrainJobStatus status;
  /// The deadline passed now: the JobSet must be deleted.
  bool deadline_exceeded = false;
  /// The deadline is pending: reconcile again after this long.
  std::optional<std::chrono::seconds> requeue_after;
};
[[nodiscard]] DerivedStatus derive_status(const TrainJob& job, const boost::json::object* jobset,
                                          Clock::time_point now);

// ---- One reconcile ---------------------------------------------------------------------------

struct ReconcilerOptions {
  /// The plugins every reconcile renders with and whose TrainJobStatus plugin refines the
  /// status, with their feature gates and operator configuration; null: `default_framework({})`.
  /// Shared, so that the caller's copy may go away while the controller runs.
  std::shared_ptr<const Framework> framework;
  /// Events recorded on the TrainJob (events.k8s.io/v1, as controller-runtime's recorder):
  /// `TrainJobResourcesCreationFailed` warnings. Off: nothing is recorded.
  bool record_events = true;
  /// The clock (tests); default system_clock::now.
  std::function<Clock::time_point()> now;
  kube::CancelToken cancel;

  /// `*framework`, or `default_framework({})` when null.
  [[nodiscard]] const Framework& framework_or_default() const;
};

/// What one reconcile did, for logs, metrics and tests.
struct ReconcileResult {
  std::string key;  ///< `<namespace>/<name>`; an OptimizationJob's: `OptimizationJob:<ns>/<name>`
  bool skipped = false;  ///< not found, or managed by another controller
  std::vector<std::string>
      applied;  ///< kubectl refs of the objects applied (`jobset.jobset.x-k8s.io/x`)
  bool status_patched = false;
  std::vector<Condition> conditions;  ///< after the reconcile
  /// Reconcile again after this long (a pending deadline); nullopt: only on events.
  std::optional<std::chrono::milliseconds> requeue_after;
};

class Reconciler {
 public:
  Reconciler(kube::Client& client, ReconcilerOptions options = {});
  ~Reconciler();
  Reconciler(Reconciler&&) noexcept;
  Reconciler& operator=(Reconciler&&) = delete;

  /// One pass of upstream's reconcile (reference 5.1), every read a GET (the loop of
  /// `Controller` reads its stores instead): GET the TrainJob (NotFound: skipped),
  /// skip one managed by another controller, resolve its runtime from the cluster, render with
  /// the cluster as the lookup (the same pipeline as `trainerctl render`), server-side apply
  /// each object (field manager `trainer`, force) unless the TrainJob is finished, stopping at
  /// the first error (Warning event `TrainJobResourcesCreationFailed`), derive the status
  /// (`derive_status`), delete the JobSet when the deadline passed, and patch the status
  /// subresource (JSON merge patch) only when it changed. An error means: requeue with backoff.
  [[nodiscard]] Result<ReconcileResult> reconcile(std::string_view ns, std::string_view name);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// ---- The loop --------------------------------------------------------------------------------

struct LeaderElection {
  bool enabled = false;
  std::string lease_namespace = "default";
  std::string lease_name = "trainer.kubeflow.org";
  std::string identity;  ///< empty: `<hostname>_<random>`
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
};

/// The HTTPS endpoints of the controller (admission webhooks, the TrainJobStatus progress server)
/// and the certificate they serve (`trainerctl controller --webhook-*`, `--status-server-*`).
struct ServingOptions {
  /// Where the webhook Service and certificate Secret live; empty: the in-cluster service account
  /// namespace file (/var/run/secrets/kubernetes.io/serviceaccount/namespace), else
  /// `kubeflow-system`.
  std::string operator_namespace;
  /// The Service whose DNS names (`<svc>.<ns>.svc`, `<svc>.<ns>.svc.cluster.local`) the
  /// generated serving certificate covers.
  std::string webhook_service_name = "kubeflow-trainer-controller-manager";
  /// The Secret (keys ca.crt, ca.key, tls.crt, tls.key) that holds the generated certificates.
  std::string webhook_secret_name = "kubeflow-trainer-webhook-cert";
  /// Bring your own certificate: tls.crt and tls.key (and ca.crt) are read from this directory
  /// and reloaded when they change; no Secret is written and no caBundle is patched.
  std::string cert_dir;
  /// More subject alternative names (an IP address or a DNS name each) in the generated serving
  /// certificate, e.g. 127.0.0.1 for tests that call the webhooks directly.
  std::vector<std::string> extra_cert_hosts;
  std::string webhook_bind_address = "0.0.0.0";
  /// 0: no webhooks served (the Deployment `trainerctl install` writes passes 9443).
  int webhook_port = 0;
  std::string status_server_bind_address = "0.0.0.0";
  /// Served when the TrainJobStatus feature gate is on.
  int status_server_port = 10443;
  /// One line per certificate change (generated, rotated, caBundle written, files reloaded)
  /// and per failed periodic refresh; called from the refresh thread. May be empty.
  std::function<void(const std::string&)> log;
};

struct ControllerOptions {
  ReconcilerOptions reconciler;
  /// Namespace to watch; empty: all namespaces.
  std::string namespace_;
  int workers = 5;  ///< upstream's TrainJob concurrency
  /// Every TrainJob is queued again this often (controller-runtime: 10 h).
  std::chrono::milliseconds resync_period{std::chrono::hours(10)};
  /// Per-TrainJob backoff of failed reconciles: base * 2^failures, capped.
  std::chrono::milliseconds backoff_base{5};
  std::chrono::milliseconds backoff_max{std::chrono::seconds(1000)};
  LeaderElection leader_election;
  /// Reconcile every TrainJob and OptimizationJob that exists at start once (and the trial
  /// TrainJobs those reconciles create), then return (`--once`).
  bool once = false;
  /// Called after every reconcile (logging, metrics), from the worker's thread.
  std::function<void(const ReconcileResult&, const Error*)> on_reconcile;
  /// Graceful shutdown: in-flight reconciles get this long after `stop()`.
  std::chrono::milliseconds shutdown_timeout{std::chrono::seconds(30)};
  /// The reconciles read from stores the watches fill; they start once every watch delivered its
  /// first list, and `run()` fails when that takes longer than this (controller-runtime's
  /// `CacheSyncTimeout`).
  std::chrono::milliseconds cache_sync_timeout{std::chrono::minutes(2)};
  /// Webhooks, progress server and their certificates. Also the names the TrainJobStatus plugin
  /// renders: the controller binds `reconciler.framework` to an operator configuration made of
  /// these (operator namespace, service, Secret, status server port; a port of 0 leaves it unset).
  ServingOptions serving;
  /// Called when an HTTPS endpoint of `serving` listens: its name (`webhooks`) and the bound
  /// port (the chosen one when the options asked for 0), from the thread of `run()`.
  std::function<void(std::string_view endpoint, int port)> on_serving;
};

/// Counters for `--metrics-addr` (Prometheus text).
struct ControllerMetrics {
  std::uint64_t reconciles = 0;
  std::uint64_t errors = 0;
  std::uint64_t queue_depth = 0;
  double reconcile_seconds_sum = 0;
  std::uint64_t reconcile_seconds_count = 0;
  bool leader = false;
  /// OptimizationJob reconciles (counted here, not in `reconciles`), and those that failed.
  std::uint64_t optimization_reconciles = 0;
  std::uint64_t optimization_errors = 0;
};

class Controller {
 public:
  Controller(kube::Client& client, ControllerOptions options);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  /// Runs until `stop()` (or, with `once`, until every TrainJob present at start was reconciled
  /// once: then fails with the first error when any reconcile failed). Returns an error when the
  /// leader lease is lost (`leader election lost`) or a watch cannot continue.
  [[nodiscard]] Result<void> run();
  /// Stops `run()` gracefully; callable from any thread and from a signal-handling thread.
  void stop() noexcept;
  [[nodiscard]] ControllerMetrics metrics() const;
  /// Prometheus text exposition of `metrics()`.
  [[nodiscard]] std::string metrics_text() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainer::controller
