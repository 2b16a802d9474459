/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI: the only binary contract of libtrainer.
 *
 * Conventions (every function below follows them unless its comment says otherwise):
 * - Status: functions return `trainer_status`; TRAINER_OK (0) on success, a negative
 *   TRAINER_E_* code on failure. Codes are never renumbered; new ones are only appended.
 * - Errors: the last parameter `trainer_error **err` is optional. When non-NULL and the call
 *   fails, `*err` receives a new error object the caller owns and frees with
 *   trainer_error_free(); on success `*err` is set to NULL. Errors are never thread-local state.
 * - Inputs: `(const char *data, size_t len)` pairs are borrowed for the duration of the call;
 *   the library copies what it keeps. They need not be NUL-terminated.
 * - Outputs: text comes back in a caller-provided `trainer_buffer` (initialise it with
 *   TRAINER_BUFFER_INIT) and is released with trainer_buffer_free(), never free().
 * - Ownership transfer is marked with TRAINER_OWN; everything else is borrowed.
 * - `_free(NULL)` is always a no-op.
 * - No exception, panic or abort crosses this boundary: a C++ exception inside the library
 *   becomes TRAINER_E_INTERNAL or TRAINER_E_NOMEM.
 * - Thread safety: global functions are thread-safe. Each handle type states its class:
 *   "shareable" (immutable or internally synchronized: any number of threads at once),
 *   "movable" (any thread, one at a time).
 * - The exported symbol set is the same in every build; a feature compiled out returns
 *   TRAINER_E_UNSUPPORTED and is absent from trainer_features().
 */
#ifndef TRAINER_H
#define TRAINER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ------------------------------------------------------------------------------ */

#define TRAINER_VERSION_MAJOR 0
#define TRAINER_VERSION_MINOR 1
#define TRAINER_VERSION_PATCH 0
#define TRAINER_VERSION_STRING "0.1.0"
/** major * 10000 + minor * 100 + patch */
#define TRAINER_VERSION_NUMBER \
  (TRAINER_VERSION_MAJOR * 10000 + TRAINER_VERSION_MINOR * 100 + TRAINER_VERSION_PATCH)
/** True when the header is at least version a.b.c. */
#define TRAINER_VERSION_CHECK(a, b, c) (TRAINER_VERSION_NUMBER >= ((a)*10000 + (b)*100 + (c)))

/* ---- Export and annotation macros ---------------------------------------------------------- */

#if defined(_WIN32)
#if defined(TRAINER_BUILDING_LIBRARY)
#define TRAINER_API __declspec(dllexport)
#else
#define TRAINER_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define TRAINER_API __attribute__((visibility("default")))
#else
#define TRAINER_API
#endif

/** Marks a parameter or result whose ownership passes to the receiver. */
#define TRAINER_OWN

/* ---- Status codes ------------------------------------------------------------------------- */

/** Result of every fallible call. @since 0.1 */
typedef int trainer_status;

#define TRAINER_OK 0
#define TRAINER_E_INVALID_ARGUMENT (-1) /**< unusable argument (NULL where not allowed, ...) */
#define TRAINER_E_PARSE (-2)            /**< input is not well-formed YAML/JSON or mistyped */
#define TRAINER_E_INVALID (-3)          /**< input violates admission rules; see field errors */
#define TRAINER_E_LIMIT (-4)            /**< input exceeds a configured limit */
#define TRAINER_E_NOT_FOUND (-5)        /**< a referenced object does not exist */
#define TRAINER_E_UNSUPPORTED (-6)      /**< feature compiled out or not supported */
#define TRAINER_E_NOMEM (-7)            /**< allocation failed */
#define TRAINER_E_INTERNAL (-8)         /**< a bug in libtrainer */
#define TRAINER_E_USER (-9)             /**< a user callback reported failure */
#define TRAINER_E_IO (-10)              /**< an OS or network operation failed */
#define TRAINER_E_TIMEOUT (-11)         /**< an operation did not complete in time */
#define TRAINER_E_CANCELLED (-12)       /**< the caller cancelled the call (trainer_cancel_token) */
#define TRAINER_E_UNAUTHORIZED (-13)    /**< an API server refused the credentials (HTTP 401) */
#define TRAINER_E_FORBIDDEN (-14)       /**< an API server denied the request (HTTP 403) */
#define TRAINER_E_CONFLICT (-15)        /**< an API server reported a conflict (HTTP 409) */
#define TRAINER_E_SERVER (-16)          /**< any other error an API server answered */
#define TRAINER_E_FAILED (-17)          /**< what was awaited can no longer happen (Failed) */

