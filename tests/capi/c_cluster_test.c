/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cluster section of the C ABI (trainer/cluster.h) from pure C against the real
 * kube-apiserver that the CTest fixture `kube_apiserver` starts (TRAINER_TEST_APISERVER_DIR:
 * kubeconfig, token, url). The test plays the TrainJob controller by patching the status
 * subresource with curl and the admin token. Without TRAINER_KUBE_TEST_ENV the checks that need
 * no server still run, then the test prints SKIPPED and exits 77.
 */
#define _POSIX_C_SOURCE 200809L

#include "c_check.h"
#include "c_cluster_fixtures.h"
#include "trainer.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRAINJOB_YAML(name, nodes, procs)       \
  "apiVersion: trainer.kubeflow.org/v1alpha1\n" \
  "kind: TrainJob\n"                            \
  "metadata:\n"                                 \
  "  name: " name                               \
  "\n"                                          \
  "spec:\n"                                     \
  "  runtimeRef:\n"                             \
  "    name: torch-rt\n"                        \
  "    kind: TrainingRuntime\n"                 \
  "  trainer:\n"                                \
  "    numNodes: " nodes                        \
  "\n"                                          \
  "    numProcPerNode: " procs "\n"

static char g_dir[1024];
static char g_ns[128];
static char* g_url;
static char* g_token;

