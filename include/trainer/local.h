/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, local execution section (trainer_run_*). Included by trainer.h; the
 * conventions stated at the top of trainer.h apply.
 *
 * A trainer_run executes the objects rendered for one TrainJob (the JobSet and its ConfigMaps
 * and Secrets, e.g. the output of trainer_render() or `trainerctl render`) on this machine: one
 * process per pod, in dependsOn order, with the cluster's env contract, until the TrainJob is
 * Complete or Failed. docs/local.md describes the pod model, the run folder and the lifecycle.
 * The image is not pulled: each container's command runs as a program of this host.
 */
#ifndef TRAINER_LOCAL_H
#define TRAINER_LOCAL_H

#include "trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How pods are isolated (values of trainer::local::Isolation). @since 0.1 */
#define TRAINER_ISOLATION_AUTO 0 /**< namespaces when permitted, else HOST with a warning */
#define TRAINER_ISOLATION_NAMESPACES \
  1                              /**< own mount/UTS/PID namespaces; else TRAINER_E_UNSUPPORTED */
#define TRAINER_ISOLATION_HOST 2 /**< no namespaces: hostnames rewritten to 127.0.0.1 */

/* Phases of a run (values of trainer::local::Phase). SUSPENDED, COMPLETE and FAILED are
 * terminal. @since 0.1 */
#define TRAINER_RUN_PENDING 0
#define TRAINER_RUN_RUNNING 1
#define TRAINER_RUN_SUSPENDED 2
#define TRAINER_RUN_COMPLETE 3
#define TRAINER_RUN_FAILED 4

/** Receives every line a pod writes, or a piece of one. `prefix` is the terminal prefix without
 *  brackets (`node-0-0`), `pod` the pod name, `text` the line without its newline (`len` bytes,
 *  not NUL-terminated in general). A line is not held until its newline: a `\r` not followed by
 *  `\n` (a progress bar's redraw) ends a piece and stays as its last byte, and a line longer than
 *  65536 bytes arrives in pieces of 65536 bytes (without a terminator; the next piece of the same
 *  pod and stream goes on with it), so neither a redraw nor an endless line waits (docs/local.md,
 *  "Logs"). All pointers are borrowed for the duration of the call. Called from the run's
 *  supervisor thread, never concurrently with itself and never under the run's
 *  lock: it may call trainer_run_status(), trainer_run_phase() and trainer_run_cancel(), but
 *  not trainer_run_wait() or trainer_run_free() on its own run. Returning anything other than
 *  TRAINER_OK cancels the run (as trainer_run_cancel()). @since 0.1 */
typedef trainer_status (*trainer_run_log_fn)(void* user_data, const char* prefix, const char* pod,
                                             int32_t is_stderr, const char* text, size_t len);

/** The TrainJobStatus progress endpoint for local runs (docs/local.md, "Progress"): an HTTPS
 *  server on loopback with a CA of its own, that issues the pods' projected service account
 *  tokens and takes their progress posts (`update_trainjob_status()` of the Kubeflow SDK) into
 *  the run's status as `trainerStatus`. Render the TrainJob with it
 *  (trainer_render_options.progress_server, and `TrainJobStatus=true` in feature_gates) and run
 *  the objects with it (trainer_run_options.progress_server). Any number of runs may share one;
 *  a run keeps it alive until the run is freed. Thread-safe. @since 0.1 */
typedef struct trainer_progress_server trainer_progress_server;

/** Starts a progress server listening on `bind_address` (NULL or "": 127.0.0.1) and `port`
 *  (0: a free one) and sets `*out` to a new handle owned by the caller. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`out` NULL, a bad address), TRAINER_E_IO (the port is taken),
 *  TRAINER_E_INTERNAL (OpenSSL). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_progress_server_start(const char* bind_address, uint16_t port,
                                                         TRAINER_OWN trainer_progress_server** out,
                                                         trainer_error** err);

/** The port it listens on; 0 for NULL. Thread-safe. @since 0.1 */
TRAINER_API uint16_t trainer_progress_server_port(const trainer_progress_server* server);

/** The PEM text of its CA certificate (what the pods verify it with), borrowed until the handle
 *  is freed; NULL for NULL. Thread-safe. @since 0.1 */
TRAINER_API const char* trainer_progress_server_ca_cert(const trainer_progress_server* server);