/** Library version at run time (TRAINER_VERSION_NUMBER of the built library). Thread-safe.
 *  @since 0.1 */
TRAINER_API uint32_t trainer_version_number(void);
/** Library version string, static storage, never NULL. Thread-safe. @since 0.1 */
TRAINER_API const char* trainer_version_string(void);

/** Feature bits returned by trainer_features(). @since 0.1 */
#define TRAINER_FEATURE_MPI (1u << 0)  /**< Open MPI collectives backend compiled in */
#define TRAINER_FEATURE_NCCL (1u << 1) /**< CUDA/NCCL collectives backend compiled in */
/** Bitmask of TRAINER_FEATURE_* compiled into this library. Thread-safe. @since 0.1 */
TRAINER_API uint32_t trainer_features(void);

/** Short constant name of a status code ("TRAINER_E_PARSE"), static storage; "TRAINER_E_?"
 *  for unknown codes. Thread-safe. @since 0.1 */
TRAINER_API const char* trainer_status_name(trainer_status status);

/* ---- Buffers ------------------------------------------------------------------------------ */

/** Library-allocated bytes. `data` is NUL-terminated for convenience, `len` (without the NUL)
 *  is authoritative. Release with trainer_buffer_free(). @since 0.1 */
typedef struct trainer_buffer {
  char* data;
  size_t len;
} trainer_buffer;

#define TRAINER_BUFFER_INIT \
  { NULL, 0 }

/** Frees the bytes of `buf` (if any) and resets it to TRAINER_BUFFER_INIT. NULL is a no-op.
 *  Thread-safe for distinct buffers. @since 0.1 */
TRAINER_API void trainer_buffer_free(trainer_buffer* buf);

/* ---- Errors ------------------------------------------------------------------------------- */

/** An error: status code, message and, for TRAINER_E_INVALID/TRAINER_E_PARSE, the field
 *  violations. Immutable once returned, so shareable: its accessors may be called from any
 *  number of threads. Owned by the caller; freed with trainer_error_free(). The accessors below
 *  are thread-safe and never fail; the strings they return are valid until the error is freed.
 *  @since 0.1 */
typedef struct trainer_error trainer_error;

/** Frees an error. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_error_free(TRAINER_OWN trainer_error* err);
/** The status code of `err` (TRAINER_E_INVALID_ARGUMENT for NULL). @since 0.1 */
TRAINER_API trainer_status trainer_error_code(const trainer_error* err);
/** The message, borrowed from `err` (valid until it is freed); "" for NULL. @since 0.1 */
TRAINER_API const char* trainer_error_message(const trainer_error* err);
/** Number of field violations (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_error_field_count(const trainer_error* err);
/** Field path of violation `i` (`spec.trainer.numNodes`), borrowed; NULL if out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_error_field_path(const trainer_error* err, size_t i);
/** Kubernetes Go name of the type of violation `i` (`FieldValueInvalid`,
 *  `FieldValueRequired`, `FieldValueTypeInvalid`, ...), static storage; NULL if out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_error_field_type(const trainer_error* err, size_t i);
/** Offending value of violation `i` as compact JSON text (`0`, `"two"`, `{"a":1}`), borrowed;
 *  NULL if out of range or if the violation carries no value. Kubernetes omits the value from
 *  the text of Required/Forbidden/TooLong/Internal violations even when one is present here.
 *  @since 0.1 */
TRAINER_API const char* trainer_error_field_value(const trainer_error* err, size_t i);
/** Detail of violation `i` (may be ""), borrowed; NULL if out of range. @since 0.1 */
TRAINER_API const char* trainer_error_field_detail(const trainer_error* err, size_t i);
/** Full Kubernetes text of violation `i` (`field.Error.Error()`:
 *  `spec.trainer.numNodes: Invalid value: "two": expected int32`), borrowed; NULL if out of
 *  range. @since 0.1 */
TRAINER_API const char* trainer_error_field_string(const trainer_error* err, size_t i);

