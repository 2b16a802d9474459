/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, cluster section: a Kubernetes client (trainer_client) and the TrainJob
 * operations on a cluster (trainer_cluster_*), the verbs of `trainerctl apply/get/wait/logs/
 * delete` (docs/cluster.md). Included by trainer.h; the conventions stated at the top of
 * trainer.h apply.
 *
 * Objects cross as JSON or YAML text. Every call that talks to the API server blocks the calling
 * thread until it is done, its time is up or the trainer_cancel_token in its options is
 * cancelled (from any other thread), which ends it promptly with TRAINER_E_CANCELLED.
 *
 * Errors an API server answered carry its HTTP status and `Status.reason`
 * (trainer_error_http_status(), trainer_error_reason()); the message is what kubectl prints
 * after its prefix (`trainjobs.trainer.kubeflow.org "x" not found`). The codes: 404
 * TRAINER_E_NOT_FOUND, 422 TRAINER_E_INVALID (with the server's field errors), 401
 * TRAINER_E_UNAUTHORIZED, 403 TRAINER_E_FORBIDDEN, 409 TRAINER_E_CONFLICT, other answers
 * TRAINER_E_SERVER; a request that ran out of time is TRAINER_E_TIMEOUT and a server that
 * cannot be reached TRAINER_E_IO (both with http status 0).
 */
#ifndef TRAINER_CLUSTER_H
#define TRAINER_CLUSTER_H

#include "trainer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Cancellation ----------------------------------------------------------------------- */

/** A cancellation signal for the blocking calls below: put it in a call's options, and call
 *  trainer_cancel_token_cancel() from any thread to end that call (and every other call
 *  holding the token) with TRAINER_E_CANCELLED; a call started with a cancelled token fails at
 *  once. A token cannot be reset. Shareable: every function below may be called from any
 *  number of threads at once, except trainer_cancel_token_free(), which must come after the
 *  last call that uses the token has returned. Owned by the caller. @since 0.1 */
typedef struct trainer_cancel_token trainer_cancel_token;

/** A new, not cancelled token in `*out` (set to NULL on failure). Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`out` NULL), TRAINER_E_NOMEM. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cancel_token_new(TRAINER_OWN trainer_cancel_token** out,
                                                    trainer_error** err);
/** Cancels `token`: calls using it return TRAINER_E_CANCELLED promptly (their transfers are
 *  woken, not polled). Idempotent; returns at once; NULL is a no-op. Any thread. @since 0.1 */
TRAINER_API void trainer_cancel_token_cancel(trainer_cancel_token* token);
/** 1 when `token` was cancelled, else 0 (0 for NULL). Any thread. @since 0.1 */
TRAINER_API int32_t trainer_cancel_token_cancelled(const trainer_cancel_token* token);
/** Frees a token. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_cancel_token_free(TRAINER_OWN trainer_cancel_token* token);

/* ---- Client ----------------------------------------------------------------------------- */

/** Receives a warning: an API server's `Warning` header (once per text and request), a local
 *  admission warning of trainer_cluster_apply() (`runtime "x" not found; ...`), or one of the
 *  configuration (`insecure-skip-tls-verify` in use, ...). `text` (`len` bytes, NUL-terminated
 *  too) is borrowed for the call. Called on the thread of the call that met the warning, so
 *  possibly from several threads at once when the client is used concurrently; it must not
 *  free the client. The return value is ignored (a warning never stops a call): return
 *  TRAINER_OK. @since 0.1 */
typedef trainer_status (*trainer_warning_fn)(void* user_data, const char* text, size_t len);

/** Receives one line of what the client recovers from by itself, as client-go logs it: a watch
 *  (or its list) that failed and is retried, with the cause and the wait before the next try
 *  (`watch of trainjobs.trainer.kubeflow.org in namespace "ns" failed, retrying in 1.2s: ...`),
 *  and a `Retry-After` retry with the wait really taken. `line` (`len` bytes, NUL-terminated
 *  too) is borrowed for the call. Called on the thread of the call that retries, so possibly
 *  from several threads at once when the client is used concurrently; it must not free the
 *  client (it may cancel a trainer_cancel_token). The return value is ignored (a log line
 *  never stops a call): return TRAINER_OK. @since 0.1.0, trainer_client_options version 2 */
typedef trainer_status (*trainer_client_log_fn)(void* user_data, const char* line, size_t len);

/** Options of trainer_client_new(). A pointer left NULL (or a string left "") and a number
 *  left 0 mean the default in brackets. Initialise with TRAINER_CLIENT_OPTIONS_INIT or
 *  trainer_client_options_init(); fields are only ever appended, and `version` says which
 *  fields the caller's struct has: the library reads a field only when `version` is at least
 *  the version that added it (a caller built against an older header passes its shorter struct
 *  and gets the defaults of the newer fields). A `version` of 0 or above
 *  TRAINER_CLIENT_OPTIONS_VERSION is refused with TRAINER_E_INVALID_ARGUMENT. Strings are
 *  borrowed for the call (NUL-terminated). @since 0.1 */
typedef struct trainer_client_options {
  uint32_t version;              /**< TRAINER_CLIENT_OPTIONS_VERSION */
  const char* kubeconfig;        /**< kubectl's `--kubeconfig`: only this file [`$KUBECONFIG`
                                      (`:`-separated, merged), else `~/.kube/config`, else the
                                      in-cluster service account] */
  const char* context;           /**< `--context` [the kubeconfig's `current-context`] */
  const char* namespace_name;    /**< `-n`: the namespace of calls that pass none [the
                                      context's namespace, else "default"] */
  int64_t request_timeout_ms;    /**< bound on each non-streaming request, retries included
                                      (`--request-timeout`) [30000] */
  double qps;                    /**< client-side rate limit in requests per second; negative:
                                      none [5] */
  int32_t burst;                 /**< rate limiter burst [10] */
  const char* user_agent;        /**< [`libtrainer/<version> (linux/<arch>)`] */
  trainer_warning_fn on_warning; /**< NULL: warnings are dropped */
  void* warning_user_data;       /**< passed to on_warning */
  void (*warning_user_data_free)(void*); /**< called once with warning_user_data when the
                                              client is freed, or at once when
                                              trainer_client_new() fails (not for NULL options
                                              or an unsupported version, whose fields are not
                                              read); may be NULL */
  /** Bound on the body of one response (one object, one page of a list, an error's Status),
   *  counted after gzip decoding [256 MiB]: a larger one is refused by its `Content-Length` or
   *  cut at the first byte past the bound, and the call fails with TRAINER_E_LIMIT naming the
   *  request and the limit (`GET "https://host:6443/api/...": the response exceeds the 1 KiB
   *  limit (ClientOptions::max_response_bytes); a list can be paged with ...`). Followed logs
   *  and watch streams are bounded per event instead (docs/cluster.md, "Limits"). A value
   *  above SIZE_MAX is TRAINER_E_INVALID_ARGUMENT. Read only when `version` >= 2; a library
   *  that predates this field refuses version 2 (trainer_client_options_init() returns
   *  TRAINER_E_INVALID_ARGUMENT), which tells a caller at run time. @since 0.1.0, struct
   *  version 2 */
  uint64_t max_response_bytes;
  /** Bound on one event (one object) of a watch stream [16 MiB]: a larger one ends
   *  trainer_cluster_watch() with TRAINER_E_LIMIT naming the request and the limit
   *  (`... a watch event exceeds the 16 MiB limit (ClientOptions::max_watch_event_bytes)`),
   *  without resuming. A value above SIZE_MAX is TRAINER_E_INVALID_ARGUMENT. Read only when
   *  `version` >= 2. @since 0.1.0, struct version 2 */
  uint64_t max_watch_event_bytes;
  /** The client's retry lines; NULL: dropped. Read only when `version` >= 2. @since 0.1.0,
   *  struct version 2 */
  trainer_client_log_fn on_log;
  void* log_user_data;               /**< passed to on_log; struct version 2 */
  void (*log_user_data_free)(void*); /**< called once with log_user_data when the client is
                                          freed, or at once when trainer_client_new() fails
                                          (not for NULL options or an unsupported version,
                                          whose fields are not read); may be NULL; struct
                                          version 2 */
} trainer_client_options;

/** Struct versions: 1 ends with `warning_user_data_free`; 2 adds `max_response_bytes`,
 *  `max_watch_event_bytes`, `on_log`, `log_user_data` and `log_user_data_free`. */
#define TRAINER_CLIENT_OPTIONS_VERSION 2
#define TRAINER_CLIENT_OPTIONS_INIT                                                                \
  {                                                                                                \
    TRAINER_CLIENT_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, NULL, 0, 0, NULL, \
        NULL, NULL                                                                                 \
  }

/** Initialises `opts` like TRAINER_CLIENT_OPTIONS_INIT for struct version `version`: sets
 *  `version` and the defaults of the fields that version has, and writes nothing beyond them
 *  (a caller built against an older header passes its older version and its shorter struct).
 *  Errors: TRAINER_E_INVALID_ARGUMENT when `opts` is NULL or `version` is 0 or above
 *  TRAINER_CLIENT_OPTIONS_VERSION. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_client_options_init(trainer_client_options* opts,
                                                       uint32_t version);

/** A Kubernetes API client: the configuration kubectl would use, one connection cache, one
 *  rate limiter, one credential cache and a cache of API discovery. Shareable: every function
 *  taking a client may be called from any number of threads at once, except
 *  trainer_client_free(), which must be the last call on it. Owned by the caller.
 *  @since 0.1 */
typedef struct trainer_client trainer_client;

/** Loads the configuration as kubectl does (kubeconfig, context, namespace; in-cluster files
 *  when no kubeconfig exists) and makes a client in `*out`, without contacting the server
 *  (so a server that is down shows at the first call). `opts` may be NULL (all defaults).
 *  Configuration warnings reach `on_warning` before this returns. `*out` is set to NULL on
 *  failure. Errors: TRAINER_E_INVALID_ARGUMENT (`out` NULL, unsupported options version, a
 *  context or cluster that does not exist, unusable TLS material: the message is kubectl's,
 *  e.g. `context "x" does not exist`; a limit above SIZE_MAX); TRAINER_E_NOT_FOUND (no kubeconfig
 * and not in a cluster); TRAINER_E_IO (an unreadable file); TRAINER_E_PARSE (an undecodable
 * kubeconfig); TRAINER_E_NOMEM. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_client_new(const trainer_client_options* opts,
                                              TRAINER_OWN trainer_client** out,
                                              trainer_error** err);
/** Frees a client (calls the warning and log user_data_free). No call on it may be running. NULL is
 * a no-op. @since 0.1 */
TRAINER_API void trainer_client_free(TRAINER_OWN trainer_client* client);
/** The namespace used where a call passes NULL or "" (the options', the context's, else
 *  "default"), borrowed from the client (valid until it is freed); "" for NULL. @since 0.1 */
TRAINER_API const char* trainer_client_namespace(const trainer_client* client);
/** The server URL the client talks to (`https://host:port`), borrowed from the client; "" for
 *  NULL. @since 0.1 */
TRAINER_API const char* trainer_client_server(const trainer_client* client);

/* ---- TrainJob operations ---------------------------------------------------------------- */

/* Every function below takes a `trainer_client*` (not NULL; TRAINER_E_INVALID_ARGUMENT
 * otherwise), may be called from any number of threads at once on one client, and fails with
 * TRAINER_E_CANCELLED when the options' `cancel` token is cancelled. A namespace passed as NULL
 * or "" is the client's (trainer_client_namespace()). `kind` names a Trainer kind as kubectl
 * accepts it: `trainjob`, `trainjobs`, `TrainJob`, `trainjobs.trainer.kubeflow.org`,
 * `trainingruntime(s)`, `clustertrainingruntime(s)`, `optimizationjob(s)`; any other name is
 * TRAINER_E_INVALID_ARGUMENT (`the server doesn't have a resource type "x"`). */

/** Options of trainer_cluster_apply(). NULL/""/0 mean the default in brackets; initialise with
 *  TRAINER_CLUSTER_APPLY_OPTIONS_INIT or trainer_cluster_apply_options_init(). @since 0.1 */
typedef struct trainer_cluster_apply_options {
  uint32_t version;             /**< TRAINER_CLUSTER_APPLY_OPTIONS_VERSION */
  const char* namespace_name;   /**< namespace of objects that name none [the client's] */
  const char* field_manager;    /**< server-side apply field manager ["trainerctl"] */
  int32_t dry_run;              /**< non-zero: server dry run (`dryRun=All`), nothing stored */
  int32_t force;                /**< non-zero: take over fields other managers own */
  trainer_cancel_token* cancel; /**< [none] */
  int64_t timeout_ms;           /**< bound on each request [the client's] */
  const trainer_parse_options* parse; /**< limits for parsing `data` [library defaults] */
  /** The plugins whose rules admission applies before anything is sent (trainer/plugin.h),
   *  borrowed for the call [the built-in plugins, gates off]. Read only when `version` >= 2.
   *  @since 0.1, struct version 2 */
  const struct trainer_framework* framework;
} trainer_cluster_apply_options;

/** Struct versions: 1 ends with `parse`; 2 adds `framework`. */
#define TRAINER_CLUSTER_APPLY_OPTIONS_VERSION 2
#define TRAINER_CLUSTER_APPLY_OPTIONS_INIT \
  { TRAINER_CLUSTER_APPLY_OPTIONS_VERSION, NULL, NULL, 0, 0, NULL, 0, NULL, NULL }

/** Initialises `opts` like TRAINER_CLUSTER_APPLY_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_apply_options_init(trainer_cluster_apply_options* opts,
                                                              uint32_t version);

/** The objects one trainer_cluster_apply() applied, in input order. Shareable (immutable);
 *  owned by the caller; freed with trainer_cluster_apply_result_free(). Strings it hands out
 *  are borrowed and valid until it is freed. @since 0.1 */
typedef struct trainer_cluster_apply_result trainer_cluster_apply_result;

/** Server-side applies every object of `data[0..len)` (a YAML stream or JSON text; a `v1`
 *  List contributes its items), in order, as `trainerctl apply -f` does. First every TrainJob
 *  and runtime is admitted locally with the rules of trainer_document_validate(), against the
 *  runtimes among the documents and those of the cluster: when any document is rejected the
 *  call fails with its field errors (TRAINER_E_INVALID, http status 0) and nothing is applied.
 *  Then each object is applied; the first server error stops the call (objects applied before
 *  it stay applied). `opts` may be NULL. On success `*out` holds a new result.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`client` or `out` NULL, `data` NULL with len > 0,
 *  unsupported options version); TRAINER_E_PARSE; TRAINER_E_LIMIT; TRAINER_E_INVALID (local
 *  admission or the server's 422, with field errors); the server's errors (see the top of this
 *  header); TRAINER_E_CANCELLED; TRAINER_E_NOMEM. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_apply(trainer_client* client, const char* data,
                                                 size_t len,
                                                 const trainer_cluster_apply_options* opts,
                                                 TRAINER_OWN trainer_cluster_apply_result** out,
                                                 trainer_error** err);
/** Frees a result. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_cluster_apply_result_free(
    TRAINER_OWN trainer_cluster_apply_result* result);
/** Number of applied objects (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_cluster_apply_result_count(const trainer_cluster_apply_result* result);
/** kubectl's reference of object `i`, `trainjob.trainer.kubeflow.org/mnist`, borrowed; NULL
 *  when out of range. @since 0.1 */
TRAINER_API const char* trainer_cluster_apply_result_ref(const trainer_cluster_apply_result* result,
                                                         size_t i);
/** Object `i` as the server returned it, compact JSON, borrowed; NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_cluster_apply_result_json(
    const trainer_cluster_apply_result* result, size_t i);

/** Options of trainer_cluster_get() and trainer_cluster_list(). @since 0.1 */
typedef struct trainer_cluster_get_options {
  uint32_t version;             /**< TRAINER_CLUSTER_GET_OPTIONS_VERSION */
  const char* label_selector;   /**< list only: `-l` [every object] */
  int32_t all_namespaces;       /**< list only: non-zero lists every namespace (`-A`) */
  trainer_cancel_token* cancel; /**< [none] */
  int64_t timeout_ms;           /**< bound on each request [the client's] */
} trainer_cluster_get_options;

#define TRAINER_CLUSTER_GET_OPTIONS_VERSION 1
#define TRAINER_CLUSTER_GET_OPTIONS_INIT \
  { TRAINER_CLUSTER_GET_OPTIONS_VERSION, NULL, 0, NULL, 0 }

/** Initialises `opts` like TRAINER_CLUSTER_GET_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_get_options_init(trainer_cluster_get_options* opts,
                                                            uint32_t version);

/** One object of `kind` named `name` in `namespace_name` (ignored for cluster-scoped kinds),
 *  as `fmt` text (TRAINER_FORMAT_*) in `out`, which must be empty (TRAINER_BUFFER_INIT) and is
 *  left untouched on failure. `opts` may be NULL. Errors: TRAINER_E_INVALID_ARGUMENT (NULL
 *  `client`/`kind`/`name`/`out`, `out` not empty, unknown `fmt` or kind);
 *  TRAINER_E_NOT_FOUND (`trainjobs.trainer.kubeflow.org "x" not found`, http status 404);
 *  the server's errors; TRAINER_E_CANCELLED; TRAINER_E_NOMEM. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_get(trainer_client* client, const char* kind,
                                               const char* namespace_name, const char* name,
                                               const trainer_cluster_get_options* opts,
                                               trainer_format fmt, TRAINER_OWN trainer_buffer* out,
                                               trainer_error** err);

/** Every object of `kind` in `namespace_name` (or every namespace with `all_namespaces`), as
 *  one `<Kind>List` (`apiVersion`, `kind`, `metadata.resourceVersion`, `items`) in `fmt` text
 *  in `out` (empty on entry; untouched on failure). Every page is fetched. `opts` may be NULL.
 *  Errors as trainer_cluster_get(), without TRAINER_E_NOT_FOUND for an empty list. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_list(trainer_client* client, const char* kind,
                                                const char* namespace_name,
                                                const trainer_cluster_get_options* opts,
                                                trainer_format fmt, TRAINER_OWN trainer_buffer* out,
                                                trainer_error** err);

/** What a watch or logs callback returns: CONTINUE for more; STOP ends the call with
 *  TRAINER_OK; a negative value ends it with TRAINER_E_USER. @since 0.1 */
#define TRAINER_CALLBACK_CONTINUE 0
#define TRAINER_CALLBACK_STOP 1

/** Receives one watch event: `type` is `ADDED`, `MODIFIED`, `DELETED` or `BOOKMARK`, `object`
 *  the TrainJob (`len` bytes of compact JSON, NUL-terminated too). Both are borrowed for the
 *  call. Called on the thread of trainer_cluster_watch(), never concurrently with itself.
 *  Returns TRAINER_CALLBACK_CONTINUE, TRAINER_CALLBACK_STOP or a negative status. @since 0.1 */
typedef trainer_status (*trainer_cluster_watch_fn)(void* user_data, const char* type,
                                                   const char* object, size_t len);

/** Options of trainer_cluster_watch(). @since 0.1 */
typedef struct trainer_cluster_watch_options {
  uint32_t version;             /**< TRAINER_CLUSTER_WATCH_OPTIONS_VERSION */
  const char* name;             /**< watch only this TrainJob [every TrainJob] */
  const char* label_selector;   /**< [every TrainJob] */
  int32_t all_namespaces;       /**< non-zero: every namespace */
  const char* resource_version; /**< changes after this version [the current TrainJobs
                                     first, as ADDED events, then the changes] */
  trainer_cancel_token* cancel; /**< [none: the watch ends only through the callback] */
  int64_t timeout_ms;           /**< bound on each non-streaming request [the client's] */
} trainer_cluster_watch_options;

#define TRAINER_CLUSTER_WATCH_OPTIONS_VERSION 1
#define TRAINER_CLUSTER_WATCH_OPTIONS_INIT \
  { TRAINER_CLUSTER_WATCH_OPTIONS_VERSION, NULL, NULL, 0, NULL, NULL, 0 }

/** Initialises `opts` like TRAINER_CLUSTER_WATCH_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_watch_options_init(trainer_cluster_watch_options* opts,
                                                              uint32_t version);

/** Watches TrainJobs in `namespace_name` and calls `fn` for each event, until `fn` returns
 *  TRAINER_CALLBACK_STOP (then TRAINER_OK), a negative value (TRAINER_E_USER), the token is
 *  cancelled (TRAINER_E_CANCELLED) or an error the watch cannot recover from (403, ...). A
 *  dropped connection is resumed from the last version seen; a version the server compacted
 *  (410) relists and delivers what changed meanwhile. `user_data` is only used during the call.
 *  `opts` may be NULL. Errors: TRAINER_E_INVALID_ARGUMENT (`client` or `fn` NULL, unsupported
 *  options version); TRAINER_E_USER; the server's errors; TRAINER_E_CANCELLED. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_watch(trainer_client* client, const char* namespace_name,
                                                 const trainer_cluster_watch_options* opts,
                                                 trainer_cluster_watch_fn fn, void* user_data,
                                                 trainer_error** err);

/** Options of trainer_cluster_wait(). @since 0.1 */
typedef struct trainer_cluster_wait_options {
  uint32_t version;             /**< TRAINER_CLUSTER_WAIT_OPTIONS_VERSION */
  const char* status;           /**< the condition status waited for ["True"] */
  trainer_cancel_token* cancel; /**< [none] */
  int64_t timeout_ms;           /**< bound on each non-streaming request [the client's] */
} trainer_cluster_wait_options;

#define TRAINER_CLUSTER_WAIT_OPTIONS_VERSION 1
#define TRAINER_CLUSTER_WAIT_OPTIONS_INIT \
  { TRAINER_CLUSTER_WAIT_OPTIONS_VERSION, NULL, NULL, 0 }

/** Initialises `opts` like TRAINER_CLUSTER_WAIT_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_wait_options_init(trainer_cluster_wait_options* opts,
                                                             uint32_t version);

/** Waits until the condition `condition` of TrainJob `name` (`Complete`, `Failed`,
 *  `Suspended` or any type, compared case-insensitively) has the options' status, as
 *  `kubectl wait --for=condition=...` does, for at most `wait_timeout_ms` (0: check once;
 *  negative: no bound but the cancel token). The TrainJob at that moment goes to `out` as
 *  compact JSON (`out` empty on entry; untouched on failure). `opts` may be NULL.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (NULL `client`/`name`/`condition`/`out`, `out` not
 *  empty, unsupported options version); TRAINER_E_TIMEOUT (`timed out waiting for the
 *  condition on trainjobs/x`, http status 0); TRAINER_E_NOT_FOUND (the TrainJob does not exist
 *  or was deleted meanwhile); TRAINER_E_FAILED (waiting for another condition than Failed, the
 *  TrainJob's Failed condition became True; the message names its reason); the server's
 *  errors; TRAINER_E_CANCELLED. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_wait(trainer_client* client, const char* namespace_name,
                                                const char* name, const char* condition,
                                                int64_t wait_timeout_ms,
                                                const trainer_cluster_wait_options* opts,
                                                TRAINER_OWN trainer_buffer* out,
                                                trainer_error** err);

/** Receives a chunk of a pod's log: `pod` (NUL-terminated) names the pod, `data` holds `len`
 *  bytes (not NUL-terminated, not split at lines). Both are borrowed for the call. Never
 *  called concurrently with itself, but with `follow` and several pods possibly from threads of
 *  the library. Returns TRAINER_CALLBACK_CONTINUE, TRAINER_CALLBACK_STOP or a negative status.
 *  @since 0.1 */
typedef trainer_status (*trainer_cluster_logs_fn)(void* user_data, const char* pod,
                                                  const char* data, size_t len);

/** Options of trainer_cluster_logs(): which pods of the TrainJob's JobSet, which container.
 *  @since 0.1 */
typedef struct trainer_cluster_logs_options {
  uint32_t version;             /**< TRAINER_CLUSTER_LOGS_OPTIONS_VERSION */
  int32_t node;                 /**< the trainer node index (`--node N`); negative: [the
                                     replicated job's pods] */
  const char* replicated_job;   /**< [`node` when the JobSet has it, else every pod] */
  int32_t all;                  /**< non-zero: every pod of the TrainJob */
  const char* container;        /**< [`node` for trainer pods, else the only container] */
  int32_t follow;               /**< non-zero: stream until the containers end */
  int64_t tail_lines;           /**< the last lines only; negative: [the whole log] */
  int64_t since_seconds;        /**< newer lines only; negative or 0: [the whole log] */
  trainer_cancel_token* cancel; /**< [none] */
  int64_t timeout_ms;           /**< bound on each non-streaming request [the client's] */
} trainer_cluster_logs_options;

#define TRAINER_CLUSTER_LOGS_OPTIONS_VERSION 1
#define TRAINER_CLUSTER_LOGS_OPTIONS_INIT \
  { TRAINER_CLUSTER_LOGS_OPTIONS_VERSION, -1, NULL, 0, NULL, 0, -1, -1, NULL, 0 }

/** Initialises `opts` like TRAINER_CLUSTER_LOGS_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_logs_options_init(trainer_cluster_logs_options* opts,
                                                             uint32_t version);

/** Streams the logs of TrainJob `name`'s pods to `fn` (several pods one after another, or
 *  concurrently with `follow`), until they end, `fn` returns TRAINER_CALLBACK_STOP (then
 *  TRAINER_OK) or a negative value (TRAINER_E_USER), or the token is cancelled. `user_data` is
 *  only used during the call. `opts` may be NULL. Errors: TRAINER_E_INVALID_ARGUMENT (NULL
 *  `client`/`name`/`fn`, unsupported options version); TRAINER_E_NOT_FOUND (no pod of the
 *  TrainJob matches); TRAINER_E_USER; the server's errors; TRAINER_E_CANCELLED. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_logs(trainer_client* client, const char* namespace_name,
                                                const char* name,
                                                const trainer_cluster_logs_options* opts,
                                                trainer_cluster_logs_fn fn, void* user_data,
                                                trainer_error** err);

/** Deletion propagation (`propagationPolicy`). @since 0.1 */
#define TRAINER_PROPAGATION_BACKGROUND \
  0 /**< the object first, dependents by the GC (kubectl's default) */
#define TRAINER_PROPAGATION_FOREGROUND 1 /**< dependents (the JobSet, its pods) first */
#define TRAINER_PROPAGATION_ORPHAN 2     /**< dependents are left */

/** Options of trainer_cluster_delete(). @since 0.1 */
typedef struct trainer_cluster_delete_options {
  uint32_t version;             /**< TRAINER_CLUSTER_DELETE_OPTIONS_VERSION */
  int32_t propagation;          /**< TRAINER_PROPAGATION_* [BACKGROUND] */
  int32_t dry_run;              /**< non-zero: server dry run, nothing deleted */
  trainer_cancel_token* cancel; /**< [none] */
  int64_t timeout_ms;           /**< bound on the request [the client's] */
} trainer_cluster_delete_options;

#define TRAINER_CLUSTER_DELETE_OPTIONS_VERSION 1
#define TRAINER_CLUSTER_DELETE_OPTIONS_INIT \
  { TRAINER_CLUSTER_DELETE_OPTIONS_VERSION, TRAINER_PROPAGATION_BACKGROUND, 0, NULL, 0 }

/** Initialises `opts` like TRAINER_CLUSTER_DELETE_OPTIONS_INIT. Errors:
 *  TRAINER_E_INVALID_ARGUMENT (`opts` NULL, unsupported `version`). Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_delete_options_init(trainer_cluster_delete_options* opts,
                                                               uint32_t version);

/** Deletes the object of `kind` named `name`. The object may stay visible while finalizers or
 *  foreground deletion hold it. `opts` may be NULL. Errors: TRAINER_E_INVALID_ARGUMENT (NULL
 *  `client`/`kind`/`name`, unknown kind or propagation, unsupported options version);
 *  TRAINER_E_NOT_FOUND; the server's errors; TRAINER_E_CANCELLED. @since 0.1 */
TRAINER_API trainer_status trainer_cluster_delete(trainer_client* client, const char* kind,
                                                  const char* namespace_name, const char* name,
                                                  const trainer_cluster_delete_options* opts,
                                                  trainer_error** err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRAINER_CLUSTER_H */
