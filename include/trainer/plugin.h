/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libtrainer C ABI, plugins: frameworks of your own (PaddlePaddle, an in-house launcher) added to
 * the plugin pipeline without rebuilding libtrainer, in C, C++, Go or Rust. Included from
 * trainer.h; follows its conventions (status codes, `trainer_error **err`, TRAINER_OWN,
 * borrowed inputs). docs/plugins.md is the guide, with a worked example.
 *
 * A plugin is a descriptor (`trainer_plugin_descriptor`): a name, user data, and one optional
 * callback per extension point of the pipeline (reference section 4, docs/framework.md):
 *
 *   validate                  admission checks of a TrainJob       reply: errors, warnings
 *   enforce_ml_policy         counts, env, ports, volumes          reply: info patch, trainJob
 * patch enforce_pod_group_policy  gang-scheduling labels/annotations   reply: info patch
 *   enforce_pod_spec          pod spec concerns without a policy   reply: info patch
 *   pre_build_sync            info vs the concrete template        reply: info patch
 *   build                     extra objects to create              reply: objects
 *   status                    refine the TrainJob status (cluster) reply: status patch
 *
 * Data crosses the boundary as JSON text, so the ABI stays the same as the model grows: every
 * callback receives one request document and may set one reply document (shapes in
 * docs/plugins.md). The request:
 *
 *   {"phase": "enforceMLPolicy",              one of the names above, camelCase
 *    "trainJob": {...},                       the TrainJob as the pipeline holds it (defaulted)
 *    "oldTrainJob": {...},                    validate on update only
 *    "info": {                                upstream's runtime.Info
 *      "labels": {...}, "annotations": {...},           JobSet labels/annotations
 *      "runtime": {"kind", "name", "labels", "annotations"},  the (Cluster)TrainingRuntime
 *      "runtimePolicy": {"mlPolicy": {...}, "podGroupPolicy": {...}},
 *      "scheduler": {"podLabels": {...}, "podAnnotations": {...}},
 *      "podSets": [{"name", "ancestor", "count", "initContainers", "containers", "volumes",
 *                   "endpoints", "singlePodRequests"}],   containers: name, image, command,
 *                                                          env, ports, volumeMounts
 *      "templateSpec": {"jobSetSpec": {...}}},
 *    "status": {...},                          status only: the status the controller derived
 *    "context": {"trainJobUID", "namespace", "ownerReference", "operatorNamespace",
 *                "featureGates": {"TrainJobStatus": false}}}
 *
 * The reply (every member optional; an absent reply changes nothing):
 *
 *   {"info": {...},       a patch of `info` with Kubernetes strategic-merge semantics and
 *                         upstream's identity rules: podSets and containers merge by `name`,
 *                         env by `name`, ports by `containerPort`, volumes by `name`,
 *                         volumeMounts by `mountPath`; maps merge; `null` deletes a key;
 *                         other lists are replaced
 *    "trainJob": {...},   enforce_ml_policy only: a JSON merge patch (RFC 7396) of the TrainJob;
 *                         it may change the `spec` only (metadata and status are refused)
 *    "errors": [{"type": "FieldValueInvalid", "field": "spec.trainer.numNodes",
 *                "value": 3, "detail": "..."}],        validate only: field errors
 *    "warnings": ["..."], validate only
 *    "objects": [{...}],  build only: objects to create, of namespaced kinds, in the TrainJob's
 *                         namespace, with no controller but the TrainJob; the namespace and the
 *                         controller ownerReference to the TrainJob are added where missing
 *    "status": {...}}     status only: a JSON merge patch (RFC 7396) of the status
 *
 * Which TrainJobs are a plugin's own is the plugin's decision, made from the request: the
 * convention is the runtime label `trainer.kubeflow.org/framework` (`info.runtime.labels`),
 * which upstream's runtimes carry (`torch`, `deepspeed`, `mlx`, ...); a plugin replies nothing
 * for TrainJobs that are not its own.
 *
 * Order: within each phase the built-in plugins run first, in the order of docs/framework.md,
 * then the added plugins in the order they were added. Enforce and build phases stop at the
 * first error; validation runs every plugin and reports all errors.
 *
 * Errors: a callback that returns a status other than TRAINER_OK fails the operation; its
 * message (trainer_plugin_reply_set_error) is reported as `plugin "<name>": <phase>: <message>`
 * with the status it returned (TRAINER_E_USER when that is not a TRAINER_E_* code). A reply
 * that is not JSON, or whose members have the wrong shape, fails with TRAINER_E_INVALID and a
 * message that names the plugin, the phase and the field path in the reply; it never crashes the
 * library. Field errors from `validate` are reported exactly like the built-in plugins' errors.
 * A reply that reaches outside its TrainJob (a trainJob patch of anything but `spec`; an object
 * of a cluster-scoped kind or a kind not known to be namespaced, in another namespace, or
 * controlled by another owner) fails with TRAINER_E_INVALID naming the plugin, the phase and
 * the field (docs/plugins.md, "What a plugin may change"). A reply is at most 4 MiB: a longer
 * one fails the callback with TRAINER_E_LIMIT, whatever status it returns.
 *
 * A callback has no time limit: the library waits for it, so it must bound its own waits and
 * return. A crash in a callback (a fault, abort(), an exception or panic unwinding out of it)
 * takes the host process down: the plugin runs in the host's address space.
 *
 * Thread-safety contract a plugin must meet: callbacks are called from any thread, and
 * concurrently (renders from several threads, the controller's workers), with the same
 * `user_data`. A plugin that keeps state in `user_data` synchronizes it itself. A callback must
 * not call back into the framework it belongs to. The request and reply are valid only during
 * the callback.
 */
#ifndef TRAINER_PLUGIN_H
#define TRAINER_PLUGIN_H

#ifndef TRAINER_H
#error "include trainer.h, which includes this header"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Versions ----------------------------------------------------------------------------- */

/** Plugin ABI version: a plugin built for another major version is refused; a plugin built for a
 *  newer minor version than the library's is refused too (its descriptor may have fields the
 *  library would ignore). Minor versions only append fields to the structs below. @since 0.1 */
#define TRAINER_PLUGIN_ABI_VERSION_MAJOR 1
#define TRAINER_PLUGIN_ABI_VERSION_MINOR 0
/** major * 65536 + minor, an unsigned constant (no casts, so C++ code built with
 *  -Wold-style-cast can use it). */
#define TRAINER_PLUGIN_ABI_VERSION \
  (TRAINER_PLUGIN_ABI_VERSION_MAJOR * 65536u + TRAINER_PLUGIN_ABI_VERSION_MINOR)

/* ---- Request and reply -------------------------------------------------------------------- */

/** The request document of one callback. Borrowed: valid only during the callback; its
 *  accessors may be called from the callback's thread only. @since 0.1 */
typedef struct trainer_plugin_request trainer_plugin_request;
/** Where a callback puts its reply. Borrowed: valid only during the callback. @since 0.1 */
typedef struct trainer_plugin_reply trainer_plugin_reply;

/** The whole request as JSON text (NUL-terminated; `*len` receives its length when `len` is not
 *  NULL), borrowed from the request. Never fails; "" for NULL. @since 0.1 */
TRAINER_API const char* trainer_plugin_request_json(const trainer_plugin_request* request,
                                                    size_t* len);
/** The value at JSON pointer `pointer` (RFC 6901, e.g. `/trainJob/spec/trainer/numNodes`,
 *  `/info/runtime/labels/trainer.kubeflow.org~1framework`) as compact JSON text (strings
 *  quoted), borrowed from the request; NULL when absent or `pointer` is malformed. @since 0.1 */
TRAINER_API const char* trainer_plugin_request_get(const trainer_plugin_request* request,
                                                   const char* pointer, size_t* len);
/** The string at `pointer`, unquoted, borrowed; NULL when absent or not a string. @since 0.1 */
TRAINER_API const char* trainer_plugin_request_get_string(const trainer_plugin_request* request,
                                                          const char* pointer);
/** The integer at `pointer` in `*out`; returns 1 when found and an integer, else 0 (`*out`
 *  untouched). @since 0.1 */
TRAINER_API int32_t trainer_plugin_request_get_int(const trainer_plugin_request* request,
                                                   const char* pointer, int64_t* out);

/** Sets the reply document (copied; parsed and checked when the callback returns). A second
 *  call replaces the first. Errors: TRAINER_E_INVALID_ARGUMENT (`reply` NULL, `json` NULL with
 *  len > 0); TRAINER_E_LIMIT (`len` over 4 MiB: nothing is read from `json`, any earlier reply
 *  is dropped, and the callback fails with TRAINER_E_LIMIT whatever it returns);
 *  TRAINER_E_NOMEM. @since 0.1 */
TRAINER_API trainer_status trainer_plugin_reply_set(trainer_plugin_reply* reply, const char* json,
                                                    size_t len);
/** Sets the message reported when the callback returns a failure status (copied; NULL is "").
 *  @since 0.1 */
TRAINER_API void trainer_plugin_reply_set_error(trainer_plugin_reply* reply, const char* message);

/** The functions above as a table, handed to a loaded plugin's entry point so that a plugin
 *  library need not link libtrainer (a Go or Rust cdylib calls through it). Static storage.
 *  @since 0.1 */
typedef struct trainer_plugin_host {
  uint32_t abi_version; /**< TRAINER_PLUGIN_ABI_VERSION of the library */
  const char* (*request_json)(const trainer_plugin_request* request, size_t* len);
  const char* (*request_get)(const trainer_plugin_request* request, const char* pointer,
                             size_t* len);
  const char* (*request_get_string)(const trainer_plugin_request* request, const char* pointer);
  int32_t (*request_get_int)(const trainer_plugin_request* request, const char* pointer,
                             int64_t* out);
  trainer_status (*reply_set)(trainer_plugin_reply* reply, const char* json, size_t len);
  void (*reply_set_error)(trainer_plugin_reply* reply, const char* message);
} trainer_plugin_host;

/** The host table of this library (what trainer_plugin_load() passes to entry points).
 *  Thread-safe. @since 0.1 */
TRAINER_API const trainer_plugin_host* trainer_plugin_host_table(void);

/* ---- Descriptor --------------------------------------------------------------------------- */

/** One extension point's callback. Returns TRAINER_OK, or a failure status with a message set
 *  through trainer_plugin_reply_set_error(). See the thread-safety contract above. @since 0.1 */
typedef trainer_status (*trainer_plugin_fn)(void* user_data, const trainer_plugin_request* request,
                                            trainer_plugin_reply* reply);

/** What a plugin is. Every callback may be NULL (the plugin takes no part in that phase).
 *  @since 0.1 */
typedef struct trainer_plugin_descriptor {
  uint32_t abi_version; /**< TRAINER_PLUGIN_ABI_VERSION the plugin was built for */
  const char* name;     /**< registry name, unique in a framework (copied) */
  void* user_data;      /**< passed to every callback */
  void (*user_data_free)(void* user_data); /**< called once when the plugin is freed; may be
                                                NULL */
  trainer_plugin_fn validate;
  trainer_plugin_fn enforce_ml_policy;
  trainer_plugin_fn enforce_pod_group_policy;
  trainer_plugin_fn enforce_pod_spec;
  trainer_plugin_fn pre_build_sync;
  trainer_plugin_fn build;
  trainer_plugin_fn status;
} trainer_plugin_descriptor;

/** The symbol a plugin library exports: `trainer_plugin_entry`, of this type. It is called once,
 *  at load, with the library's host table, and returns the plugin's descriptor (borrowed: the
 *  library copies it) or NULL to refuse (e.g. an incompatible host). @since 0.1 */
typedef const trainer_plugin_descriptor* (*trainer_plugin_entry_fn)(
    const trainer_plugin_host* host);
#define TRAINER_PLUGIN_ENTRY_SYMBOL "trainer_plugin_entry"

/* ---- Plugins ------------------------------------------------------------------------------ */

/** A plugin, in process or loaded from a shared library. Shareable once created (its callbacks
 *  must meet the contract above). Owned by the caller until added to a framework. @since 0.1 */
typedef struct trainer_plugin trainer_plugin;

/** A plugin from a descriptor in this process (the Go and Rust bindings register theirs this
 *  way). The descriptor is copied. On success the plugin owns `desc->user_data` and calls
 *  `desc->user_data_free` once when it is freed; on failure nothing is called and the caller
 *  still owns it.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`desc` or `out` NULL; a name that is NULL, empty, longer
 *  than 63 bytes or not of letters, digits, `-`, `_` and `.`); TRAINER_E_UNSUPPORTED (an
 *  `abi_version` this library does not support: the message says both versions);
 *  TRAINER_E_NOMEM. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_plugin_new(const trainer_plugin_descriptor* desc,
                                              TRAINER_OWN trainer_plugin** out,
                                              trainer_error** err);

/** Loads the shared library at `path` (dlopen, RTLD_NOW | RTLD_LOCAL), calls its
 *  `trainer_plugin_entry` with trainer_plugin_host_table() and makes a plugin of the descriptor
 *  it returns, as trainer_plugin_new(). The library is never unloaded (a Go or Rust runtime in
 *  it cannot be), also when the call fails after loading it.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`path` or `out` NULL); TRAINER_E_IO (the library cannot
 *  be loaded: the message has dlerror()'s text); TRAINER_E_NOT_FOUND (no `trainer_plugin_entry`
 *  symbol); TRAINER_E_USER (the entry returned NULL); TRAINER_E_UNSUPPORTED (built for another
 *  plugin ABI: `plugin /x/libpaddle.so was built for plugin ABI 2.0; this libtrainer supports
 *  1.0`); the errors of trainer_plugin_new(), each message naming `path`. Thread-safe.
 *  @since 0.1 */
TRAINER_API trainer_status trainer_plugin_load(const char* path, TRAINER_OWN trainer_plugin** out,
                                               trainer_error** err);

/** The plugin's name, borrowed (valid until it is freed); "" for NULL. @since 0.1 */
TRAINER_API const char* trainer_plugin_name(const trainer_plugin* plugin);
/** Frees a plugin that was not added to a framework. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_plugin_free(TRAINER_OWN trainer_plugin* plugin);

/* ---- Frameworks --------------------------------------------------------------------------- */

/** The plugins of one pipeline: the built-in plugins for a set of feature gates, then the added
 *  plugins. Pass it to trainer_render() (trainer_render_options.framework),
 *  trainer_document_validate_with(), trainer_cluster_apply() and trainer_controller_new(), so
 *  that a plugin's rules hold on every path. Movable while plugins are added; shareable once it
 *  is in use (any number of renders at once). Whoever takes it keeps its own reference, so it
 *  may be freed while a controller that took it runs. Owned by the caller; freed with
 *  trainer_framework_free(). @since 0.1 */
typedef struct trainer_framework trainer_framework;

/** A framework of the built-in plugins for `feature_gates` (upstream's `--feature-gates`
 *  syntax; NULL or "" all off), as trainer_render() uses without one.
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`out` NULL, malformed gates, unknown gate);
 *  TRAINER_E_NOMEM. Thread-safe. @since 0.1 */
TRAINER_API trainer_status trainer_framework_new(const char* feature_gates,
                                                 TRAINER_OWN trainer_framework** out,
                                                 trainer_error** err);

/** Adds `plugin` after the plugins already there. Ownership of `plugin` passes to the framework
 *  in every case (it is freed when the call fails).
 *  Errors: TRAINER_E_INVALID_ARGUMENT (`framework` or `plugin` NULL); TRAINER_E_INVALID (the
 *  name is a built-in plugin's, `plugin name "Torch" is taken by a built-in plugin`, or an
 *  added plugin's, `plugin name "Paddle" is already registered`; a second plugin with a
 *  `status` callback, `too many TrainJobStatus plugins are registered`). Not thread-safe with
 *  other uses of `framework`. @since 0.1 */
TRAINER_API trainer_status trainer_framework_add(trainer_framework* framework,
                                                 TRAINER_OWN trainer_plugin* plugin,
                                                 trainer_error** err);

/** Number of plugins, built-in and added (0 for NULL). @since 0.1 */
TRAINER_API size_t trainer_framework_plugin_count(const trainer_framework* framework);
/** Name of plugin `i` in framework order, borrowed; NULL when out of range. @since 0.1 */
TRAINER_API const char* trainer_framework_plugin_name(const trainer_framework* framework, size_t i);
/** Frees the caller's reference. NULL is a no-op. @since 0.1 */
TRAINER_API void trainer_framework_free(TRAINER_OWN trainer_framework* framework);

/** trainer_document_validate() with the plugins of `framework` (NULL: the built-in plugins,
 *  gates off, exactly trainer_document_validate()). Same errors and thread safety.
 *  @since 0.1 */
TRAINER_API trainer_status trainer_document_validate_with(const trainer_document* doc,
                                                          const trainer_document_list* context,
                                                          const trainer_framework* framework,
                                                          TRAINER_OWN trainer_validation** out,
                                                          trainer_error** err);

#ifdef __cplusplus
}
#endif

#endif /* TRAINER_PLUGIN_H */