/** For an error an API server answered (trainer/cluster.h): its HTTP status code (404, 422,
 *  ...); 0 for every other error and for NULL. @since 0.1 */
TRAINER_API int32_t trainer_error_http_status(const trainer_error* err);
/** For an error an API server answered: its `Status.reason` (`NotFound`, `Invalid`,
 *  `AlreadyExists`, `Conflict`, `Forbidden`, ...), borrowed; "" when the server sent none, for
 *  every other error and for NULL. @since 0.1 */
TRAINER_API const char* trainer_error_reason(const trainer_error* err);

/* ---- Documents: parse, default, validate, encode -------------------------------------------- */

/** Limits applied when parsing untrusted text. A field left at 0 means "library default" (shown
 *  in brackets). Initialise with TRAINER_PARSE_OPTIONS_INIT or trainer_parse_options_init();
 *  fields are only ever appended, and `version` says which fields the caller's struct has: the
 *  library reads a field only when `version` is at least the version that added it (a caller
 *  built against an older header passes its older, shorter struct and gets the defaults of the
 *  newer fields). A `version` of 0 or above TRAINER_PARSE_OPTIONS_VERSION is refused with
 *  TRAINER_E_INVALID_ARGUMENT. Exceeding a limit is TRAINER_E_LIMIT with a message that names
 *  the limit and, where known, the line, column and field path. @since 0.1 */
typedef struct trainer_parse_options {
  uint32_t version;          /**< TRAINER_PARSE_OPTIONS_VERSION */
  size_t max_document_bytes; /**< whole input text [4 MiB] */
  size_t max_depth;          /**< nesting of maps/sequences [100] */
  size_t max_documents;      /**< documents in one YAML stream [1000] */
  size_t max_nodes;          /**< nodes after alias expansion, whole stream [1000000] */
  size_t max_aliases;        /**< alias (`*name`) references in the stream [10000] */
  /** Bytes of scalar text (keys and values) that YAML anchors and aliases may copy, whole
   *  stream [4 MiB]: an anchored node is charged once when it is defined and once more for
   *  every alias of it, before the copy is made, so memory stays within a fixed multiple of
   *  `max_document_bytes` + `max_alias_bytes` (docs/yaml.md). Exceeding it is TRAINER_E_LIMIT:
   *  `yaml: line 2, column 9: b[1]: anchors and aliases copy more than max_alias_bytes (16)
   *  bytes of scalar text`. Read only when `version` >= 2; a library that predates this field
   *  refuses version 2 (trainer_parse_options_init() returns TRAINER_E_INVALID_ARGUMENT),
   *  which tells a caller at run time. @since 0.1.0, struct version 2 */
  size_t max_alias_bytes;
} trainer_parse_options;

/** Struct versions: 1 ends with `max_aliases`; 2 adds `max_alias_bytes`. */
#define TRAINER_PARSE_OPTIONS_VERSION 2
#define TRAINER_PARSE_OPTIONS_INIT \
  { TRAINER_PARSE_OPTIONS_VERSION, 0, 0, 0, 0, 0, 0 }

/** Initialises `opts` like TRAINER_PARSE_OPTIONS_INIT for struct version `version`: sets
 *  `version` and zeroes the fields that version has, and writes nothing beyond them (a caller
 *  built against an older header passes its older version and its shorter struct).
 *  Errors: TRAINER_E_INVALID_ARGUMENT when `opts` is NULL or `version` is 0 or above
 *  TRAINER_PARSE_OPTIONS_VERSION. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_parse_options_init(trainer_parse_options* opts,
                                                      uint32_t version);

/** Output formats of trainer_document_encode(). @since 0.1 */
typedef int trainer_format;
#define TRAINER_FORMAT_JSON 0        /**< compact JSON, no trailing newline */
#define TRAINER_FORMAT_YAML 1        /**< one YAML document (block style), ends with a newline */
#define TRAINER_FORMAT_JSON_PRETTY 2 /**< JSON indented by two spaces */

/** The documents of one YAML stream or JSON text, in input order. Movable: usable from any
 *  thread, one thread at a time (this includes its documents). Owned by the caller; freed with
 *  trainer_document_list_free(). @since 0.1 */
typedef struct trainer_document_list trainer_document_list;

