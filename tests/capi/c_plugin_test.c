/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Plugins through the C ABI (trainer/plugin.h): an in-process plugin made with
 * trainer_plugin_new, loaded plugin libraries (trainer_plugin_load), the framework that holds
 * them, and the framework on the render and validate paths, with every refusal plugin.h names.
 * The plugin's callbacks read the request and write the reply with the exported accessors only.
 * Compiled as C11 with -pedantic-errors and linked against libtrainer.so only.
 */
#define _POSIX_C_SOURCE 200809L

#include "c_check.h"
#include "trainer.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(TRAINER_TEST_PLUGIN_MODULE) || !defined(TRAINER_TEST_NO_ENTRY_MODULE)
#error "TRAINER_TEST_PLUGIN_MODULE and TRAINER_TEST_NO_ENTRY_MODULE must be defined"
#endif

static void c_check_contains(const char* file, int line, const char* haystack, const char* needle,
                             int expected) {
  if (haystack == NULL || (strstr(haystack, needle) != NULL) != expected) {
    fprintf(stderr, "%s:%d: expected %s\n  %s\nin\n  %s\n", file, line,
            expected ? "to find" : "not to find", needle, haystack == NULL ? "(NULL)" : haystack);
    exit(1);
  }
}
#define CHECK_CONTAINS(haystack, needle) \
  c_check_contains(__FILE__, __LINE__, (haystack), (needle), 1)
#define CHECK_LACKS(haystack, needle) c_check_contains(__FILE__, __LINE__, (haystack), (needle), 0)

/* A ClusterTrainingRuntime `name` labelled trainer.kubeflow.org/framework=`framework`, with one
 * replicated job `node` whose container is `node`. */
#define RUNTIME_YAML(name, framework)                                      \
  "apiVersion: trainer.kubeflow.org/v1alpha1\n"                            \
  "kind: ClusterTrainingRuntime\n"                                         \
  "metadata:\n"                                                            \
  "  name: " name                                                          \
  "\n"                                                                     \
  "  labels:\n"                                                            \
  "    trainer.kubeflow.org/framework: " framework                         \
  "\n"                                                                     \
  "spec:\n"                                                                \
  "  mlPolicy:\n"                                                          \
  "    numNodes: 1\n"                                                      \
  "  template:\n"                                                          \
  "    spec:\n"                                                            \
  "      replicatedJobs:\n"                                                \
  "        - name: node\n"                                                 \
  "          template:\n"                                                  \
  "            metadata:\n"                                                \
  "              labels:\n"                                                \
  "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n" \
  "            spec:\n"                                                    \
  "              template:\n"                                              \
  "                spec:\n"                                                \
  "                  containers:\n"                                        \
  "                    - name: node\n"                                     \
  "                      image: example.com/trainer:1\n"

/* A TrainJob `job` on ClusterTrainingRuntime `runtime` with `nodes` nodes. */
#define TRAINJOB_YAML(runtime, nodes)           \
  "apiVersion: trainer.kubeflow.org/v1alpha1\n" \
  "kind: TrainJob\n"                            \
  "metadata:\n"                                 \
  "  name: job\n"                               \
  "  namespace: default\n"                      \
  "spec:\n"                                     \
  "  runtimeRef:\n"                             \
  "    name: " runtime                          \
  "\n"                                          \
  "  trainer:\n"                                \
  "    numNodes: " nodes "\n"

#define RUNTIMES                                                                       \
  RUNTIME_YAML("paddle-distributed", "paddle")                                         \
  "---\n" RUNTIME_YAML("torch-distributed", "torch") "---\n" RUNTIME_YAML("loaded-rt", \
                                                                          "loaded") "---\n"

static const char kPaddleJob[] = RUNTIMES TRAINJOB_YAML("paddle-distributed", "2");
static const char kTorchJob[] = RUNTIMES TRAINJOB_YAML("torch-distributed", "2");
static const char kLoadedJob[] = RUNTIMES TRAINJOB_YAML("loaded-rt", "2");
static const char kTooBigPaddleJob[] = RUNTIMES TRAINJOB_YAML("paddle-distributed", "8");

