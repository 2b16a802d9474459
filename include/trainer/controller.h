/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, controller section: libtrainer as the TrainJob controller
 * (docs/controller.md), so that a platform runs the reconcile loop inside its own process
 * instead of a second one. Included by trainer.h; the conventions stated at the top of trainer.h
 * and of trainer/cluster.h (errors of the API server, cancellation) apply.
 *
 * A trainer_controller watches TrainJobs (one namespace or all) and the objects they own, and
 * reconciles each TrainJob as upstream's trainjob_controller does: render its objects from its
 * runtime in the cluster, server-side apply them with field manager `trainer`, and write its
 * status. trainer_controller_reconcile() does one such pass for one TrainJob by name.
 *
 * Results of a reconcile cross as compact JSON:
 *   {"key":"<namespace>/<name>", "skipped":false, "applied":["jobset.jobset.x-k8s.io/x", ...],
 *    "statusPatched":true, "conditions":[{"type":..., "status":..., "reason":..., "message":...,
 *    "lastTransitionTime":..., "observedGeneration":N}], "requeueAfterMs":N}
 * (`skipped`: the TrainJob does not exist or another controller manages it; `requeueAfterMs`
 * only when a deadline is pending; `observedGeneration` only when set).
 */
#ifndef TRAINER_CONTROLLER_H
#define TRAINER_CONTROLLER_H

#include "trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Receives the outcome of one reconcile of a running controller: `result` (`len` bytes of
 *  compact JSON as described at the top of this header, NUL-terminated too) and, when the
 *  reconcile failed (it is retried with backoff), `error` (else NULL). Both are borrowed for the
 *  call. Called on the controller's worker threads, possibly from several at once; it must not
 *  free the controller nor call trainer_controller_run(). The return value is ignored (return
 *  TRAINER_OK). @since 0.1 */
typedef trainer_status (*trainer_controller_reconcile_fn)(void* user_data, const char* result,
                                                          size_t len, const trainer_error* error);

/** Options of trainer_controller_new(). NULL/""/0 mean the default in brackets; initialise with
 *  TRAINER_CONTROLLER_OPTIONS_INIT or trainer_controller_options_init(); fields are only ever
 *  appended. Strings are borrowed for the call. @since 0.1 */
