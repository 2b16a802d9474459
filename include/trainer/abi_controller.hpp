// SPDX-License-Identifier: Apache-2.0
//
// trainer.hpp's controller section (include <trainer.hpp>, which includes this at its end):
// libtrainer's TrainJob controller inside the caller's process (abi::Controller) and one
// reconcile of one TrainJob (Controller::reconcile), over the C ABI of trainer/controller.h
// (docs/controller.md). The result of a reconcile is the compact JSON that header describes.
#pragma once

#include "trainer.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::abi {

/// Options of Controller::create() (trainer_controller_options); empty or 0 means the default
/// in brackets.
struct ControllerOptions {
  std::string namespace_;     ///< watch only this namespace [every namespace]
  int workers = 0;            ///< TrainJobs reconciled at the same time [5]
  std::string feature_gates;  ///< `TrainJobStatus=true` [all off]; empty with a framework
  bool no_events = false;     ///< record no Events on TrainJobs
  /// run() reconciles every TrainJob that exists when it starts once and returns; it fails with
  /// the first error when any reconcile failed.
  bool once = false;
  std::chrono::milliseconds resync_period{0};     ///< every TrainJob queued again this often [10 h]
  std::chrono::milliseconds shutdown_timeout{0};  ///< for reconciles in flight after stop() [30 s]
  /// Reconcile only while holding a coordination.k8s.io Lease.
  bool leader_elect = false;
  std::string leader_election_namespace;        ///< ["default"]
  std::string leader_election_id;               ///< ["trainer.kubeflow.org"]
  std::string leader_election_identity;         ///< [`<hostname>_<random>`]
  std::chrono::milliseconds lease_duration{0};  ///< [15 s]
  std::chrono::milliseconds renew_deadline{0};  ///< [10 s]
  std::chrono::milliseconds retry_period{0};    ///< [2 s]
  /// The outcome of every reconcile: its result JSON and, when it failed (it is retried with
  /// backoff), the error. Called on the worker threads, possibly several at once; it must not
  /// destroy the Controller nor call run(). An exception it throws is dropped.
  std::function<void(std::string_view result, const std::optional<Error>& error)> on_reconcile;
  /// The plugins every reconcile renders with; the controller keeps its own reference
  /// [the built-in plugins of `feature_gates`].
  const Framework* framework = nullptr;
  // The HTTPS endpoints (struct version 3; docs/controller.md, "Admission webhooks").
  std::string operator_namespace;    ///< [the service account's namespace, else kubeflow-system]
  std::string webhook_service_name;  ///< ["kubeflow-trainer-controller-manager"]
  std::string webhook_secret_name;   ///< ["kubeflow-trainer-webhook-cert"]
  std::string webhook_cert_dir;      ///< bring your own tls.crt and tls.key [generated]
  std::vector<std::string> webhook_cert_hosts;  ///< more SANs of the generated certificate
  std::string webhook_bind_address;             ///< ["0.0.0.0"]
  int webhook_port = 0;                         ///< admission webhooks (HTTPS); 0: none [0]
  std::string status_server_bind_address;       ///< ["0.0.0.0"]
  int status_server_port = 0;                   ///< [10443]; -1: not served
};

/// Options of Controller::reconcile() (trainer_controller_reconcile_options).
struct ReconcileOptions {
  std::string feature_gates;  ///< [all off]
  bool no_events = false;
  std::optional<CancelToken> cancel;  ///< ends the call with ErrorCode::kCancelled
  /// The plugins the reconcile renders with, borrowed for the call [the built-in plugins of
  /// `feature_gates`, which must then be empty].
  const Framework* framework = nullptr;
};

namespace detail {

using ReconcileFn = std::function<void(std::string_view, const std::optional<Error>&)>;

inline trainer_status reconcile_trampoline(void* user, const char* result, std::size_t len,
                                           const trainer_error* error) noexcept {
  try {
    std::optional<Error> converted;
    if (error != nullptr) converted = to_error(error, trainer_error_code(error));
    (*static_cast<ReconcileFn*>(user))(std::string_view(result, len), converted);
  } catch (...) {  // the loop goes on whatever a callback does; nothing may unwind into C
  }
  return TRAINER_OK;
}
inline void reconcile_free(void* user) noexcept {
  delete static_cast<ReconcileFn*>(user);
}

}  // namespace detail