/** One document of a list. Borrowed from its list: valid until the list is freed, and never
 *  freed on its own. Same thread class as its list (movable, one thread at a time). Documents of
 *  the Trainer group `trainer.kubeflow.org` with kind TrainJob, TrainingRuntime,
 *  ClusterTrainingRuntime or OptimizationJob are held as typed objects; any other
 *  document is held as JSON.
 *  @since 0.1 */
typedef struct trainer_document trainer_document;

/** What trainer_document_validate() found besides errors: admission warnings (kubectl prints
 *  them as `Warning: <text>`). Shareable (immutable); owned by the caller; freed with
 *  trainer_validation_free(). @since 0.1 */
typedef struct trainer_validation trainer_validation;

/** Parses `data[0..len)`, a YAML stream (`---`-separated documents) or JSON text, into a new list
 *  in `*out` (empty and null documents are skipped, so the list may be empty; a `v1` `List`, as
 *  `kubectl get -o json` and `trainerctl validate -o json` print, contributes its items, as in
 *  `trainerctl validate` and trainer_render()). Typed kinds are
 *  decoded to the typed model here, so their type errors surface now, with a field path.
 *  No defaults are applied (see trainer_document_default()).
 *  `data` may be NULL only when `len` is 0. `opts` may be NULL (library defaults).
 *  `*out` is set to NULL on failure.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`out` NULL, `data` NULL with len > 0, bad `opts`
 *  version); TRAINER_E_PARSE (malformed YAML/JSON, invalid UTF-8, duplicate keys, or a typed
 *  document of the wrong shape: one field error names the path, e.g.
 *  `spec.trainer.numNodes: Invalid value: "two": expected int32`); TRAINER_E_LIMIT (a limit
 *  of `opts` exceeded; the message names it); TRAINER_E_NOMEM.
 *  Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_documents_parse(const char* data, size_t len,
                                                   const trainer_parse_options* opts,
                                                   TRAINER_OWN trainer_document_list** out,
                                                   trainer_error** err);

/** Frees a list and all its documents (their borrowed strings become invalid). NULL is a no-op.
 *  @since 0.1 */
TRAINER_API void trainer_document_list_free(TRAINER_OWN trainer_document_list* list);
/** Number of documents in `list` (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_document_list_count(const trainer_document_list* list);
/** Document `i` of `list`, borrowed (see trainer_document); NULL when `list` is NULL or `i` is
 *  out of range. @since 0.1 */
TRAINER_API trainer_document* trainer_document_list_get(trainer_document_list* list, size_t i);

/** `kind` of `doc`, borrowed; "" when absent or not a string, or when `doc` is NULL. The
 *  strings of these four accessors stay valid until `doc` is modified (trainer_document_default)
 *  or its list is freed. @since 0.1 */
TRAINER_API const char* trainer_document_kind(const trainer_document* doc);
/** `apiVersion` of `doc`, borrowed; "" when absent. @since 0.1 */
TRAINER_API const char* trainer_document_api_version(const trainer_document* doc);
/** `metadata.name` of `doc`, borrowed; "" when absent. @since 0.1 */
TRAINER_API const char* trainer_document_name(const trainer_document* doc);
/** `metadata.namespace` of `doc`, borrowed; "" when absent. @since 0.1 */
TRAINER_API const char* trainer_document_namespace(const trainer_document* doc);

/** Number of decoding warnings of `doc` (0 for NULL): Kubernetes' `unknown field "spec.foo"`
 *  for each field that is not in the typed schema (always 0 for untyped documents).
 *  @since 0.1 */
TRAINER_API size_t trainer_document_warning_count(const trainer_document* doc);
/** Decoding warning `i` of `doc`, borrowed (valid until the list is freed); NULL when out of
 *  range. @since 0.1 */
TRAINER_API const char* trainer_document_warning(const trainer_document* doc, size_t i);

/** Applies the CRD schema defaults to `doc` in place, as the API server does before admission
 *  (TrainJob: `suspend`, `managedBy`, `runtimeRef.apiGroup/kind`, ...; runtimes: MPI/Flux/
 *  coscheduling/Volcano policy defaults, JobSet `replicas`/`groupName`, ...; OptimizationJob:
 *  `direction`, `searchAlgorithm`, `type`, `numTrials`, `parallelTrials` and the TrainJob
 *  defaults in `trainJobTemplate.spec`). Untyped documents
 *  are left unchanged (TRAINER_OK). Idempotent.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`doc` NULL); TRAINER_E_NOMEM.
 *  Not thread-safe with other uses of the same list. @since 0.1 */