typedef struct trainer_controller_options {
  uint32_t version;            /**< TRAINER_CONTROLLER_OPTIONS_VERSION */
  const char* namespace_name;  /**< watch only this namespace [every namespace] */
  int32_t workers;             /**< TrainJobs reconciled at the same time [5] */
  const char* feature_gates;   /**< upstream's `--feature-gates`, `TrainJobStatus=true` [all
                                    off] */
  int32_t no_events;           /**< non-zero: record no Events on TrainJobs [recorded] */
  int32_t once;                /**< non-zero: trainer_controller_run() reconciles every TrainJob
                                    that exists when it starts once and returns; it fails with
                                    the first error when any reconcile failed */
  int64_t resync_period_ms;    /**< every TrainJob is queued again this often [10 h] */
  int64_t shutdown_timeout_ms; /**< reconciles in flight get this long after
                                    trainer_controller_stop() [30000] */
  int32_t leader_elect;        /**< non-zero: reconcile only while holding a coordination.k8s.io
                                    Lease, so that of several controllers only one writes */
  const char* leader_election_namespace;        /**< namespace of the Lease ["default"] */
  const char* leader_election_id;               /**< name of the Lease ["trainer.kubeflow.org"] */
  const char* leader_election_identity;         /**< holder identity [`<hostname>_<random>`] */
  int64_t lease_duration_ms;                    /**< [15000] */
  int64_t renew_deadline_ms;                    /**< [10000] */
  int64_t retry_period_ms;                      /**< [2000] */
  trainer_controller_reconcile_fn on_reconcile; /**< NULL: no callback */
  void* reconcile_user_data;                    /**< passed to on_reconcile */
  void (*reconcile_user_data_free)(void*);      /**< called once with reconcile_user_data when
                                                     the controller is freed, or at once when
                                                     trainer_controller_new() fails (not for
                                                     NULL options or an unsupported version,
                                                     whose fields are not read); may be NULL */
  /** The plugins every reconcile renders with (trainer/plugin.h); the controller keeps its own
   *  reference, so the caller may free it after trainer_controller_new() [the built-in plugins
   *  of `feature_gates`]. With a framework, `feature_gates` must be NULL or "". Read only when
   *  `version` >= 2. @since 0.1, struct version 2 */
  const struct trainer_framework* framework;
  /* ---- struct version 3: the HTTPS endpoints and their certificates (docs/controller.md,
   *      "Admission webhooks"); read only when `version` >= 3. @since 0.1, struct version 3 */
  /** Where the webhook Service and certificate Secret live [the in-cluster service account's
   *  namespace, else "kubeflow-system"] */
  const char* operator_namespace;
  /** The Service the generated certificate names ["kubeflow-trainer-controller-manager"] */
  const char* webhook_service_name;
  /** The Secret that holds the generated certificates ["kubeflow-trainer-webhook-cert"] */
  const char* webhook_secret_name;
  /** Bring your own certificate: tls.crt and tls.key (and ca.crt) from this directory, no
   *  Secret, no caBundle patching [NULL: generated] */
  const char* webhook_cert_dir;
  /** More subject alternative names of the generated certificate, comma-separated IP addresses
   *  or DNS names, e.g. "127.0.0.1" [none] */
  const char* webhook_cert_hosts;
  /** Address the webhook server listens on ["0.0.0.0"] */
  const char* webhook_bind_address;
  /** Port of the admission webhooks (HTTPS), 1 to 65535; 0: no webhooks served [0] */
  int32_t webhook_port;
  /** Address the TrainJobStatus progress server listens on ["0.0.0.0"] */
  const char* status_server_bind_address;
  /** Port of the progress server (served when the TrainJobStatus gate is on); 0: 10443,
   *  -1: not served [0] */
  int32_t status_server_port;
} trainer_controller_options;

/** Struct versions: 1 ends with `reconcile_user_data_free`; 2 adds `framework`; 3 adds the
 *  serving fields from `operator_namespace` to `status_server_port`. */
#define TRAINER_CONTROLLER_OPTIONS_VERSION 3
#define TRAINER_CONTROLLER_OPTIONS_INIT                                                          \
  {                                                                                              \
    TRAINER_CONTROLLER_OPTIONS_VERSION, NULL, 0, NULL, 0, 0, 0, 0, 0, NULL, NULL, NULL, 0, 0, 0, \
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0                   \
  }

/** Initialises `opts` like TRAINER_CONTROLLER_OPTIONS_INIT. Errors: TRAINER_E_INVALID_ARGUMENT
 *  (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_controller_options_init(trainer_controller_options* opts,
                                                           uint32_t version);

/** The TrainJob controller's loop over one client. trainer_controller_run() and
 *  trainer_controller_stop() are meant for different threads: stop and metrics may be called
 *  from any thread at any time, also while run is blocked; trainer_controller_free() must come
 *  after run has returned. Owned by the caller. @since 0.1 */
typedef struct trainer_controller trainer_controller;

/** A controller over `client` in `*out` (NULL on failure); nothing is contacted until
 *  trainer_controller_run(). The client is borrowed: it must outlive the controller (it may
 *  still be used for other calls meanwhile). `opts` may be NULL. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`client` or `out` NULL, unsupported options version, a negative
 *  number, `workers` above 1024, feature gates that do not parse); TRAINER_E_NOMEM.
 *  Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_controller_new(trainer_client* client,
                                                  const trainer_controller_options* opts,
                                                  TRAINER_OWN trainer_controller** out,
                                                  trainer_error** err);

/** Runs the loop on the calling thread until trainer_controller_stop() (then TRAINER_OK, after
 *  the reconciles in flight finished or the shutdown timeout passed), or with `once` until
 *  every TrainJob present at the start was reconciled once. A controller runs at most once: a
 *  second call fails with TRAINER_E_INVALID_ARGUMENT; a stop that came before the run makes it
 *  return TRAINER_OK at once. Errors: the first failed reconcile with `once`; a lost leader
 *  lease (`leader election lost`); a watch that cannot continue (the server's errors, see
 *  trainer/cluster.h); TRAINER_E_NOMEM. @since 0.1 */