static const char kFrameworkLabel[] = "/info/runtime/labels/trainer.kubeflow.org~1framework";

/* ---- The in-process plugin ------------------------------------------------------------ */

/* The user data of one plugin: what it does, and how often it was freed. */
typedef struct paddle_state {
  int frees;
  int fail; /* enforce_ml_policy fails with "boom" */
} paddle_state;

static void paddle_free(void* user_data) {
  ((paddle_state*)user_data)->frees++;
}

static int is_paddle(const trainer_plugin_request* request) {
  const char* framework = trainer_plugin_request_get_string(request, kFrameworkLabel);
  return framework != NULL && strcmp(framework, "paddle") == 0;
}

/* At most 4 nodes on a Paddle runtime. */
static trainer_status paddle_validate(void* user_data, const trainer_plugin_request* request,
                                      trainer_plugin_reply* reply) {
  static const char kReject[] =
      "{\"errors\":[{\"type\":\"FieldValueInvalid\",\"field\":\"spec.trainer.numNodes\","
      "\"value\":8,\"detail\":\"paddle supports at most 4 nodes\"}]}";
  int64_t nodes = 0;
  (void)user_data;
  if (!is_paddle(request)) return TRAINER_OK;
  if (!trainer_plugin_request_get_int(request, "/trainJob/spec/trainer/numNodes", &nodes)) {
    return TRAINER_OK;
  }
  if (nodes <= 4) return TRAINER_OK;
  return trainer_plugin_reply_set(reply, kReject, sizeof kReject - 1);
}

/* PADDLE_TRAINERS_NUM=<numNodes> on the `node` container of a Paddle runtime's TrainJob. */
static trainer_status paddle_enforce(void* user_data, const trainer_plugin_request* request,
                                     trainer_plugin_reply* reply) {
  const paddle_state* state = (const paddle_state*)user_data;
  char patch[256];
  int64_t nodes = 0;
  int n;
  if (!is_paddle(request)) return TRAINER_OK;
  if (state->fail) {
    trainer_plugin_reply_set_error(reply, "boom");
    return TRAINER_E_USER;
  }
  CHECK(trainer_plugin_request_get_int(request, "/trainJob/spec/trainer/numNodes", &nodes) == 1);
  n = snprintf(patch, sizeof patch,
               "{\"info\":{\"podSets\":[{\"name\":\"node\",\"containers\":[{\"name\":\"node\","
               "\"env\":[{\"name\":\"PADDLE_TRAINERS_NUM\",\"value\":\"%d\"}]}]}]}}",
               (int)nodes);
  CHECK(n > 0 && (size_t)n < sizeof patch);
  return trainer_plugin_reply_set(reply, patch, (size_t)n);
}

static trainer_status noop_status(void* user_data, const trainer_plugin_request* request,
                                  trainer_plugin_reply* reply) {
  (void)user_data;
  (void)request;
  (void)reply;
  return TRAINER_OK;
}

static trainer_plugin_descriptor paddle_descriptor(const char* name, paddle_state* state) {
  trainer_plugin_descriptor desc;
  memset(&desc, 0, sizeof desc);
  desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
  desc.name = name;
  desc.user_data = state;
  desc.user_data_free = paddle_free;
  desc.validate = paddle_validate;
  desc.enforce_ml_policy = paddle_enforce;
  return desc;
}

static trainer_plugin* new_plugin(const trainer_plugin_descriptor* desc) {
  trainer_plugin* plugin = SENTINEL(trainer_plugin);
  trainer_error* err = SENTINEL(trainer_error);
  CHECK_STATUS(trainer_plugin_new(desc, &plugin, &err), TRAINER_OK, err);
  CHECK(err == NULL && plugin != NULL);
  return plugin;
}

static trainer_framework* new_framework(const char* gates) {
  trainer_framework* framework = SENTINEL(trainer_framework);
  trainer_error* err = SENTINEL(trainer_error);
  CHECK_STATUS(trainer_framework_new(gates, &framework, &err), TRAINER_OK, err);
  CHECK(err == NULL && framework != NULL);
  return framework;
}

static void add_ok(trainer_framework* framework, trainer_plugin* plugin) {
  trainer_error* err = SENTINEL(trainer_error);
  CHECK_STATUS(trainer_framework_add(framework, plugin, &err), TRAINER_OK, err);
  CHECK(err == NULL);
}

