/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller section of the C ABI (trainer/controller.h) from pure C against the real
 * kube-apiserver of the CTest fixture `kube_apiserver` (TRAINER_TEST_APISERVER_DIR): one reconcile
 * by name, then the loop run on a thread of its own and stopped from another, with its callback
 * and metrics. Everything happens in a namespace of this test's own (the controller watches only
 * it). Without TRAINER_KUBE_TEST_ENV the checks that need no server still run, then the test
 * prints SKIPPED and exits 77.
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

#define TRAINJOB_YAML(name, runtime)            \
  "apiVersion: trainer.kubeflow.org/v1alpha1\n" \
  "kind: TrainJob\n"                            \
  "metadata:\n"                                 \
  "  name: " name                               \
  "\n"                                          \
  "spec:\n"                                     \
  "  runtimeRef:\n"                             \
  "    name: " runtime                          \
  "\n"                                          \
  "    kind: TrainingRuntime\n"                 \
  "  trainer:\n"                                \
  "    numNodes: 2\n"

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

/* An admin request with curl; returns curl's exit status (0: a 2xx answer). */
static int admin_request(const char* method, const char* path, const char* body) {
  char command[4096];
  snprintf(command, sizeof command,
           "curl -sSf -o /dev/null --max-time 30 --cacert '%s/ca.crt' -H 'Authorization: Bearer "
           "%s' -X %s -H 'Content-Type: application/json' %s%s%s '%s%s' 2>/dev/null",
           g_dir, g_token, method, body ? "--data '" : "", body ? body : "", body ? "'" : "", g_url,
           path);
  return system(command);
}