/* The trimmed contents of DIR/name (malloc'd), or NULL. */
static char* read_text(const char* name) {
  char path[1200];
  FILE* f;
  char* text;
  long n;
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = malloc((size_t)n + 1);
  CHECK(text != NULL);
  CHECK(fread(text, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ')) --n;
  text[n] = '\0';
  return text;
}

/* An admin request with curl: `method` `path` with a JSON body (may be NULL). */
static void admin_request(const char* method, const char* path, const char* content_type,
                          const char* body) {
  char command[4096];
  snprintf(command, sizeof command,
           "curl -sSf -o /dev/null --max-time 30 --cacert '%s/ca.crt' -H 'Authorization: Bearer "
           "%s' -X %s -H 'Content-Type: %s' %s%s%s '%s%s'",
           g_dir, g_token, method, content_type, body ? "--data '" : "", body ? body : "",
           body ? "'" : "", g_url, path);
  if (system(command) != 0) {
    fprintf(stderr, "admin request failed: %s %s\n", method, path);
    exit(1);
  }
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- Without a server ---------------------------------------------------------------------- */

static int g_warning_frees;
static void count_free(void* user) {
  CHECK(user == &g_warning_frees);
  ++g_warning_frees;
}

static void test_offline(void) {
  trainer_client_options copts = TRAINER_CLIENT_OPTIONS_INIT;
  trainer_cluster_wait_options wopts;
  trainer_cancel_token* token = SENTINEL(trainer_cancel_token);
  trainer_client* client = SENTINEL(trainer_client);
  trainer_error* err = NULL;
  trainer_status st;

  CHECK_STR(trainer_status_name(TRAINER_E_CANCELLED), "TRAINER_E_CANCELLED");
  CHECK_STR(trainer_status_name(TRAINER_E_UNAUTHORIZED), "TRAINER_E_UNAUTHORIZED");
  CHECK_STR(trainer_status_name(TRAINER_E_FORBIDDEN), "TRAINER_E_FORBIDDEN");
  CHECK_STR(trainer_status_name(TRAINER_E_CONFLICT), "TRAINER_E_CONFLICT");
  CHECK_STR(trainer_status_name(TRAINER_E_SERVER), "TRAINER_E_SERVER");
  CHECK_STR(trainer_status_name(TRAINER_E_FAILED), "TRAINER_E_FAILED");
  CHECK(trainer_error_http_status(NULL) == 0);
  CHECK_STR(trainer_error_reason(NULL), "");

  /* Options structs: init, refused versions. */
  CHECK(trainer_cluster_wait_options_init(&wopts, TRAINER_CLUSTER_WAIT_OPTIONS_VERSION) ==
        TRAINER_OK);
  CHECK(wopts.version == TRAINER_CLUSTER_WAIT_OPTIONS_VERSION && wopts.status == NULL);
  CHECK(trainer_cluster_wait_options_init(&wopts, 99) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_client_options_init(NULL, TRAINER_CLIENT_OPTIONS_VERSION) ==
        TRAINER_E_INVALID_ARGUMENT);

  /* Client options versions: 1 ends before the limits, whose bytes init leaves alone; 2 (the
   * newest) zeroes them; 0 and later versions are refused. */
  memset(&copts, 0xab, sizeof copts);
  CHECK(trainer_client_options_init(&copts, 1) == TRAINER_OK);
  CHECK(copts.version == 1 && copts.kubeconfig == NULL && copts.warning_user_data_free == NULL);
  CHECK(copts.max_response_bytes == UINT64_C(0xabababababababab));
  CHECK(copts.max_watch_event_bytes == UINT64_C(0xabababababababab));
  CHECK(TRAINER_CLIENT_OPTIONS_VERSION == 2);
  CHECK(trainer_client_options_init(&copts, 2) == TRAINER_OK);
  CHECK(copts.version == 2 && copts.max_response_bytes == 0 && copts.max_watch_event_bytes == 0);
  CHECK(trainer_client_options_init(&copts, 0) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_client_options_init(&copts, 3) == TRAINER_E_INVALID_ARGUMENT);

  /* Tokens: NULL-safe, cancel is sticky. */
  trainer_cancel_token_free(NULL);
  trainer_cancel_token_cancel(NULL);
  CHECK(trainer_cancel_token_cancelled(NULL) == 0);
  CHECK_STATUS(trainer_cancel_token_new(&token, &err), TRAINER_OK, err);
  CHECK(trainer_cancel_token_cancelled(token) == 0);
  trainer_cancel_token_cancel(token);
  trainer_cancel_token_cancel(token);
  CHECK(trainer_cancel_token_cancelled(token) == 1);
  trainer_cancel_token_free(token);

  /* A kubeconfig that does not exist: an error, no client, the user data freed at once. */
  copts.kubeconfig = "/nonexistent/kubeconfig";
  copts.warning_user_data = &g_warning_frees;
  copts.warning_user_data_free = count_free;
  st = trainer_client_new(&copts, &client, &err);
  CHECK(st != TRAINER_OK);
  CHECK(client == NULL);
  CHECK(err != NULL && strstr(trainer_error_message(err), "/nonexistent/kubeconfig") != NULL);
  CHECK(trainer_error_http_status(err) == 0);
  trainer_error_free(err);
  CHECK(g_warning_frees == 1);

  /* An options version from the future is refused without reading the fields. */
  copts.version = TRAINER_CLIENT_OPTIONS_VERSION + 1;
  CHECK_STATUS(trainer_client_new(&copts, &client, NULL), TRAINER_E_INVALID_ARGUMENT, NULL);
  CHECK(g_warning_frees == 1);

  trainer_client_free(NULL);
  trainer_cluster_apply_result_free(NULL);
  CHECK_STR(trainer_client_namespace(NULL), "");
  CHECK(trainer_cluster_apply_result_count(NULL) == 0);
  CHECK(trainer_cluster_apply_result_ref(NULL, 0) == NULL);
  CHECK_STATUS(trainer_cluster_delete(NULL, "trainjob", NULL, "x", NULL, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
}

/* ---- Against the server -------------------------------------------------------------------- */

static int g_warnings;
static char g_last_warning[512];
static trainer_status on_warning(void* user, const char* text, size_t len) {
  CHECK(user == &g_warning_frees);
  CHECK(strlen(text) == len);
  ++g_warnings;
  snprintf(g_last_warning, sizeof g_last_warning, "%s", text);
  return TRAINER_OK;
}

static trainer_client* new_client(void) {
  char kubeconfig[1200];
  trainer_client_options opts = TRAINER_CLIENT_OPTIONS_INIT;
  trainer_client* client = NULL;
  trainer_error* err = NULL;
  snprintf(kubeconfig, sizeof kubeconfig, "%s/kubeconfig", g_dir);
  opts.kubeconfig = kubeconfig;
  opts.namespace_name = g_ns;
  opts.qps = -1;
  opts.on_warning = on_warning;
  opts.warning_user_data = &g_warning_frees;
  opts.warning_user_data_free = count_free;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  CHECK_STR(trainer_client_namespace(client), g_ns);
  CHECK(strncmp(trainer_client_server(client), "https://127.0.0.1:", 18) == 0);
  return client;
}

static void test_apply_get_list(trainer_client* client) {
  static const char kDocs[] = RUNTIME_YAML "---\n" TRAINJOB_YAML("job-a", "2", "1");
  trainer_cluster_apply_options opts = TRAINER_CLUSTER_APPLY_OPTIONS_INIT;
  trainer_cluster_apply_result* result = NULL;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  int round;

  opts.field_manager = "c-cluster-test";
  for (round = 0; round < 2; ++round) { /* server-side apply is idempotent */
    CHECK_STATUS(trainer_cluster_apply(client, kDocs, sizeof kDocs - 1, &opts, &result, &err),
                 TRAINER_OK, err);
    CHECK(trainer_cluster_apply_result_count(result) == 2);
    CHECK_STR(trainer_cluster_apply_result_ref(result, 0),
              "trainingruntime.trainer.kubeflow.org/torch-rt");
    CHECK_STR(trainer_cluster_apply_result_ref(result, 1), "trainjob.trainer.kubeflow.org/job-a");
    CHECK(strstr(trainer_cluster_apply_result_json(result, 1), "\"uid\":") != NULL);
    CHECK(trainer_cluster_apply_result_ref(result, 2) == NULL);
    trainer_cluster_apply_result_free(result);
  }

  CHECK_STATUS(
      trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_OK, err);
  CHECK(strstr(out.data, "\"name\":\"job-a\"") != NULL);
  CHECK(strstr(out.data, "\"numNodes\":2") != NULL);
  trainer_buffer_free(&out);
  CHECK_STATUS(trainer_cluster_get(client, "trainingruntimes", g_ns, "torch-rt", NULL,
                                   TRAINER_FORMAT_YAML, &out, &err),
               TRAINER_OK, err);
  CHECK(strstr(out.data, "kind: TrainingRuntime\n") != NULL);
  trainer_buffer_free(&out);

  CHECK_STATUS(
      trainer_cluster_list(client, "TrainJob", NULL, NULL, TRAINER_FORMAT_JSON_PRETTY, &out, &err),
      TRAINER_OK, err);
  CHECK(strstr(out.data, "\"kind\": \"TrainJobList\"") != NULL);
  CHECK(strstr(out.data, "\"name\": \"job-a\"") != NULL);
  trainer_buffer_free(&out);

  /* An unknown kind, a missing object: the server's 404 with its reason. */
  CHECK_STATUS(
      trainer_cluster_get(client, "widgets", NULL, "x", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK_STATUS(trainer_cluster_get(client, "trainjob", NULL, "missing", NULL, TRAINER_FORMAT_JSON,
                                   &out, &err),
               TRAINER_E_NOT_FOUND, err);
  CHECK(trainer_error_http_status(err) == 404);
  CHECK_STR(trainer_error_reason(err), "NotFound");
  CHECK(strstr(trainer_error_message(err), "\"missing\" not found") != NULL);
  CHECK(out.data == NULL);
  trainer_error_free(err);
}

/* The limits of trainer_client_options version 2: a 1 KiB max_response_bytes fails a get and a
 * list with TRAINER_E_LIMIT naming the limit; a 64-byte max_watch_event_bytes ends a watch; a
 * version-1 struct with the same bytes after its end keeps the defaults. Needs job-a. */
static trainer_status count_event(void* user, const char* type, const char* object, size_t len) {
  (void)type;
  (void)object;
  (void)len;
  ++*(int*)user;
  return TRAINER_CALLBACK_CONTINUE;
}

/* on_log of trainer_client_options version 2: the lines, and how often the user data was freed. */
static char g_log_line[1024];
static int g_log_lines;
static int g_log_frees;
static trainer_cancel_token* g_log_cancel;
static trainer_status on_log_line(void* user, const char* line, size_t len) {
  CHECK(user == &g_log_frees);
  CHECK(strlen(line) == len);
  if (g_log_lines++ == 0) snprintf(g_log_line, sizeof g_log_line, "%s", line);
  trainer_cancel_token_cancel(g_log_cancel);
  return TRAINER_OK;
}
static void count_log_free(void* user) {
  CHECK(user == &g_log_frees);
  ++g_log_frees;
}
static trainer_status stop_at_first(void* user, const char* type, const char* object, size_t len) {
  (void)type;
  (void)object;
  (void)len;
  ++*(int*)user;
  return TRAINER_CALLBACK_STOP;
}

static void test_limits(void) {
  char kubeconfig[1200];
  trainer_client_options opts = TRAINER_CLIENT_OPTIONS_INIT;
  trainer_cluster_watch_options wopts = TRAINER_CLUSTER_WATCH_OPTIONS_INIT;
  trainer_client* client = NULL;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  int events = 0;

  snprintf(kubeconfig, sizeof kubeconfig, "%s/kubeconfig", g_dir);
  opts.kubeconfig = kubeconfig;
  opts.namespace_name = g_ns;
  opts.qps = -1;
  opts.max_response_bytes = 1024;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  CHECK_STATUS(
      trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_E_LIMIT, err);
  CHECK(strstr(trainer_error_message(err), "exceeds the 1 KiB limit") != NULL ||
        strstr(trainer_error_message(err), "over the 1 KiB limit") != NULL);
  CHECK(strstr(trainer_error_message(err), "max_response_bytes") != NULL);
  CHECK(out.data == NULL);
  trainer_error_free(err);
  CHECK_STATUS(
      trainer_cluster_list(client, "trainjob", NULL, NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_E_LIMIT, err);
  CHECK(strstr(trainer_error_message(err), "max_response_bytes") != NULL);
  trainer_error_free(err);
  trainer_client_free(client);

  /* One watch event over 64 bytes: resourceVersion "0" sends job-a as an event of the stream. */
  opts.max_response_bytes = 0;
  opts.max_watch_event_bytes = 64;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  wopts.resource_version = "0";
  wopts.name = "job-a";
  CHECK_STATUS(trainer_cluster_watch(client, NULL, &wopts, count_event, &events, &err),
               TRAINER_E_LIMIT, err);
  CHECK(strstr(trainer_error_message(err), "a watch event exceeds the 64 bytes limit") != NULL);
  CHECK(strstr(trainer_error_message(err), "max_watch_event_bytes") != NULL);
  CHECK(events == 0);
  trainer_error_free(err);
  trainer_client_free(client);

  /* on_log sees a watch's retry. The client's rate limiter (one request per 1000 s after a
   * burst of 10) is drained by gets (the first caches discovery) until one times out at the
   * limiter after the 200 ms request bound; then the watch's list times out the same way, which
   * the watch retries after a logged backoff, and the callback cancels the watch. */
  opts.max_watch_event_bytes = 0;
  opts.qps = 0.001;
  opts.burst = 10;
  opts.request_timeout_ms = 200;
  opts.on_log = on_log_line;
  opts.log_user_data = &g_log_frees;
  opts.log_user_data_free = count_log_free;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  CHECK_STATUS(
      trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_OK, err);
  trainer_buffer_free(&out);
  {
    int i;
    trainer_status st = TRAINER_OK;
    for (i = 0; i < 20 && st == TRAINER_OK; ++i) {
      st = trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out,
                               &err);
      trainer_buffer_free(&out);
    }
    CHECK_STATUS(st, TRAINER_E_TIMEOUT, err);
    trainer_error_free(err);
    err = NULL;
  }
  CHECK(g_log_lines == 0);
  CHECK_STATUS(trainer_cancel_token_new(&g_log_cancel, &err), TRAINER_OK, err);
  wopts = (trainer_cluster_watch_options)TRAINER_CLUSTER_WATCH_OPTIONS_INIT;
  wopts.cancel = g_log_cancel;
  events = 0;
  CHECK_STATUS(trainer_cluster_watch(client, NULL, &wopts, stop_at_first, &events, &err),
               TRAINER_E_CANCELLED, err);
  trainer_error_free(err);
  err = NULL;
  CHECK(events == 0 && g_log_lines == 1);
  CHECK(strncmp(g_log_line, "watch of trainjobs", 18) == 0);
  CHECK(strstr(g_log_line, "failed, retrying in ") != NULL);
  CHECK(strstr(g_log_line, "request timeout") != NULL);
  trainer_cancel_token_free(g_log_cancel);
  CHECK(g_log_frees == 0);
  trainer_client_free(client);
  CHECK(g_log_frees == 1);

  /* Version 1: the struct ends before the limits and on_log, which are not read (nor freed). */
  opts.qps = -1;
  opts.burst = 0;
  opts.request_timeout_ms = 0;
  opts.version = 1;
  opts.max_response_bytes = 1024;
  opts.max_watch_event_bytes = 64;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  CHECK_STATUS(
      trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_OK, err);
  CHECK(strstr(out.data, "\"name\":\"job-a\"") != NULL);
  trainer_buffer_free(&out);
  trainer_client_free(client);
  CHECK(g_log_frees == 1);

  /* A failing trainer_client_new releases the log user data at once. */
  opts.version = TRAINER_CLIENT_OPTIONS_VERSION;
  opts.kubeconfig = "/nonexistent/kubeconfig";
  CHECK(trainer_client_new(&opts, &client, &err) != TRAINER_OK);
  trainer_error_free(err);
  CHECK(client == NULL && g_log_frees == 2);
}

/* A TrainJob that local admission rejects: field errors, nothing applied (not even the valid
 * TrainJob before it). */
static void test_apply_invalid(trainer_client* client) {
  static const char kDocs[] =
      TRAINJOB_YAML("job-ok", "1", "1") "---\n" TRAINJOB_YAML("job-bad", "1", "0");
  trainer_cluster_apply_result* result = SENTINEL(trainer_cluster_apply_result);
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  size_t i, n;
  int found = 0;

  CHECK_STATUS(trainer_cluster_apply(client, kDocs, sizeof kDocs - 1, NULL, &result, &err),
               TRAINER_E_INVALID, err);
  CHECK(result == NULL);
  CHECK(trainer_error_http_status(err) == 0);
  n = trainer_error_field_count(err);
  CHECK(n >= 1);
  for (i = 0; i < n; ++i) {
    if (strcmp(trainer_error_field_path(err, i), "spec.trainer.numProcPerNode") == 0) found = 1;
  }
  if (!found) fprintf(stderr, "field errors: %s\n", trainer_error_message(err));
  CHECK(found);
  trainer_error_free(err);
  CHECK_STATUS(trainer_cluster_get(client, "trainjob", NULL, "job-ok", NULL, TRAINER_FORMAT_JSON,
                                   &out, &err),
               TRAINER_E_NOT_FOUND, err);
  trainer_error_free(err);
}

/* A runtime that neither the input nor the cluster holds: admitted with a warning, which reaches
 * the client's callback (a server dry run stores nothing). */
static void test_apply_warning(trainer_client* client) {
  static const char kDocs[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: job-nort\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: no-such-runtime\n"
      "    kind: TrainingRuntime\n";
  trainer_cluster_apply_options opts = TRAINER_CLUSTER_APPLY_OPTIONS_INIT;
  trainer_cluster_apply_result* result = NULL;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;

  opts.dry_run = 1;
  g_warnings = 0;
  CHECK_STATUS(trainer_cluster_apply(client, kDocs, sizeof kDocs - 1, &opts, &result, &err),
               TRAINER_OK, err);
  trainer_cluster_apply_result_free(result);
  CHECK(g_warnings >= 1);
  CHECK(strstr(g_last_warning, "no-such-runtime") != NULL);
  CHECK_STATUS(trainer_cluster_get(client, "trainjob", NULL, "job-nort", NULL, TRAINER_FORMAT_JSON,
                                   &out, &err),
               TRAINER_E_NOT_FOUND, err);
  trainer_error_free(err);
}

struct watch_seen {
  int events;
  int complete;
};

static trainer_status on_event(void* user, const char* type, const char* object, size_t len) {
  struct watch_seen* seen = user;
  CHECK(strlen(object) == len);
  ++seen->events;
  if (strcmp(type, "MODIFIED") == 0 && strstr(object, "\"type\":\"Complete\"") != NULL) {
    seen->complete = 1;
    return TRAINER_CALLBACK_STOP;
  }
  return TRAINER_CALLBACK_CONTINUE;
}

/* The JSON string value after `"key":"` in `json`, copied into `out`. */
static void json_string(const char* json, const char* key, char* out, size_t size) {
  char pattern[128];
  const char* p;
  size_t n = 0;
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  p = strstr(json, pattern);
  CHECK(p != NULL);
  p += strlen(pattern);
  while (p[n] != '"' && n + 1 < size) ++n;
  memcpy(out, p, n);
  out[n] = '\0';
}

static void test_wait_and_watch(trainer_client* client) {
  trainer_cluster_wait_options wopts = TRAINER_CLUSTER_WAIT_OPTIONS_INIT;
  trainer_cluster_watch_options watch = TRAINER_CLUSTER_WATCH_OPTIONS_INIT;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  struct watch_seen seen = {0, 0};
  char version[64], path[512];

  /* Not complete yet: a zero timeout checks once. */
  CHECK_STATUS(trainer_cluster_wait(client, NULL, "job-a", "Complete", 0, NULL, &out, &err),
               TRAINER_E_TIMEOUT, err);
  CHECK(strstr(trainer_error_message(err), "trainjobs/job-a") != NULL);
  trainer_error_free(err);

  CHECK_STATUS(
      trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_OK, err);
  json_string(out.data, "resourceVersion", version, sizeof version);
  trainer_buffer_free(&out);

  /* Play the controller. */
  snprintf(path, sizeof path,
           "/apis/trainer.kubeflow.org/v1alpha1/namespaces/%s/trainjobs/job-a/status", g_ns);
  admin_request("PATCH", path, "application/merge-patch+json",
                "{\"status\":{\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\","
                "\"reason\":\"JobsCompleted\",\"message\":\"done\","
                "\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}");

  CHECK_STATUS(trainer_cluster_wait(client, NULL, "job-a", "complete", 30000, &wopts, &out, &err),
               TRAINER_OK, err);
  CHECK(strstr(out.data, "\"reason\":\"JobsCompleted\"") != NULL);
  trainer_buffer_free(&out);

  /* The change arrives as a MODIFIED event when watching from the version before it. */
  watch.name = "job-a";
  watch.resource_version = version;
  CHECK_STATUS(trainer_cluster_watch(client, NULL, &watch, on_event, &seen, &err), TRAINER_OK, err);
  CHECK(seen.complete == 1);

  /* A Complete TrainJob is not Failed: nothing to wait for. */
  wopts.status = "True";
  CHECK_STATUS(trainer_cluster_wait(client, NULL, "job-a", "Failed", 0, &wopts, &out, &err),
               TRAINER_E_TIMEOUT, err);
  trainer_error_free(err);
}

static trainer_status stop_with_error(void* user, const char* type, const char* object,
                                      size_t len) {
  (void)user;
  (void)type;
  (void)object;
  (void)len;
  return -42;
}

static trainer_status cancel_in_callback(void* user, const char* type, const char* object,
                                         size_t len) {
  (void)type;
  (void)object;
  (void)len;
  trainer_cancel_token_cancel(user);
  return TRAINER_CALLBACK_CONTINUE;
}

static void* cancel_later(void* token) {
  struct timespec pause = {0, 300 * 1000 * 1000};
  nanosleep(&pause, NULL);
  trainer_cancel_token_cancel(token);
  return NULL;
}

static void test_cancel_and_callback_errors(trainer_client* client) {
  trainer_cluster_wait_options wopts = TRAINER_CLUSTER_WAIT_OPTIONS_INIT;
  trainer_cluster_watch_options watch = TRAINER_CLUSTER_WATCH_OPTIONS_INIT;
  trainer_cluster_get_options gopts = TRAINER_CLUSTER_GET_OPTIONS_INIT;
  trainer_cancel_token* token = NULL;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  pthread_t thread;
  int64_t start;

  /* A callback's negative status ends the watch with TRAINER_E_USER. */
  CHECK_STATUS(trainer_cluster_watch(client, NULL, NULL, stop_with_error, NULL, &err),
               TRAINER_E_USER, err);
  CHECK(strstr(trainer_error_message(err), "-42") != NULL);
  trainer_error_free(err);

  /* Cancelled while the watch is open (from inside its callback). */
  CHECK_STATUS(trainer_cancel_token_new(&token, &err), TRAINER_OK, err);
  watch.cancel = token;
  CHECK_STATUS(trainer_cluster_watch(client, NULL, &watch, cancel_in_callback, token, &err),
               TRAINER_E_CANCELLED, err);
  trainer_error_free(err);
  /* A call started with a cancelled token fails at once. */
  gopts.cancel = token;
  CHECK_STATUS(trainer_cluster_get(client, "trainjob", NULL, "job-a", &gopts, TRAINER_FORMAT_JSON,
                                   &out, &err),
               TRAINER_E_CANCELLED, err);
  trainer_error_free(err);
  trainer_cancel_token_free(token);

  /* Cancelled from another thread while waiting for a condition that never comes. */
  CHECK_STATUS(trainer_cancel_token_new(&token, &err), TRAINER_OK, err);
  wopts.cancel = token;
  CHECK(pthread_create(&thread, NULL, cancel_later, token) == 0);
  start = now_ms();
  CHECK_STATUS(trainer_cluster_wait(client, NULL, "job-a", "Suspended", 60000, &wopts, &out, &err),
               TRAINER_E_CANCELLED, err);
  CHECK(now_ms() - start < 10000);
  trainer_error_free(err);
  CHECK(pthread_join(thread, NULL) == 0);
  trainer_cancel_token_free(token);
}

/* The client is shareable: threads call it at once. */
static void* get_many(void* client) {
  int i;
  for (i = 0; i < 20; ++i) {
    trainer_buffer out = TRAINER_BUFFER_INIT;
    trainer_error* err = NULL;
    CHECK_STATUS(trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON,
                                     &out, &err),
                 TRAINER_OK, err);
    CHECK(strstr(out.data, "\"name\":\"job-a\"") != NULL);
    trainer_buffer_free(&out);
  }
  return NULL;
}

static void test_concurrent_calls(trainer_client* client) {
  pthread_t threads[4];
  size_t i;
  for (i = 0; i < 4; ++i) CHECK(pthread_create(&threads[i], NULL, get_many, client) == 0);
  for (i = 0; i < 4; ++i) CHECK(pthread_join(threads[i], NULL) == 0);
}

static trainer_status on_log(void* user, const char* pod, const char* data, size_t len) {
  (void)user;
  (void)pod;
  (void)data;
  (void)len;
  return TRAINER_CALLBACK_CONTINUE;
}

static void test_logs_and_delete(trainer_client* client) {
  trainer_cluster_delete_options dopts = TRAINER_CLUSTER_DELETE_OPTIONS_INIT;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;

  /* No controller runs, so the TrainJob has no pods. */
  CHECK_STATUS(trainer_cluster_logs(client, NULL, "job-a", NULL, on_log, NULL, &err),
               TRAINER_E_NOT_FOUND, err);
  trainer_error_free(err);

  dopts.propagation = 7;
  CHECK_STATUS(trainer_cluster_delete(client, "trainjob", NULL, "job-a", &dopts, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  dopts.propagation = TRAINER_PROPAGATION_BACKGROUND;
  CHECK_STATUS(trainer_cluster_delete(client, "trainjob", NULL, "job-a", &dopts, &err), TRAINER_OK,
               err);
  CHECK_STATUS(
      trainer_cluster_get(client, "trainjob", NULL, "job-a", NULL, TRAINER_FORMAT_JSON, &out, &err),
      TRAINER_E_NOT_FOUND, err);
  trainer_error_free(err);
  CHECK_STATUS(trainer_cluster_delete(client, "trainjob", NULL, "job-a", NULL, &err),
               TRAINER_E_NOT_FOUND, err);
  CHECK(trainer_error_http_status(err) == 404);
  trainer_error_free(err);
  CHECK_STATUS(trainer_cluster_delete(client, "trainingruntime", NULL, "torch-rt", NULL, &err),
               TRAINER_OK, err);
}

int main(void) {
  const char* dir;
  char body[256];
  trainer_client* client;

  test_offline();

  if (getenv("TRAINER_KUBE_TEST_ENV") == NULL || *getenv("TRAINER_KUBE_TEST_ENV") == '\0') {
    printf("SKIPPED: TRAINER_KUBE_TEST_ENV is not set (no API server to test against)\n");
    return 77;
  }
  dir = getenv("TRAINER_TEST_APISERVER_DIR");
  if (dir == NULL || *dir == '\0') {
    printf(
        "SKIPPED: TRAINER_TEST_APISERVER_DIR is not set (run under ctest, whose fixture "
        "kube_apiserver starts the server)\n");
    return 77;
  }
  snprintf(g_dir, sizeof g_dir, "%s", dir);
  g_url = read_text("url");
  g_token = read_text("token");
  CHECK(g_url != NULL && g_token != NULL);

  snprintf(g_ns, sizeof g_ns, "capi-%ld-%ld", (long)getpid(), (long)(now_ms() % 100000));
  snprintf(body, sizeof body,
           "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}", g_ns);
  admin_request("POST", "/api/v1/namespaces", "application/json", body);

  g_warning_frees = 0;
  client = new_client();
  test_apply_get_list(client);
  test_limits();
  test_apply_invalid(client);
  test_apply_warning(client);
  test_wait_and_watch(client);
  test_cancel_and_callback_errors(client);
  test_concurrent_calls(client);
  test_logs_and_delete(client);
  trainer_client_free(client);
  CHECK(g_warning_frees == 1);

  free(g_url);
  free(g_token);
  printf("c_cluster_test: ok (namespace %s)\n", g_ns);
  return 0;
}