/* ---- Render helpers ------------------------------------------------------------------- */

static trainer_render_options options_with(const trainer_framework* framework) {
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  opts.uid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";
  opts.now = "2025-01-01T00:00:00Z";
  opts.framework = framework;
  return opts;
}

/* The result of the last render_jobset(), freed by the next call and by release_jobset(). */
static trainer_render_result* last_result = NULL;

static void release_jobset(void) {
  trainer_render_result_free(last_result);
  last_result = NULL;
}

/* The JSON of the JobSet `text` renders to, borrowed until the next call. */
static const char* render_jobset(const char* text, const trainer_render_options* opts) {
  trainer_render_result* result = NULL;
  trainer_error* err = SENTINEL(trainer_error);
  size_t i;
  release_jobset();
  CHECK_STATUS(trainer_render(text, strlen(text), opts, &result, &err), TRAINER_OK, err);
  CHECK(err == NULL);
  last_result = result;
  for (i = 0; i < trainer_render_result_count(result); ++i) {
    if (strcmp(trainer_render_result_kind(result, i), "JobSet") == 0) {
      return trainer_render_result_json(result, i);
    }
  }
  c_check_fail(__FILE__, __LINE__, "no JobSet rendered");
  return NULL;
}

static trainer_error* render_fails(const char* text, const trainer_render_options* opts,
                                   trainer_status expected) {
  trainer_render_result* result = SENTINEL(trainer_render_result);
  trainer_error* err = NULL;
  CHECK_STATUS(trainer_render(text, strlen(text), opts, &result, &err), expected, err);
  CHECK(result == NULL && err != NULL);
  return err;
}

/* ---- Tests ---------------------------------------------------------------------------- */

/* The fields of trainer_render_options version 1. */
typedef struct render_options_v1 {
  uint32_t version;
  const char* uid;
  const char* namespace_name;
  const char* feature_gates;
  const char* ssh_private_key;
  const char* now;
  int32_t builtin_runtimes;
  const trainer_parse_options* parse;
} render_options_v1;

static void test_options_init(void) {
  union {
    render_options_v1 v1;
    trainer_render_options v2;
  } mem;
  const trainer_framework* garbage;
  memset(&mem, 0xff, sizeof mem);
  memset((void*)&garbage, 0xff, sizeof garbage);
  CHECK(trainer_render_options_init(&mem.v2, 1) == TRAINER_OK);
  CHECK(mem.v1.version == 1 && mem.v1.uid == NULL && mem.v1.parse == NULL);
  CHECK(mem.v1.builtin_runtimes == 0);
  CHECK(mem.v2.framework == garbage); /* not written: a version-1 caller owns no such field */
  CHECK(trainer_render_options_init(&mem.v2, 2) == TRAINER_OK);
  CHECK(mem.v2.version == 2 && mem.v2.framework == NULL && mem.v2.uid == NULL);
  /* not written: a version-2 caller owns no progress_server */
  CHECK((const void*)mem.v2.progress_server == (const void*)garbage);
  CHECK(trainer_render_options_init(&mem.v2, 3) == TRAINER_OK);
  CHECK(mem.v2.version == 3 && mem.v2.progress_server == NULL);
  CHECK(trainer_render_options_init(&mem.v2, 0) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_render_options_init(&mem.v2, 4) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_render_options_init(NULL, 2) == TRAINER_E_INVALID_ARGUMENT);
}