/** Releases the caller's handle. The server stops once no run started with it is left (runs
 *  hold it until trainer_run_free()). NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_progress_server_free(TRAINER_OWN trainer_progress_server* server);

/** Options of trainer_run_start(). @since 0.1 */
typedef struct trainer_run_options {
  uint32_t version;       /**< TRAINER_RUN_OPTIONS_VERSION */
  const char* run_dir;    /**< required, borrowed: the run folder (created; must not hold a run) */
  int32_t isolation;      /**< TRAINER_ISOLATION_* */
  const char* pod_helper; /**< borrowed; NULL: the installed `trainer-pod` helper (docs/local.md) */
  trainer_run_log_fn on_log;         /**< NULL: lines only go to the run folder's log files */
  void* log_user_data;               /**< passed to on_log */
  void (*log_user_data_free)(void*); /**< called once with log_user_data when the run is
                                          freed, or at once when trainer_run_start fails
                                          (not for NULL options or an unknown version,
                                          whose fields are not read); may be NULL */
  /** The progress server the objects were rendered with, borrowed for the call (the run keeps
   *  its own reference) [none: a projected service account token is refused with
   *  TRAINER_E_UNSUPPORTED and its field path]. Read only when `version` >= 2.
   *  @since 0.1, struct version 2 */
  const trainer_progress_server* progress_server;
} trainer_run_options;

/** Struct versions: 1 ends with `log_user_data_free`; 2 adds `progress_server`. */
#define TRAINER_RUN_OPTIONS_VERSION 2
#define TRAINER_RUN_OPTIONS_INIT \
  { TRAINER_RUN_OPTIONS_VERSION, NULL, TRAINER_ISOLATION_AUTO, NULL, NULL, NULL, NULL, NULL }

/** A running (or finished) local execution. Every function below may be called from any thread
 *  concurrently, except trainer_run_free(), which must be the last call on the handle.
 *  @since 0.1 */
typedef struct trainer_run trainer_run;

/** Starts executing `objects` (borrowed text: a YAML stream or JSON, one object per document or
 *  a `v1` List) and returns at once with `*out` set to a new run owned by the caller.
 *  Errors (nothing started, `*out` untouched, the run folder possibly created):
 *  TRAINER_E_INVALID_ARGUMENT (NULL objects/out/options.run_dir, unknown options version or
 *  isolation, a run folder that holds a previous run), TRAINER_E_PARSE, TRAINER_E_INVALID (the
 *  objects, with field paths), TRAINER_E_NOT_FOUND (a referenced ConfigMap/Secret/key, or the
 *  pod helper), TRAINER_E_UNSUPPORTED (fields without local meaning; namespaces required but not
 *  permitted), TRAINER_E_IO. `options` NULL is not allowed (run_dir is required). @since 0.1 */
TRAINER_API trainer_status trainer_run_start(const char* objects, size_t len,
                                             const trainer_run_options* options,
                                             TRAINER_OWN trainer_run** out, trainer_error** err);

/** Waits until the run is finished (SUSPENDED, COMPLETE or FAILED) and every pod process is
 *  gone, or until `timeout_ms` passed (negative: no limit). Stores the phase then in `*phase`
 *  (may be NULL). Returns TRAINER_OK when finished, TRAINER_E_TIMEOUT when the time passed
 *  first, TRAINER_E_INVALID_ARGUMENT for a NULL run. @since 0.1 */
TRAINER_API trainer_status trainer_run_wait(trainer_run* run, int64_t timeout_ms, int32_t* phase,
                                            trainer_error** err);

/** The current TRAINER_RUN_* phase; TRAINER_RUN_FAILED for NULL. Never blocks long. @since 0.1 */
TRAINER_API int32_t trainer_run_phase(const trainer_run* run);

/** The run's status as a JSON document in `*out` (caller frees with trainer_buffer_free()):
 *  TrainJob conditions, jobsStatus, trainerStatus (the latest progress post, with a progress
 *  server), restarts, counts and every pod (docs/local.md). Errors:
 *  TRAINER_E_INVALID_ARGUMENT (NULL run/out), TRAINER_E_NOMEM. @since 0.1 */
TRAINER_API trainer_status trainer_run_status(const trainer_run* run, trainer_buffer* out,
                                              trainer_error** err);

/** Stops every pod (SIGTERM, the pod's grace period, then SIGKILL); the run ends FAILED with
 *  reason `Cancelled` unless it had finished. Returns at once; NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_run_cancel(trainer_run* run);

/** Cancels the run if it is still going, waits until every pod process is gone, calls the log
 *  user_data_free, and frees the handle. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_run_free(trainer_run* run);

/** Reads the status document of a run folder written by any process (running or finished) into
 *  `*out`. A run whose executor process is gone without finishing it (SIGKILLed; told apart from
 *  a later process with the same pid by its start time) reads as phase `Failed` with a condition
 *  of reason `ExecutorLost`, its unfinished pods `Failed` with reason `ExecutorLost`, and
 *  `executorLost: true` (docs/local.md); the folder itself is not changed. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (NULL), TRAINER_E_NOT_FOUND (no run there), TRAINER_E_PARSE
 *  (unreadable state). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_run_read_status(const char* run_dir, trainer_buffer* out,
                                                   trainer_error** err);

/** "Pending", "Running", "Suspended", "Complete", "Failed"; "Unknown" for other values. Static
 *  storage. Thread-safe. @since 0.1 */
TRAINER_API const char* trainer_run_phase_name(int32_t phase);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRAINER_LOCAL_H */