TRAINER_API trainer_status trainer_controller_run(trainer_controller* ctl, trainer_error** err);

/** Asks a running (or not yet running) controller to stop; returns at once, the run returns
 *  once it has stopped. Idempotent; NULL is a no-op. Any thread, also a signal-handling thread
 *  (not a signal handler). @since 0.1 */
TRAINER_API void trainer_controller_stop(trainer_controller* ctl);

/** The controller's counters (reconciles, errors, queue depth, reconcile latency, leader) as
 *  Prometheus text (exposition format 0.0.4) in `out`, which must be empty (TRAINER_BUFFER_INIT).
 *  Errors: TRAINER_E_INVALID_ARGUMENT (NULL `ctl` or `out`, `out` not empty); TRAINER_E_NOMEM.
 *  Any thread. @since 0.1 */
TRAINER_API trainer_status trainer_controller_metrics(const trainer_controller* ctl,
                                                      TRAINER_OWN trainer_buffer* out,
                                                      trainer_error** err);

/** Frees a controller (calls the reconcile user_data_free). No trainer_controller_run() on it
 *  may be running. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_controller_free(TRAINER_OWN trainer_controller* ctl);

/** Options of trainer_controller_reconcile(). @since 0.1 */
typedef struct trainer_controller_reconcile_options {
  uint32_t version;             /**< TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION */
  const char* feature_gates;    /**< as trainer_controller_options [all off] */
  int32_t no_events;            /**< non-zero: record no Events [recorded] */
  trainer_cancel_token* cancel; /**< ends the call with TRAINER_E_CANCELLED [none] */
  /** The plugins the reconcile renders with, borrowed for the call [the built-in plugins of
   *  `feature_gates`]; with a framework, `feature_gates` must be NULL or "". Read only when
   *  `version` >= 2. @since 0.1, struct version 2 */
  const struct trainer_framework* framework;
} trainer_controller_reconcile_options;

/** Struct versions: 1 ends with `cancel`; 2 adds `framework`. */
#define TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION 2
#define TRAINER_CONTROLLER_RECONCILE_OPTIONS_INIT \
  { TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION, NULL, 0, NULL, NULL }

/** Initialises `opts` like TRAINER_CONTROLLER_RECONCILE_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_controller_reconcile_options_init(
    trainer_controller_reconcile_options* opts, uint32_t version);

/** One reconcile of the TrainJob `name` in `namespace_name` (NULL or "": the client's), as the
 *  controller does it, without a loop: its objects applied, its status written. The result's
 *  JSON (top of this header) goes to `out` (empty on entry; untouched on failure). A TrainJob
 *  that does not exist is not an error: the result says `"skipped":true`. `opts` may be NULL.
 *  May be called from several threads at once, for different TrainJobs. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (NULL `client`/`out`, empty `name`, `out` not empty, unsupported
 *  options version, feature gates that do not parse); the server's errors (trainer/cluster.h);
 *  TRAINER_E_INVALID (the TrainJob or its runtime violates admission rules);
 *  TRAINER_E_CANCELLED; TRAINER_E_NOMEM. @since 0.1 */
TRAINER_API trainer_status
trainer_controller_reconcile(trainer_client* client, const char* namespace_name, const char* name,
                             const trainer_controller_reconcile_options* opts,
                             TRAINER_OWN trainer_buffer* out, trainer_error** err);

#ifdef __cplusplus
}
#endif

#endif /* TRAINER_CONTROLLER_H */