static void test_framework_new(void) {
  trainer_framework* framework = new_framework(NULL);
  trainer_framework* gated = new_framework("TrainJobStatus=true");
  trainer_framework* none = SENTINEL(trainer_framework);
  trainer_error* err = NULL;
  size_t n = trainer_framework_plugin_count(framework);
  CHECK(n > 2);
  CHECK_STR(trainer_framework_plugin_name(framework, 0), "JobSet");
  CHECK_STR(trainer_framework_plugin_name(framework, 1), "Torch");
  CHECK(trainer_framework_plugin_name(framework, n) == NULL);
  CHECK(trainer_framework_plugin_count(gated) == n + 1);
  CHECK_STR(trainer_framework_plugin_name(gated, n), "TrainJobStatus");
  CHECK(trainer_framework_plugin_count(NULL) == 0);
  CHECK(trainer_framework_plugin_name(NULL, 0) == NULL);

  CHECK_STATUS(trainer_framework_new("Nope=true", &none, &err), TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(none == NULL);
  CHECK_CONTAINS(trainer_error_message(err), "Nope");
  trainer_error_free(err);
  CHECK(trainer_framework_new(NULL, NULL, NULL) == TRAINER_E_INVALID_ARGUMENT);

  trainer_framework_free(framework);
  trainer_framework_free(gated);
  trainer_framework_free(NULL);
}

static void test_render_with_plugin(void) {
  paddle_state state = {0, 0};
  trainer_plugin_descriptor desc = paddle_descriptor("Paddle", &state);
  trainer_framework* framework = new_framework(NULL);
  size_t builtin = trainer_framework_plugin_count(framework);
  trainer_plugin* plugin = new_plugin(&desc);
  trainer_render_options opts = options_with(framework);
  trainer_render_options plain = options_with(NULL);
  trainer_error* err;
  union {
    render_options_v1 v1;
    trainer_render_options v2;
  } old;

  CHECK_STR(trainer_plugin_name(plugin), "Paddle");
  CHECK_STR(trainer_plugin_name(NULL), "");
  add_ok(framework, plugin);
  CHECK(trainer_framework_plugin_count(framework) == builtin + 1);
  CHECK_STR(trainer_framework_plugin_name(framework, builtin), "Paddle");

  /* the plugin's runtime gets its env var; another runtime, and a render without it, do not */
  CHECK_CONTAINS(render_jobset(kPaddleJob, &opts),
                 "{\"name\":\"PADDLE_TRAINERS_NUM\",\"value\":\"2\"}");
  CHECK_LACKS(render_jobset(kTorchJob, &opts), "PADDLE_TRAINERS_NUM");
  CHECK_LACKS(render_jobset(kPaddleJob, &plain), "PADDLE_TRAINERS_NUM");
  CHECK_LACKS(render_jobset(kPaddleJob, NULL), "PADDLE_TRAINERS_NUM");

  /* a version-1 struct: `framework` is not read, whatever the bytes after it hold */
  memset(&old, 0, sizeof old);
  CHECK(trainer_render_options_init(&old.v2, 1) == TRAINER_OK);
  old.v1.uid = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";
  old.v2.framework = framework;
  CHECK_LACKS(render_jobset(kPaddleJob, &old.v2), "PADDLE_TRAINERS_NUM");

  /* a framework brings its gates: feature_gates as well is refused */
  opts.feature_gates = "TrainJobStatus=true";
  err = render_fails(kPaddleJob, &opts, TRAINER_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(trainer_error_message(err), "feature_gates");
  trainer_error_free(err);

  CHECK(state.frees == 0);
  trainer_framework_free(framework);
  CHECK(state.frees == 1);
  release_jobset();
}

static void test_validation(void) {
  paddle_state state = {0, 0};
  trainer_plugin_descriptor desc = paddle_descriptor("Paddle", &state);
  trainer_framework* framework = new_framework(NULL);
  trainer_render_options opts = options_with(framework);
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_validation* validation = SENTINEL(trainer_validation);
  trainer_error* err = NULL;
  trainer_document* job;
  size_t i;

  add_ok(framework, new_plugin(&desc));
  CHECK_STATUS(
      trainer_documents_parse(kTooBigPaddleJob, strlen(kTooBigPaddleJob), NULL, &list, &err),
      TRAINER_OK, err);
  CHECK(trainer_document_list_count(list) == 4);
  for (i = 0; i < 4; ++i) {
    CHECK(trainer_document_default(trainer_document_list_get(list, i), NULL) == TRAINER_OK);
  }
  job = trainer_document_list_get(list, 3);
  CHECK_STR(trainer_document_kind(job), "TrainJob");

  /* without the plugin the TrainJob is admitted */
  CHECK_STATUS(trainer_document_validate(job, list, &validation, &err), TRAINER_OK, err);
  trainer_validation_free(validation);
  CHECK_STATUS(trainer_document_validate_with(job, list, NULL, &validation, &err), TRAINER_OK, err);
  trainer_validation_free(validation);

  /* with it, its field error is reported as the built-in plugins' are */
  validation = SENTINEL(trainer_validation);
  CHECK_STATUS(trainer_document_validate_with(job, list, framework, &validation, &err),
               TRAINER_E_INVALID, err);
  CHECK(validation != NULL);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.trainer.numNodes");
  CHECK_STR(trainer_error_field_detail(err, 0), "paddle supports at most 4 nodes");
  trainer_validation_free(validation);
  trainer_error_free(err);

  /* trainer_render admits with the same plugins */
  err = render_fails(kTooBigPaddleJob, &opts, TRAINER_E_INVALID);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.trainer.numNodes");
  trainer_error_free(err);

  CHECK_STATUS(trainer_document_validate_with(NULL, list, framework, &validation, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  CHECK_STR(trainer_error_message(err), "trainer_document_validate_with: doc is NULL");
  trainer_error_free(err);

  trainer_document_list_free(list);
  trainer_framework_free(framework);
  CHECK(state.frees == 1);
}

/* trainer_framework_add refuses `plugin` with `code` and `message`; the plugin is freed. */
static void add_refused(trainer_framework* framework, const char* name, trainer_plugin_fn status,
                        trainer_status code, const char* message) {
  paddle_state state = {0, 0};
  trainer_plugin_descriptor desc = paddle_descriptor(name, &state);
  trainer_error* err = NULL;
  size_t n = trainer_framework_plugin_count(framework);
  desc.status = status;
  CHECK_STATUS(trainer_framework_add(framework, new_plugin(&desc), &err), code, err);
  if (message != NULL) CHECK_STR(trainer_error_message(err), message);
  trainer_error_free(err);
  CHECK(state.frees == 1);
  CHECK(trainer_framework_plugin_count(framework) == n);
}

static void test_refusals(void) {
  paddle_state state = {0, 0};
  trainer_plugin_descriptor desc = paddle_descriptor("Paddle", &state);
  trainer_framework* framework = new_framework(NULL);
  trainer_plugin* plugin = SENTINEL(trainer_plugin);
  trainer_error* err = NULL;

  desc.status = noop_status;
  add_ok(framework, new_plugin(&desc));
  add_refused(framework, "Paddle", NULL, TRAINER_E_INVALID,
              "plugin name \"Paddle\" is already registered");
  add_refused(framework, "Torch", NULL, TRAINER_E_INVALID,
              "plugin name \"Torch\" is taken by a built-in plugin");
  add_refused(framework, "Status2", noop_status, TRAINER_E_INVALID,
              "too many TrainJobStatus plugins are registered");
  add_refused(NULL, "Orphan", NULL, TRAINER_E_INVALID_ARGUMENT, NULL);
  CHECK_STATUS(trainer_framework_add(framework, NULL, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);

  /* a plugin built for another ABI major version: refused, its user data still the caller's */
  desc.name = "Future";
  desc.abi_version = (uint32_t)2 << 16;
  CHECK_STATUS(trainer_plugin_new(&desc, &plugin, &err), TRAINER_E_UNSUPPORTED, err);
  CHECK(plugin == NULL);
  trainer_error_free(err);
  desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;

  /* names */
  plugin = SENTINEL(trainer_plugin);
  desc.name = "";
  CHECK_STATUS(trainer_plugin_new(&desc, &plugin, &err), TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(plugin == NULL);
  trainer_error_free(err);
  desc.name = NULL;
  CHECK_STATUS(trainer_plugin_new(&desc, &plugin, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK_STATUS(trainer_plugin_new(NULL, &plugin, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK(state.frees == 0);

  /* a plugin freed without being added */
  desc.name = "Alone";
  trainer_plugin_free(new_plugin(&desc));
  CHECK(state.frees == 1);
  trainer_plugin_free(NULL);

  trainer_framework_free(framework);
  CHECK(state.frees == 2);
}

static void test_load(void) {
  trainer_framework* framework = new_framework(NULL);
  trainer_render_options opts = options_with(framework);
  trainer_plugin* plugin = SENTINEL(trainer_plugin);
  trainer_error* err = NULL;

  CHECK_STATUS(trainer_plugin_load("/nonexistent/libnothing.so", &plugin, &err), TRAINER_E_IO, err);
  CHECK(plugin == NULL);
  CHECK_CONTAINS(trainer_error_message(err), "/nonexistent/libnothing.so");
  trainer_error_free(err);

  plugin = SENTINEL(trainer_plugin);
  CHECK_STATUS(trainer_plugin_load(TRAINER_TEST_NO_ENTRY_MODULE, &plugin, &err),
               TRAINER_E_NOT_FOUND, err);
  CHECK(plugin == NULL);
  CHECK_CONTAINS(trainer_error_message(err), TRAINER_TEST_NO_ENTRY_MODULE);
  trainer_error_free(err);

  CHECK_STATUS(trainer_plugin_load(NULL, &plugin, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);

  CHECK_STATUS(trainer_plugin_load(TRAINER_TEST_PLUGIN_MODULE, &plugin, &err), TRAINER_OK, err);
  CHECK_STR(trainer_plugin_name(plugin), "Loaded");
  add_ok(framework, plugin);
  CHECK_CONTAINS(render_jobset(kLoadedJob, &opts),
                 "{\"name\":\"LOADED_BY_PLUGIN\",\"value\":\"yes\"}");
  CHECK_LACKS(render_jobset(kPaddleJob, &opts), "LOADED_BY_PLUGIN");
  trainer_framework_free(framework);
  release_jobset();
}

static void test_callback_error(void) {
  paddle_state state = {0, 1};
  trainer_plugin_descriptor desc = paddle_descriptor("Failing", &state);
  trainer_framework* framework = new_framework(NULL);
  trainer_render_options opts = options_with(framework);
  trainer_error* err;

  add_ok(framework, new_plugin(&desc));
  err = render_fails(kPaddleJob, &opts, TRAINER_E_USER);
  CHECK_CONTAINS(trainer_error_message(err), "plugin \"Failing\": enforceMLPolicy: boom");
  trainer_error_free(err);
  /* not its runtime: nothing fails */
  CHECK_LACKS(render_jobset(kTorchJob, &opts), "PADDLE_TRAINERS_NUM");
  trainer_framework_free(framework);
  CHECK(state.frees == 1);
  release_jobset();
}

/* ---- Confinement: a plugin does not write outside its TrainJob ---------------------------- */

/* user_data: the reply to set, whatever the request. */
static trainer_status reply_text(void* user_data, const trainer_plugin_request* request,
                                 trainer_plugin_reply* reply) {
  const char* text = (const char*)user_data;
  (void)request;
  return trainer_plugin_reply_set(reply, text, strlen(text));
}

/* A reply length far beyond its buffer: refused before the library reads it. */
static trainer_status oversize_reply(void* user_data, const trainer_plugin_request* request,
                                     trainer_plugin_reply* reply) {
  static const char kTiny[] = "{}";
  (void)user_data;
  (void)request;
  CHECK(trainer_plugin_reply_set(reply, kTiny, (size_t)5 << 20) == TRAINER_E_LIMIT);
  return TRAINER_OK; /* a plugin that ignores the refusal still fails the render */
}

/* Renders kPaddleJob with one plugin "Evil" that has `fn` as its enforce_ml_policy (`ml` set) or
 * build callback; returns the error of the failed render. */
static trainer_error* confined(int ml, trainer_plugin_fn fn, const char* text,
                               trainer_status expected) {
  trainer_plugin_descriptor desc;
  trainer_framework* framework = new_framework(NULL);
  trainer_render_options opts = options_with(framework);
  trainer_error* err;
  memset(&desc, 0, sizeof desc);
  desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
  desc.name = "Evil";
  desc.user_data = (void*)(uintptr_t)text;
  if (ml) {
    desc.enforce_ml_policy = fn;
  } else {
    desc.build = fn;
  }
  add_ok(framework, new_plugin(&desc));
  err = render_fails(kPaddleJob, &opts, expected);
  trainer_framework_free(framework);
  return err;
}

static void test_confinement(void) {
  trainer_error* err;
  err = confined(1, reply_text, "{\"trainJob\":{\"metadata\":{\"namespace\":\"kube-system\"}}}",
                 TRAINER_E_INVALID);
  CHECK_STR(trainer_error_message(err),
            "plugin \"Evil\": enforceMLPolicy: trainJob.metadata.namespace: Forbidden: a plugin "
            "may change only the TrainJob's spec");
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "trainJob.metadata.namespace");
  trainer_error_free(err);

  err = confined(1, reply_text, "{\"trainJob\":{\"metadata\":{\"uid\":\"another\"}}}",
                 TRAINER_E_INVALID);
  CHECK_CONTAINS(trainer_error_message(err), "trainJob.metadata.uid: Forbidden");
  trainer_error_free(err);

  err = confined(0, reply_text,
                 "{\"objects\":[{\"apiVersion\":\"rbac.authorization.k8s.io/v1\","
                 "\"kind\":\"ClusterRoleBinding\",\"metadata\":{\"name\":\"evil\"},"
                 "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                 "\"ClusterRole\",\"name\":\"cluster-admin\"}}]}",
                 TRAINER_E_INVALID);
  CHECK_STR(trainer_error_message(err),
            "plugin \"Evil\": build: objects[0].kind: Forbidden: ClusterRoleBinding \"evil\" "
            "(rbac.authorization.k8s.io/v1) is not known to be namespaced: a plugin builds only "
            "namespaced objects");
  trainer_error_free(err);

  err = confined(0, reply_text,
                 "{\"objects\":[{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":"
                 "{\"name\":\"s\",\"namespace\":\"kube-system\"}}]}",
                 TRAINER_E_INVALID);
  CHECK_STR(trainer_error_message(err),
            "plugin \"Evil\": build: objects[0].metadata.namespace: Forbidden: Secret \"s\" (v1) "
            "must be in the TrainJob's namespace \"default\"");
  trainer_error_free(err);

  err = confined(0, reply_text,
                 "{\"objects\":[{\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\","
                 "\"metadata\":{\"name\":\"w\"}}]}",
                 TRAINER_E_INVALID);
  CHECK_CONTAINS(trainer_error_message(err),
                 "Widget \"w\" (example.com/v1) is not known to be "
                 "namespaced");
  trainer_error_free(err);

  err = confined(0, oversize_reply, NULL, TRAINER_E_LIMIT);
  CHECK_STR(trainer_error_message(err),
            "plugin \"Evil\": build: reply: 5242880 bytes exceeds the limit of a plugin reply "
            "(4194304 bytes)");
  trainer_error_free(err);
}

/* A client of a server that does not exist: nothing is contacted until a call needs it. */
static trainer_client* offline_client(char* kubeconfig, size_t size) {
  static const char kConfig[] =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
      "    server: https://127.0.0.1:1\nusers:\n- name: u\n  user:\n    token: t\n"
      "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
      "current-context: x\n";
  trainer_client_options opts = TRAINER_CLIENT_OPTIONS_INIT;
  trainer_client* client = NULL;
  trainer_error* err = NULL;
  FILE* f;
  snprintf(kubeconfig, size, "/tmp/c_plugin_test_%ld.kubeconfig", (long)getpid());
  f = fopen(kubeconfig, "wb");
  CHECK(f != NULL);
  CHECK(fwrite(kConfig, 1, sizeof kConfig - 1, f) == sizeof kConfig - 1);
  CHECK(fclose(f) == 0);
  opts.kubeconfig = kubeconfig;
  opts.request_timeout_ms = 2000;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  return client;
}

/* trainer_cluster_apply admits with the framework's plugins before it sends anything. */
static void test_cluster_apply(trainer_client* client) {
  paddle_state state = {0, 0};
  trainer_plugin_descriptor desc = paddle_descriptor("Paddle", &state);
  trainer_framework* framework = new_framework(NULL);
  trainer_cluster_apply_options opts;
  trainer_cluster_apply_result* result = SENTINEL(trainer_cluster_apply_result);
  trainer_error* err = NULL;
  trainer_status st;
  union {
    char v1[offsetof(trainer_cluster_apply_options, framework)];
    trainer_cluster_apply_options v2;
  } mem;
  const trainer_framework* garbage;

  memset(&mem, 0xff, sizeof mem);
  memset((void*)&garbage, 0xff, sizeof garbage);
  CHECK(trainer_cluster_apply_options_init(&mem.v2, 1) == TRAINER_OK);
  CHECK(mem.v2.version == 1 && mem.v2.parse == NULL && mem.v2.framework == garbage);
  CHECK(trainer_cluster_apply_options_init(&opts, 2) == TRAINER_OK);
  CHECK(opts.version == 2 && opts.framework == NULL);
  CHECK(trainer_cluster_apply_options_init(&opts, 3) == TRAINER_E_INVALID_ARGUMENT);

  add_ok(framework, new_plugin(&desc));
  opts.framework = framework;
  opts.timeout_ms = 2000;
  CHECK_STATUS(trainer_cluster_apply(client, kTooBigPaddleJob, strlen(kTooBigPaddleJob), &opts,
                                     &result, &err),
               TRAINER_E_INVALID, err);
  CHECK(result == NULL);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.trainer.numNodes");
  trainer_error_free(err);

  /* without it (and with a version-1 struct, whose `framework` is not read) admission passes
   * and the call goes on to the server, which is not there */
  CHECK(trainer_cluster_apply_options_init(&mem.v2, 1) == TRAINER_OK);
  mem.v2.timeout_ms = 2000;
  mem.v2.framework = framework;
  st = trainer_cluster_apply(client, kTooBigPaddleJob, strlen(kTooBigPaddleJob), &mem.v2, &result,
                             &err);
  CHECK_STATUS(st, TRAINER_E_IO, err);
  CHECK(result == NULL);
  trainer_error_free(err);

  trainer_framework_free(framework);
  CHECK(state.frees == 1);
}

/* trainer_controller_new keeps its own reference to the framework. */
static void test_controller(trainer_client* client) {
  paddle_state state = {0, 0};
  trainer_plugin_descriptor desc = paddle_descriptor("Paddle", &state);
  trainer_framework* framework = new_framework(NULL);
  trainer_controller_options opts;
  trainer_controller* ctl = SENTINEL(trainer_controller);
  trainer_error* err = NULL;
  union {
    char v1[offsetof(trainer_controller_options, framework)];
    trainer_controller_options v2;
  } mem;

  memset(&mem, 0xff, sizeof mem);
  CHECK(trainer_controller_options_init(&mem.v2, 1) == TRAINER_OK);
  CHECK(mem.v2.version == 1 && mem.v2.reconcile_user_data_free == NULL);
  CHECK(trainer_controller_options_init(&opts, 2) == TRAINER_OK);
  CHECK(opts.version == 2 && opts.framework == NULL);

  add_ok(framework, new_plugin(&desc));
  opts.framework = framework;
  opts.feature_gates = "TrainJobStatus=true";
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(ctl == NULL);
  CHECK_CONTAINS(trainer_error_message(err), "feature_gates");
  trainer_error_free(err);

  opts.feature_gates = NULL;
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_OK, err);
  trainer_framework_free(framework);
  CHECK(state.frees == 0); /* the controller still holds the plugins */
  trainer_controller_free(ctl);
  CHECK(state.frees == 1);

  /* a version-1 struct: `framework` (garbage here) is not read */
  memset(&mem, 0xff, sizeof mem);
  CHECK(trainer_controller_options_init(&mem.v2, 1) == TRAINER_OK);
  CHECK_STATUS(trainer_controller_new(client, &mem.v2, &ctl, &err), TRAINER_OK, err);
  trainer_controller_free(ctl);
}

int main(void) {
  char kubeconfig[256];
  trainer_client* client;
  test_options_init();
  test_framework_new();
  test_render_with_plugin();
  test_validation();
  test_refusals();
  test_load();
  test_callback_error();
  test_confinement();
  client = offline_client(kubeconfig, sizeof kubeconfig);
  test_cluster_apply(client);
  test_controller(client);
  trainer_client_free(client);
  CHECK(remove(kubeconfig) == 0);
  printf("c_plugin_test: all checks passed\n");
  return 0;
}
