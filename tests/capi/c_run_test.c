/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local execution section of the C ABI (trainer_run_*), from pure C11: a job that completes
 * (with its log lines delivered to the callback and its status readable from the run folder),
 * a job that fails, cancellation (by call and by a callback's status), every argument error, and
 * a job reporting progress to a progress server (trainer_progress_server_*) it was rendered with.
 * The pods run in the host fallback (TRAINER_ISOLATION_HOST) so the test needs no privilege;
 * tests/integration/local runs pods in their namespaces.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftw.h>
#include <sys/stat.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A rendered JobSet (as trainer_render / `trainerctl render` emit it): one replicated job,
 * two pods, each printing its completion index and a value from a ConfigMap. */
static const char* job_yaml(const char* script) {
  static char text[2048];
  snprintf(text, sizeof text,
           "apiVersion: v1\n"
           "kind: ConfigMap\n"
           "metadata: {name: greeting, namespace: default}\n"
           "data: {word: hello}\n"
           "---\n"
           "apiVersion: jobset.x-k8s.io/v1alpha2\n"
           "kind: JobSet\n"
           "metadata: {name: cjob, namespace: default}\n"
           "spec:\n"
           "  replicatedJobs:\n"
           "    - name: node\n"
           "      replicas: 1\n"
           "      template:\n"
           "        spec:\n"
           "          parallelism: 2\n"
           "          completions: 2\n"
           "          backoffLimit: 0\n"
           "          completionMode: Indexed\n"
           "          template:\n"
           "            spec:\n"
           "              restartPolicy: OnFailure\n"
           "              containers:\n"
           "                - name: node\n"
           "                  command: [/bin/sh, -c, '%s']\n"
           "                  env:\n"
           "                    - name: WORD\n"
           "                      valueFrom: {configMapKeyRef: {name: greeting, key: word}}\n",
           script);
  return text;
}

struct sink {
  int lines;
  int hello_lines;
  int freed;
  trainer_status reply;
};

static trainer_status on_log(void* user_data, const char* prefix, const char* pod,
                             int32_t is_stderr, const char* text, size_t len) {
  struct sink* s = (struct sink*)user_data;
  (void)pod;
  (void)is_stderr;
  ++s->lines;
  if (strncmp(prefix, "node-0-", 7) == 0 && len >= 6 && strncmp(text, "hello ", 6) == 0) {
    ++s->hello_lines;
  }
  return s->reply;
}

static void free_sink(void* user_data) {
  ((struct sink*)user_data)->freed += 1;
}

static char* make_dir(void) {
  char tmpl[] = "/tmp/trainer-c-run-XXXXXX";
  char* dir = mkdtemp(tmpl);
  if (dir == NULL) {
    perror("mkdtemp");
    exit(1);
  }
  return strdup(dir);
}

static int remove_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
  (void)st;
  (void)type;
  (void)ftw;
  return remove(path);
}

/* Removes the test's folder with everything the runs left in it. */
static void remove_tree(const char* dir) {
  if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) perror(dir);
}

static trainer_run_options options_for(const char* dir, struct sink* s) {
  trainer_run_options o = TRAINER_RUN_OPTIONS_INIT;
  char* run_dir = malloc(strlen(dir) + 5);
  sprintf(run_dir, "%s/run", dir);
  o.run_dir = run_dir; /* freed by the caller through free((char*)o.run_dir) */
  o.isolation = TRAINER_ISOLATION_HOST;
  o.on_log = on_log;
  o.log_user_data = s;
  o.log_user_data_free = free_sink;
  return o;
}