static int jobset_exists(const char* name) {
  char path[512];
  snprintf(path, sizeof path, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/%s/jobsets/%s", g_ns,
           name);
  return admin_request("GET", path, NULL) == 0;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* ---- Without a server ---------------------------------------------------------------------- */

static int g_frees;
static void count_free(void* user) {
  CHECK(user == &g_frees);
  ++g_frees;
}

static void test_offline(void) {
  trainer_controller_options opts;
  trainer_controller_reconcile_options ropts;
  trainer_controller* ctl = SENTINEL(trainer_controller);
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;

  CHECK(trainer_controller_options_init(&opts, TRAINER_CONTROLLER_OPTIONS_VERSION) == TRAINER_OK);
  CHECK(opts.version == TRAINER_CONTROLLER_OPTIONS_VERSION && opts.workers == 0 &&
        opts.on_reconcile == NULL && opts.namespace_name == NULL);
  CHECK(opts.webhook_port == 0 && opts.webhook_bind_address == NULL &&
        opts.webhook_cert_hosts == NULL && opts.status_server_port == 0 &&
        opts.operator_namespace == NULL);
  /* Version 2 ends before the serving fields: they are not written. */
  opts.webhook_port = 77;
  CHECK(trainer_controller_options_init(&opts, 2) == TRAINER_OK);
  CHECK(opts.version == 2 && opts.webhook_port == 77 && opts.framework == NULL);
  CHECK(trainer_controller_options_init(&opts, 99) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_controller_options_init(NULL, TRAINER_CONTROLLER_OPTIONS_VERSION) ==
        TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_controller_reconcile_options_init(
            &ropts, TRAINER_CONTROLLER_RECONCILE_OPTIONS_VERSION) == TRAINER_OK);
  CHECK(ropts.cancel == NULL && ropts.feature_gates == NULL);
  CHECK(trainer_controller_reconcile_options_init(&ropts, 0) == TRAINER_E_INVALID_ARGUMENT);

  /* NULL client: refused, out reset, the user data released exactly once. */
  opts.reconcile_user_data = &g_frees;
  opts.reconcile_user_data_free = count_free;
  CHECK_STATUS(trainer_controller_new(NULL, &opts, &ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(ctl == NULL);
  CHECK(err != NULL && strstr(trainer_error_message(err), "client") != NULL);
  trainer_error_free(err);
  CHECK(g_frees == 1);
  /* A version from the future: its fields (the free function too) are not read. */
  opts.version = TRAINER_CONTROLLER_OPTIONS_VERSION + 1;
  CHECK_STATUS(trainer_controller_new(NULL, &opts, &ctl, NULL), TRAINER_E_INVALID_ARGUMENT, NULL);
  CHECK(g_frees == 1);

  trainer_controller_free(NULL);
  trainer_controller_stop(NULL);
  CHECK_STATUS(trainer_controller_run(NULL, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK_STATUS(trainer_controller_metrics(NULL, &buf, NULL), TRAINER_E_INVALID_ARGUMENT, NULL);
  CHECK_STATUS(trainer_controller_reconcile(NULL, "ns", "x", NULL, &buf, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK(buf.data == NULL && buf.len == 0);
}

/* ---- Against the server -------------------------------------------------------------------- */

static trainer_client* new_client(void) {
  char kubeconfig[1200];
  trainer_client_options opts = TRAINER_CLIENT_OPTIONS_INIT;
  trainer_client* client = NULL;
  trainer_error* err = NULL;
  snprintf(kubeconfig, sizeof kubeconfig, "%s/kubeconfig", g_dir);
  opts.kubeconfig = kubeconfig;
  opts.namespace_name = g_ns;
  opts.qps = -1;
  CHECK_STATUS(trainer_client_new(&opts, &client, &err), TRAINER_OK, err);
  return client;
}

static void apply(trainer_client* client, const char* yaml) {
  trainer_cluster_apply_result* result = NULL;
  trainer_error* err = NULL;
  CHECK_STATUS(trainer_cluster_apply(client, yaml, strlen(yaml), NULL, &result, &err), TRAINER_OK,
               err);
  trainer_cluster_apply_result_free(result);
}

static void test_reconcile_by_name(trainer_client* client) {
  trainer_controller_reconcile_options ropts = TRAINER_CONTROLLER_RECONCILE_OPTIONS_INIT;
  trainer_buffer out = TRAINER_BUFFER_INIT;
  trainer_buffer taken = TRAINER_BUFFER_INIT;
  trainer_cancel_token* token = NULL;
  trainer_error* err = NULL;
  char key[256];

  apply(client, RUNTIME_YAML "---\n" TRAINJOB_YAML("once", "torch-rt"));
  CHECK(!jobset_exists("once"));
  /* NULL namespace: the client's. */
  CHECK_STATUS(trainer_controller_reconcile(client, NULL, "once", NULL, &out, &err), TRAINER_OK,
               err);
  CHECK(out.data != NULL && strlen(out.data) == out.len);
  snprintf(key, sizeof key, "\"key\":\"%s/once\"", g_ns);
  CHECK(strstr(out.data, key) != NULL);
  CHECK(strstr(out.data, "\"skipped\":false") != NULL);
  CHECK(strstr(out.data, "jobset.jobset.x-k8s.io/once") != NULL);
  CHECK(jobset_exists("once"));
  /* The output buffer must be empty. */
  CHECK_STATUS(trainer_controller_reconcile(client, g_ns, "once", NULL, &out, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  trainer_buffer_free(&out);

  /* A TrainJob that does not exist: skipped, not an error. */
  CHECK_STATUS(trainer_controller_reconcile(client, g_ns, "absent", &ropts, &out, &err), TRAINER_OK,
               err);
  CHECK(strstr(out.data, "\"skipped\":true") != NULL);
  CHECK(strstr(out.data, "\"applied\":[]") != NULL);
  trainer_buffer_free(&out);

  /* Its runtime is missing: the reconcile fails with NotFound, the buffer stays untouched. */
  apply(client, TRAINJOB_YAML("orphan", "nowhere"));
  CHECK_STATUS(trainer_controller_reconcile(client, g_ns, "orphan", &ropts, &out, &err),
               TRAINER_E_NOT_FOUND, err);
  CHECK(strstr(trainer_error_message(err), "nowhere") != NULL);
  trainer_error_free(err);
  CHECK(out.data == NULL && out.len == 0);
  CHECK(!jobset_exists("orphan"));

  /* Options: gates that do not parse; a cancelled token. */
  ropts.feature_gates = "NoSuchGate=true";
  CHECK_STATUS(trainer_controller_reconcile(client, g_ns, "once", &ropts, &out, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(strstr(trainer_error_message(err), "NoSuchGate") != NULL);
  trainer_error_free(err);
  ropts.feature_gates = "TrainJobStatus=true";
  CHECK_STATUS(trainer_cancel_token_new(&token, &err), TRAINER_OK, err);
  trainer_cancel_token_cancel(token);
  ropts.cancel = token;
  CHECK_STATUS(trainer_controller_reconcile(client, g_ns, "once", &ropts, &taken, &err),
               TRAINER_E_CANCELLED, err);
  trainer_error_free(err);
  trainer_cancel_token_free(token);
  ropts.version = 7;
  CHECK_STATUS(trainer_controller_reconcile(client, g_ns, "once", &ropts, &out, &err),
               TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
}

/* What the loop's callback saw, from its worker threads. */
static pthread_mutex_t g_seen_mutex = PTHREAD_MUTEX_INITIALIZER;
static int g_seen_loop;
static int g_seen_errors;
static int g_seen_bad;

static trainer_status on_reconcile(void* user, const char* result, size_t len,
                                   const trainer_error* error) {
  char key[256];
  pthread_mutex_lock(&g_seen_mutex);
  if (user != &g_frees || strlen(result) != len) ++g_seen_bad;
  snprintf(key, sizeof key, "\"key\":\"%s/loop\"", g_ns);
  if (strstr(result, key) != NULL && strstr(result, "jobset.jobset.x-k8s.io/loop") != NULL) {
    ++g_seen_loop;
  }
  if (error != NULL) ++g_seen_errors;
  pthread_mutex_unlock(&g_seen_mutex);
  return TRAINER_OK;
}

struct run_args {
  trainer_controller* ctl;
  trainer_status status;
  trainer_error* err;
};

static void* run_thread(void* p) {
  struct run_args* args = p;
  args->status = trainer_controller_run(args->ctl, &args->err);
  return NULL;
}

static void test_run_and_stop(trainer_client* client) {
  trainer_controller_options opts = TRAINER_CONTROLLER_OPTIONS_INIT;
  trainer_controller* ctl = NULL;
  trainer_buffer metrics = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  struct run_args args;
  pthread_t thread;
  int64_t deadline;
  int seen = 0;

  /* The serving fields (struct version 3) are checked: a port out of range is refused. */
  opts.webhook_port = 70000;
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(err != NULL && strstr(trainer_error_message(err), "webhook_port") != NULL);
  trainer_error_free(err);
  err = NULL;
  opts.webhook_port = 0;
  opts.status_server_port = -2;
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  err = NULL;
  opts.status_server_port = 0;

  g_frees = 0;
  opts.namespace_name = g_ns;
  opts.workers = 2;
  opts.shutdown_timeout_ms = 10000;
  opts.on_reconcile = on_reconcile;
  opts.reconcile_user_data = &g_frees;
  opts.reconcile_user_data_free = count_free;
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_OK, err);
  args.ctl = ctl;
  args.status = 1;
  args.err = NULL;
  CHECK(pthread_create(&thread, NULL, run_thread, &args) == 0);

  /* A TrainJob created while the loop runs gets its JobSet, and the callback hears of it. */
  apply(client, TRAINJOB_YAML("loop", "torch-rt"));
  deadline = now_ms() + 30000;
  while (now_ms() < deadline) {
    pthread_mutex_lock(&g_seen_mutex);
    seen = g_seen_loop;
    pthread_mutex_unlock(&g_seen_mutex);
    if (seen > 0) break;
    sleep_ms(100);
  }
  CHECK(seen > 0);
  CHECK(jobset_exists("loop"));
  CHECK(g_seen_bad == 0);

  CHECK_STATUS(trainer_controller_metrics(ctl, &metrics, &err), TRAINER_OK, err);
  CHECK(strstr(metrics.data, "# TYPE trainer_reconcile_total counter") != NULL);
  CHECK(strstr(metrics.data, "trainer_reconcile_total 0\n") == NULL);
  CHECK_STATUS(trainer_controller_metrics(ctl, &metrics, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  trainer_buffer_free(&metrics);

  /* Stopped from this thread: the run returns OK within the bound. */
  deadline = now_ms();
  trainer_controller_stop(ctl);
  trainer_controller_stop(ctl);
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK_STATUS(args.status, TRAINER_OK, args.err);
  CHECK(now_ms() - deadline < 15000);
  /* A controller runs once. */
  CHECK_STATUS(trainer_controller_run(ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK(g_frees == 0);
  trainer_controller_free(ctl);
  CHECK(g_frees == 1);

  /* A stop before the run: the run returns at once. */
  CHECK_STATUS(trainer_controller_new(client, NULL, &ctl, &err), TRAINER_OK, err);
  trainer_controller_stop(ctl);
  deadline = now_ms();
  CHECK_STATUS(trainer_controller_run(ctl, &err), TRAINER_OK, err);
  CHECK(now_ms() - deadline < 5000);
  trainer_controller_free(ctl);
}

static void test_once(trainer_client* client) {
  trainer_controller_options opts = TRAINER_CONTROLLER_OPTIONS_INIT;
  trainer_controller* ctl = NULL;
  trainer_error* err = NULL;

  /* "orphan" (no runtime) is among the TrainJobs: once fails with its error. */
  opts.namespace_name = g_ns;
  opts.once = 1;
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_OK, err);
  CHECK_STATUS(trainer_controller_run(ctl, &err), TRAINER_E_NOT_FOUND, err);
  CHECK(strstr(trainer_error_message(err), "nowhere") != NULL);
  trainer_error_free(err);
  trainer_controller_free(ctl);

  /* Bad options. */
  opts.feature_gates = "TrainJobStatus=maybe";
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  opts.feature_gates = NULL;
  opts.workers = -1;
  CHECK_STATUS(trainer_controller_new(client, &opts, &ctl, &err), TRAINER_E_INVALID_ARGUMENT, err);
  trainer_error_free(err);
  CHECK(ctl == NULL);
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

  snprintf(g_ns, sizeof g_ns, "capi-ctl-%ld-%ld", (long)getpid(), (long)(now_ms() % 100000));
  snprintf(body, sizeof body,
           "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}", g_ns);
  CHECK(admin_request("POST", "/api/v1/namespaces", body) == 0);

  client = new_client();
  test_reconcile_by_name(client);
  test_run_and_stop(client);
  test_once(client);
  trainer_client_free(client);

  free(g_url);
  free(g_token);
  printf("c_controller_test: ok (namespace %s)\n", g_ns);
  return 0;
}