TRAINER_API trainer_status trainer_document_default(trainer_document* doc, trainer_error** err);

/** Validates `doc` with Kubeflow Trainer's admission rules (CRD schema + CEL rules, then the
 *  validating webhook with every plugin's rules), as the API server would on create: the one
 *  admission path that `trainerctl validate` and trainer_render() use, so they report the same
 *  field errors and warnings. Call trainer_document_default() first, on `doc` and on the
 *  runtimes of `context`: the API server validates and stores defaulted objects.
 *  - TrainJob: the schema/CEL rules; when they pass, the TrainJob webhook: a runtimeRef of an
 *    unregistered kind fails with `unsupported runtime: <Kind>.<group>` (TRAINER_E_INVALID, no
 *    field errors); the runtime it references is looked up in `context` (a TrainingRuntime of
 *    that name in the TrainJob's namespace, "default" when unset, or a ClusterTrainingRuntime of
 *    that name) and, when found, the TrainJob is checked against it and then by every plugin
 *    (Torch, MPI, XGBoost, Flux, JobSet, Volcano, ... rules; other documents of `context` are
 *    objects that exist in the cluster, e.g. a PriorityClass). A runtime that `context` lacks is
 *    no error: the TrainJob is admitted by its own rules and a warning names the runtime it was
 *    not checked against. But when `context` holds a TrainingRuntime of that name in another
 *    namespace only, the TrainJob is rejected with the webhook's `spec.runtimeRef` not-found
 *    error (and a warning says where that runtime is). `context` may be the list `doc` belongs
 *    to; NULL is an empty list.
 *  - TrainingRuntime / ClusterTrainingRuntime: the schema/CEL rules and the runtime webhook.
 *  - OptimizationJob: its schema/CEL rules; when they pass, its `trainJobTemplate`
 *    is admitted like a TrainJob in the OptimizationJob's namespace, errors reported under
 *    `spec.trainJobTemplate`.
 *  `out` (may be NULL) receives a new result, which the caller frees with
 *  trainer_validation_free(), when the call returns TRAINER_OK or TRAINER_E_INVALID, so warnings
 *  are available for rejected documents too; otherwise `*out` is set to NULL.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`doc` NULL); TRAINER_E_INVALID (rules violated: `*err`
 *  holds every field error, its message is Kubernetes' aggregate text, e.g.
 *  `spec.trainer.numProcPerNode: Invalid value: 0: ...` or `[a, b]`); TRAINER_E_UNSUPPORTED
 *  (`doc` is not one of the Trainer kinds); TRAINER_E_NOMEM.
 *  Thread-safe with other validations of the same lists; not with trainer_document_default()
 *  on them. @since 0.1 */
TRAINER_API trainer_status trainer_document_validate(const trainer_document* doc,
                                                     const trainer_document_list* context,
                                                     TRAINER_OWN trainer_validation** out,
                                                     trainer_error** err);

/** Frees a validation result. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_validation_free(TRAINER_OWN trainer_validation* validation);
/** Number of admission warnings (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_validation_warning_count(const trainer_validation* validation);
/** Warning `i`, borrowed (valid until `validation` is freed); NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_validation_warning(const trainer_validation* validation, size_t i);

/** Encodes `doc` as `fmt` text into `out`. Typed documents are written in upstream's field
 *  order with empty optional fields omitted; untyped documents keep their key order. YAML
 *  output quotes strings that would read back as another type, so parsing the output yields
 *  the same document again.
 *  `out` must be empty (TRAINER_BUFFER_INIT, or reset by trainer_buffer_free()); it is left
 *  untouched on failure.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`doc` or `out` NULL, `out` not empty, unknown `fmt`);
 *  TRAINER_E_NOMEM.
 *  Thread-safe with other encodings of the same list; not with trainer_document_default() on
 *  it. @since 0.1 */
TRAINER_API trainer_status trainer_document_encode(const trainer_document* doc, trainer_format fmt,
                                                   TRAINER_OWN trainer_buffer* out,
                                                   trainer_error** err);

/* ---- Render: TrainJob + runtime -> the objects the controller creates ------------------------ */