static void test_complete(const char* dir) {
  struct sink s = {0, 0, 0, TRAINER_OK};
  trainer_run_options o = options_for(dir, &s);
  const char* yaml = job_yaml("echo $WORD $JOB_COMPLETION_INDEX");
  trainer_run* run = NULL;
  trainer_error* err = NULL;
  CHECK(trainer_run_start(yaml, strlen(yaml), &o, &run, &err) == TRAINER_OK);
  CHECK(err == NULL);
  CHECK(run != NULL);
  int32_t phase = -1;
  CHECK(trainer_run_wait(run, 120000, &phase, &err) == TRAINER_OK);
  CHECK(phase == TRAINER_RUN_COMPLETE);
  CHECK(trainer_run_phase(run) == TRAINER_RUN_COMPLETE);
  CHECK(strcmp(trainer_run_phase_name(phase), "Complete") == 0);

  trainer_buffer status = TRAINER_BUFFER_INIT;
  CHECK(trainer_run_status(run, &status, &err) == TRAINER_OK);
  CHECK(status.data != NULL && strstr(status.data, "\"Complete\"") != NULL);
  trainer_buffer_free(&status);

  /* Both pods' lines reached the callback before wait() returned. */
  CHECK(s.hello_lines == 2);
  CHECK(s.freed == 0);
  trainer_run_free(run);
  CHECK(s.freed == 1);

  /* The run folder outlives the handle. */
  trainer_buffer saved = TRAINER_BUFFER_INIT;
  CHECK(trainer_run_read_status(o.run_dir, &saved, &err) == TRAINER_OK);
  CHECK(saved.data != NULL && strstr(saved.data, "\"Complete\"") != NULL);
  trainer_buffer_free(&saved);

  /* A folder that holds a run is refused, and the user data is still released. */
  struct sink again = {0, 0, 0, TRAINER_OK};
  trainer_run_options o2 = o;
  o2.log_user_data = &again;
  CHECK(trainer_run_start(yaml, strlen(yaml), &o2, &run, &err) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(err != NULL);
  trainer_error_free(err);
  err = NULL;
  CHECK(again.freed == 1);
  free((char*)o.run_dir);
}

static void test_failed(const char* dir) {
  struct sink s = {0, 0, 0, TRAINER_OK};
  trainer_run_options o = options_for(dir, &s);
  const char* yaml = job_yaml("exit 3");
  trainer_run* run = NULL;
  trainer_error* err = NULL;
  CHECK(trainer_run_start(yaml, strlen(yaml), &o, &run, &err) == TRAINER_OK);
  int32_t phase = -1;
  CHECK(trainer_run_wait(run, 120000, &phase, &err) == TRAINER_OK);
  CHECK(phase == TRAINER_RUN_FAILED);
  trainer_run_free(run);
  CHECK(s.freed == 1);
  free((char*)o.run_dir);
}

static void test_cancel(const char* dir, int by_callback) {
  struct sink s = {0, 0, 0, by_callback ? TRAINER_E_USER : TRAINER_OK};
  trainer_run_options o = options_for(dir, &s);
  const char* yaml = job_yaml("echo $WORD $JOB_COMPLETION_INDEX; exec sleep 600");
  trainer_run* run = NULL;
  trainer_error* err = NULL;
  CHECK(trainer_run_start(yaml, strlen(yaml), &o, &run, &err) == TRAINER_OK);
  int32_t phase = -1;
  if (!by_callback) {
    /* Still running after a short wait: the timeout is reported as such. */
    CHECK(trainer_run_wait(run, 200, &phase, &err) == TRAINER_E_TIMEOUT);
    CHECK(err != NULL && trainer_error_code(err) == TRAINER_E_TIMEOUT);
    trainer_error_free(err);
    err = NULL;
    trainer_run_cancel(run);
  }
  CHECK(trainer_run_wait(run, 120000, &phase, &err) == TRAINER_OK);
  CHECK(phase == TRAINER_RUN_FAILED);
  trainer_buffer status = TRAINER_BUFFER_INIT;
  CHECK(trainer_run_status(run, &status, &err) == TRAINER_OK);
  CHECK(status.data != NULL && strstr(status.data, "Cancelled") != NULL);
  trainer_buffer_free(&status);
  trainer_run_free(run);
  CHECK(s.freed == 1);
  free((char*)o.run_dir);
}

/* Checks the status of the call just made and the error it left in `*err` (read only after the
 * call: C leaves the order of argument evaluation unspecified). */
static void expect_error(const char* what, trainer_status got, trainer_status want,
                         trainer_error** errp) {
  trainer_error* err = *errp;
  *errp = NULL;
  if (got != want) {
    fprintf(stderr, "%s: got %s, want %s\n", what, trainer_status_name(got),
            trainer_status_name(want));
    ++failures;
  }
  if (err == NULL || trainer_error_code(err) != want || trainer_error_message(err)[0] == '\0') {
    fprintf(stderr, "%s: no error object with a message\n", what);
    ++failures;
  }
  trainer_error_free(err);
}

static void test_argument_errors(const char* dir) {
  const char* yaml = job_yaml("true");
  size_t len = strlen(yaml);
  trainer_run* run = NULL;
  trainer_error* err = NULL;
  struct sink s = {0, 0, 0, TRAINER_OK};
  trainer_run_options o = options_for(dir, &s);

  expect_error("NULL options", trainer_run_start(yaml, len, NULL, &run, &err),
               TRAINER_E_INVALID_ARGUMENT, &err);
  expect_error("NULL out", trainer_run_start(yaml, len, &o, NULL, &err), TRAINER_E_INVALID_ARGUMENT,
               &err);
  trainer_run_options bad = o;
  bad.version = 99;
  expect_error("options version", trainer_run_start(yaml, len, &bad, &run, &err),
               TRAINER_E_INVALID_ARGUMENT, &err);
  bad = o;
  bad.isolation = 7;
  expect_error("isolation", trainer_run_start(yaml, len, &bad, &run, &err),
               TRAINER_E_INVALID_ARGUMENT, &err);
  bad = o;
  bad.run_dir = NULL;
  expect_error("run_dir", trainer_run_start(yaml, len, &bad, &run, &err),
               TRAINER_E_INVALID_ARGUMENT, &err);
  expect_error("parse", trainer_run_start("a: [", 4, &o, &run, &err), TRAINER_E_PARSE, &err);
  const char* no_jobset = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n";
  expect_error("no JobSet", trainer_run_start(no_jobset, strlen(no_jobset), &o, &run, &err),
               TRAINER_E_INVALID, &err);
  CHECK(run == NULL);
  /* The user data was released by every failed start whose options it could read: all but the
   * NULL options and the unknown options version (5 of them). */
  CHECK(s.freed == 5);

  expect_error("wait NULL", trainer_run_wait(NULL, 0, NULL, &err), TRAINER_E_INVALID_ARGUMENT,
               &err);
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  expect_error("status NULL", trainer_run_status(NULL, &buf, &err), TRAINER_E_INVALID_ARGUMENT,
               &err);
  expect_error("read_status missing", trainer_run_read_status(dir, &buf, &err), TRAINER_E_NOT_FOUND,
               &err);
  CHECK(trainer_run_phase(NULL) == TRAINER_RUN_FAILED);
  CHECK(strcmp(trainer_run_phase_name(42), "Unknown") == 0);
  trainer_run_cancel(NULL);
  trainer_run_free(NULL);
  free((char*)o.run_dir);
}

/* A TrainJob whose trainer pod reports progress to the run's progress server (its env, CA and
 * projected token, rendered with the server): tests/data/local/progress_post.py. */
static const char* progress_inputs =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainingRuntime\n"
    "metadata: {name: report, namespace: default}\n"
    "spec:\n"
    "  mlPolicy: {numNodes: 1}\n"
    "  template:\n"
    "    spec:\n"
    "      replicatedJobs:\n"
    "        - name: node\n"
    "          template:\n"
    "            metadata:\n"
    "              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}\n"
    "            spec:\n"
    "              template:\n"
    "                spec:\n"
    "                  containers:\n"
    "                    - name: node\n"
    "                      image: unused\n"
    "                      command: [python3, " TRAINER_TEST_PROGRESS_POST
    ", '55']\n"
    "---\n"
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainJob\n"
    "metadata: {name: report, namespace: default}\n"
    "spec:\n"
    "  runtimeRef: {name: report, kind: TrainingRuntime}\n";

static void test_progress(const char* dir) {
  trainer_progress_server* server = NULL;
  trainer_error* err = NULL;
  CHECK(trainer_progress_server_start(NULL, 0, &server, &err) == TRAINER_OK);
  CHECK(err == NULL && server != NULL);
  CHECK(trainer_progress_server_port(server) > 0);
  CHECK(strncmp(trainer_progress_server_ca_cert(server), "-----BEGIN CERTIFICATE-----", 27) == 0);
  CHECK(trainer_progress_server_port(NULL) == 0 && trainer_progress_server_ca_cert(NULL) == NULL);

  trainer_render_options ro = TRAINER_RENDER_OPTIONS_INIT;
  ro.feature_gates = "TrainJobStatus=true";
  ro.progress_server = server;
  trainer_render_result* rendered = NULL;
  CHECK(trainer_render(progress_inputs, strlen(progress_inputs), &ro, &rendered, &err) ==
        TRAINER_OK);
  if (rendered == NULL) {
    fprintf(stderr, "render: %s\n", err != NULL ? trainer_error_message(err) : "?");
    trainer_error_free(err);
    trainer_progress_server_free(server);
    ++failures;
    return;
  }
  /* The objects and the TrainJob as one YAML stream (of JSON documents, then the YAML one). */
  size_t size = strlen(progress_inputs) + 5;
  for (size_t i = 0; i < trainer_render_result_count(rendered); ++i) {
    size += strlen(trainer_render_result_json(rendered, i)) + 5;
  }
  char* objects = calloc(size, 1);
  strcat(objects, "---\n");
  for (size_t i = 0; i < trainer_render_result_count(rendered); ++i) {
    strcat(objects, trainer_render_result_json(rendered, i));
    strcat(objects, "\n---\n");
  }
  strcat(objects,
         strstr(progress_inputs, "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob"));
  /* The URL carries the server's port. */
  char port[16];
  snprintf(port, sizeof port, ":%u/", (unsigned)trainer_progress_server_port(server));
  CHECK(strstr(objects, port) != NULL);
  trainer_render_result_free(rendered);

  struct sink s = {0, 0, 0, TRAINER_OK};
  trainer_run_options o = options_for(dir, &s);
  /* A version 1 struct has no progress server: the projected token is refused. */
  o.version = 1;
  trainer_run* run = NULL;
  expect_error("version 1 options", trainer_run_start(objects, strlen(objects), &o, &run, &err),
               TRAINER_E_UNSUPPORTED, &err);
  CHECK(s.freed == 1);
  s.freed = 0;
  o.version = TRAINER_RUN_OPTIONS_VERSION;
  o.progress_server = server;
  CHECK(trainer_run_start(objects, strlen(objects), &o, &run, &err) == TRAINER_OK);
  /* The run holds the server: the caller's handle may go at once. */
  trainer_progress_server_free(server);
  int32_t phase = -1;
  CHECK(run != NULL && trainer_run_wait(run, 120000, &phase, &err) == TRAINER_OK);
  CHECK(phase == TRAINER_RUN_COMPLETE);
  trainer_buffer status = TRAINER_BUFFER_INIT;
  CHECK(trainer_run_status(run, &status, &err) == TRAINER_OK);
  CHECK(status.data != NULL && strstr(status.data, "\"progressPercentage\":55") != NULL);
  trainer_buffer_free(&status);
  trainer_run_free(run);
  free((char*)o.run_dir);
  free(objects);
}

int main(void) {
  char* dir = make_dir();
  char sub[5][512];
  for (int i = 0; i < 5; ++i) {
    snprintf(sub[i], sizeof sub[i], "%s/%d", dir, i);
  }
  test_argument_errors(dir);
  test_complete(sub[0]);
  test_failed(sub[1]);
  test_cancel(sub[2], 0);
  test_cancel(sub[3], 1);
  test_progress(sub[4]);
  remove_tree(dir);
  free(dir);
  if (failures != 0) {
    fprintf(stderr, "c_run_test: %d failure(s)\n", failures);
    return 1;
  }
  puts("c_run_test: all passed");
  return 0;
}