/// The TrainJob controller's loop over one Client (trainer_controller). Move-only owner.
/// run() blocks its thread; stop() and metrics() may be called from any thread meanwhile. The
/// Controller must not be destroyed or moved while run() is running.
class Controller {
 public:
  /// A controller over `client`, which it borrows: the Client must outlive it (and may serve
  /// other calls meanwhile). Nothing is contacted before run(). Errors: kInvalidArgument (a
  /// negative number, workers above 1024, gates that do not parse or given with a framework).
  [[nodiscard]] static Result<Controller> create(Client& client,
                                                 const ControllerOptions& options = {}) {
    using detail::c_str;
    using detail::millis;
    trainer_controller_options opts = TRAINER_CONTROLLER_OPTIONS_INIT;
    opts.namespace_name = c_str(options.namespace_);
    opts.workers = static_cast<std::int32_t>(options.workers);
    opts.feature_gates = c_str(options.feature_gates);
    opts.no_events = options.no_events ? 1 : 0;
    opts.once = options.once ? 1 : 0;
    opts.resync_period_ms = millis(options.resync_period);
    opts.shutdown_timeout_ms = millis(options.shutdown_timeout);
    opts.leader_elect = options.leader_elect ? 1 : 0;
    opts.leader_election_namespace = c_str(options.leader_election_namespace);
    opts.leader_election_id = c_str(options.leader_election_id);
    opts.leader_election_identity = c_str(options.leader_election_identity);
    opts.lease_duration_ms = millis(options.lease_duration);
    opts.renew_deadline_ms = millis(options.renew_deadline);
    opts.retry_period_ms = millis(options.retry_period);
    if (options.on_reconcile) {
      // Released by the library (reconcile_free) with the controller, also when creating fails.
      opts.on_reconcile = detail::reconcile_trampoline;
      opts.reconcile_user_data = new detail::ReconcileFn(options.on_reconcile);
      opts.reconcile_user_data_free = detail::reconcile_free;
    }
    opts.framework = options.framework == nullptr ? nullptr : options.framework->raw();
    opts.operator_namespace = c_str(options.operator_namespace);
    opts.webhook_service_name = c_str(options.webhook_service_name);
    opts.webhook_secret_name = c_str(options.webhook_secret_name);
    opts.webhook_cert_dir = c_str(options.webhook_cert_dir);
    std::string hosts;
    for (const auto& host : options.webhook_cert_hosts) hosts += (hosts.empty() ? "" : ",") + host;
    opts.webhook_cert_hosts = c_str(hosts);
    opts.webhook_bind_address = c_str(options.webhook_bind_address);
    opts.webhook_port = static_cast<std::int32_t>(options.webhook_port);
    opts.status_server_bind_address = c_str(options.status_server_bind_address);
    opts.status_server_port = static_cast<std::int32_t>(options.status_server_port);
    trainer_controller* ctl = nullptr;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_controller_new(client.raw(), &opts, &ctl, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return Controller(ctl);
  }

  /// Runs the loop on this thread until stop() (then success, once the reconciles in flight
  /// finished or the shutdown timeout passed), or with `once` until every TrainJob present at
  /// the start was reconciled. A controller runs once: a second run() is kInvalidArgument.
  /// Errors: the first failed reconcile with `once`; a lost leader lease; a watch that cannot
  /// go on (the server's errors).
  [[nodiscard]] Result<void> run() {
    trainer_error* err = nullptr;
    const trainer_status status = trainer_controller_run(ctl_.get(), &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return {};
  }

  /// Asks the loop to stop and returns at once; run() returns once it has. Idempotent; also
  /// before run() (which then returns at once). Any thread, not a signal handler.
  void stop() const noexcept { trainer_controller_stop(ctl_.get()); }

  /// The counters (reconciles, errors, queue depth, latency, leader) as Prometheus text.
  [[nodiscard]] Result<std::string> metrics() const {
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_controller_metrics(ctl_.get(), &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// One reconcile of the TrainJob `name` in `ns` ("": the client's) as the controller does it,
  /// without a loop (trainer_controller_reconcile): its objects applied, its status written.
  /// Returns the result JSON; a TrainJob that does not exist is `"skipped":true`, not an error.
  /// May run on several threads at once for different TrainJobs. Errors: kInvalidArgument
  /// (empty name, gates that do not parse), the server's errors, kInvalid (admission rules),
  /// kNotFound (the runtime), kCancelled.
  [[nodiscard]] static Result<std::string> reconcile(Client& client, const std::string& ns,
                                                     const std::string& name,
                                                     const ReconcileOptions& options = {}) {
    trainer_controller_reconcile_options opts = TRAINER_CONTROLLER_RECONCILE_OPTIONS_INIT;
    opts.feature_gates = detail::c_str(options.feature_gates);
    opts.no_events = options.no_events ? 1 : 0;
    opts.cancel = options.cancel ? options.cancel->raw() : nullptr;
    opts.framework = options.framework == nullptr ? nullptr : options.framework->raw();
    detail::Buffer buffer;
    trainer_error* err = nullptr;
    const trainer_status status = trainer_controller_reconcile(
        client.raw(), detail::c_str(ns), name.c_str(), &opts, &buffer.buf, &err);
    if (status != TRAINER_OK) return detail::failure(status, err);
    return buffer.str();
  }

  /// The C handle (still owned by this object).
  [[nodiscard]] trainer_controller* raw() const noexcept { return ctl_.get(); }

 private:
  explicit Controller(trainer_controller* owned) noexcept : ctl_(owned) {}

  struct Deleter {
    void operator()(trainer_controller* c) const noexcept { trainer_controller_free(c); }
  };
  std::unique_ptr<trainer_controller, Deleter> ctl_;
};

}  // namespace trainer::abi