/** Options of trainer_render(). A pointer left NULL (or a string left "") means the default
 *  shown in brackets. Initialise with TRAINER_RENDER_OPTIONS_INIT or
 *  trainer_render_options_init(); fields are only ever appended. Every string is borrowed for
 *  the call and must be NUL-terminated. @since 0.1 */
typedef struct trainer_render_options {
  uint32_t version;                   /**< TRAINER_RENDER_OPTIONS_VERSION */
  const char* uid;                    /**< TrainJob UID used in owner references [the TrainJob's own
                                           `metadata.uid`, else a fresh random version 4 UUID] */
  const char* namespace_name;         /**< namespace of namespaced inputs that have none, as
                                           `kubectl --namespace`; an input in another namespace is
                                           refused [inputs without one are in "default"] */
  const char* feature_gates;          /**< upstream's `--feature-gates` syntax: comma-separated
                                           `Name=true|false` (known: `TrainJobStatus`) [all off] */
  const char* ssh_private_key;        /**< MPI: PEM text of the ECDSA P-521 private key for the SSH
                                           Secret [a fresh key pair] */
  const char* now;                    /**< RFC 3339 UTC time stamp used where a step needs the time
                                           [the system clock] */
  int32_t builtin_runtimes;           /**< non-zero: a ClusterTrainingRuntime that is not among the
                                           inputs may be one that ships with libtrainer [0] */
  const trainer_parse_options* parse; /**< limits for parsing the input [library defaults] */
  /** The plugins (trainer/plugin.h), borrowed for the call [the built-in plugins of
   *  `feature_gates`]. With a framework, `feature_gates` must be NULL or "": the framework's
   *  gates apply. Read only when `version` >= 2. @since 0.1, struct version 2 */
  const struct trainer_framework* framework;
  /** A local run's progress server (trainer/local.h), borrowed for the call: the render takes
   *  its port and CA (the TrainJobStatus plugin's env, token volume and `<job>-tls-config`,
   *  with `TrainJobStatus=true`), as the controller's are on a cluster [upstream's port 10443
   *  and the webhook Secret among the inputs]. Read only when `version` >= 3.
   *  @since 0.1, struct version 3 */
  const struct trainer_progress_server* progress_server;
} trainer_render_options;

/** Struct versions: 1 ends with `parse`; 2 adds `framework`; 3 adds `progress_server`. */
#define TRAINER_RENDER_OPTIONS_VERSION 3
#define TRAINER_RENDER_OPTIONS_INIT \
  { TRAINER_RENDER_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL }

/** Initialises `opts` like TRAINER_RENDER_OPTIONS_INIT for struct version `version`.
 *  Errors: TRAINER_E_INVALID_ARGUMENT when `opts` is NULL or `version` is not supported.
 *  Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_render_options_init(trainer_render_options* opts,
                                                       uint32_t version);

/** The objects a render produced, with its admission warnings. Shareable (immutable): its
 *  accessors may be called from any number of threads. Owned by the caller; freed with
 *  trainer_render_result_free(). Strings it hands out are borrowed and valid until it is freed.
 *  @since 0.1 */
typedef struct trainer_render_result trainer_render_result;

/** Renders the one TrainJob among the documents of `data[0..len)` (a YAML stream, or JSON text;
 *  a `v1` List contributes its items) as `trainerctl render` does: decode, CRD defaults,
 *  admission (CRD/CEL rules, webhooks, every plugin's validation), the runtime snapshot and
 *  the plugin pipeline. TrainJob, TrainingRuntime and ClusterTrainingRuntime of
 *  `trainer.kubeflow.org` are inputs; every other object is taken as one that already exists
 *  in the cluster (an existing Secret, PodGroup, JobSet, PriorityClass, snapshot ConfigMap).
 *  The TrainJob's `runtimeRef` is resolved among the inputs (and the built-in runtimes when
 *  `opts->builtin_runtimes` is set). `opts` may be NULL (all defaults). The call is a pure
 *  function of its inputs and options, except for the defaults that read the system (UID,
 *  clock, key pair): set those options for reproducible output.
 *  On success `*out` holds a new result: the objects in the order of docs/framework.md (none,
 *  with a reason, when the TrainJob is managed by another controller).
 *  On failure `*out` is set to NULL; admission warnings found before the failure are lost (use
 *  trainer_document_validate() to see them).
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`out` NULL, `data` NULL with len > 0, unknown options
 *  version, a malformed feature gate list or SSH private key, an unknown gate);
 *  TRAINER_E_PARSE (malformed input, or a typed document of the wrong shape, with its field
 *  path); TRAINER_E_LIMIT; TRAINER_E_INVALID (not exactly one TrainJob, an input in another
 *  namespace than `namespace_name`, or admission errors: `*err` holds every field error, e.g.
 *  `spec.trainer.numNodes: Invalid value: 0: ...`); TRAINER_E_NOT_FOUND (the referenced
 *  runtime is not among the inputs; the message says what was looked for); TRAINER_E_NOMEM.
 *  Thread-safe: distinct calls may run concurrently. @since 0.1 */
TRAINER_API trainer_status trainer_render(const char* data, size_t len,
                                          const trainer_render_options* opts,
                                          TRAINER_OWN trainer_render_result** out,
                                          trainer_error** err);

/** Frees a result. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_render_result_free(TRAINER_OWN trainer_render_result* result);
/** Number of rendered objects (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_render_result_count(const trainer_render_result* result);
/** Object `i` as compact JSON text (NUL-terminated), borrowed; NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_render_result_json(const trainer_render_result* result, size_t i);
/** `kind` of object `i` ("JobSet", "ConfigMap", ...), borrowed; NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_render_result_kind(const trainer_render_result* result, size_t i);
/** `apiVersion` of object `i`, borrowed; NULL when out of range. @since 0.1 */
TRAINER_API const char* trainer_render_result_api_version(const trainer_render_result* result,
                                                          size_t i);
/** `metadata.name` of object `i`, borrowed; NULL when out of range. @since 0.1 */
TRAINER_API const char* trainer_render_result_name(const trainer_render_result* result, size_t i);
/** `metadata.namespace` of object `i` ("" for cluster-scoped objects), borrowed; NULL when out
 *  of range. @since 0.1 */
TRAINER_API const char* trainer_render_result_namespace(const trainer_render_result* result,
                                                        size_t i);
/** Number of admission warnings of the render (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_render_result_warning_count(const trainer_render_result* result);
/** Warning `i` (kubectl prints it as `Warning: <text>`), borrowed; NULL when out of range.
 *  @since 0.1 */
TRAINER_API const char* trainer_render_result_warning(const trainer_render_result* result,
                                                      size_t i);
/** Why nothing was rendered (e.g. the TrainJob is managed by another controller), borrowed;
 *  "" when the objects were rendered, and for NULL. @since 0.1 */
TRAINER_API const char* trainer_render_result_skipped_reason(const trainer_render_result* result);

/** Encodes every object of `result` as `trainerctl render` prints them: TRAINER_FORMAT_YAML a
 *  YAML stream, one document per object, separated by `---` (empty text for no objects);
 *  TRAINER_FORMAT_JSON / TRAINER_FORMAT_JSON_PRETTY a `v1` `List` whose `items` are the objects.
 *  `out` must be empty (TRAINER_BUFFER_INIT); it is left untouched on failure.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`result` or `out` NULL, `out` not empty, unknown
 *  `fmt`); TRAINER_E_NOMEM. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_render_result_encode(const trainer_render_result* result,
                                                        trainer_format fmt,
                                                        TRAINER_OWN trainer_buffer* out,
                                                        trainer_error** err);

#ifdef __cplusplus
}
#endif

/* The data plane (trainer_comm_*) lives in its own section header. */
#include "trainer/collectives.h"
/* Local execution of rendered TrainJobs (trainer_run_*). */
#include "trainer/local.h"
/* A Kubernetes client and the TrainJob operations on a cluster (trainer_client,
 * trainer_cluster_*). */
#include "trainer/cluster.h"
/* libtrainer as the TrainJob controller: the loop and one reconcile (trainer_controller_*). */
#include "trainer/controller.h"
/* Plugins from outside the library and the framework that runs them (trainer_plugin_*,
 * trainer_framework_*). */
#include "trainer/plugin.h"
/* Training Operator v1 jobs and Katib Experiments to Trainer v2 (trainer_convert*). */
#include "trainer/convert.h"

#endif /* TRAINER_H */
