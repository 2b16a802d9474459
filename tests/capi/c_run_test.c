/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local execution section of the C ABI (trainer_run_*), from pure C11: a job that completes
 * (with its log lines delivered to the callback and its status readable from the run folder),
 * a job that fails, cancellation (by call and by a callback's status), and every argument error.
 * The pods run in the host fallback (TRAINER_ISOLATION_HOST) so the test needs no privilege;
 * tests/integration/local runs pods in their namespaces.
 */
#define _POSIX_C_SOURCE 200809L
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void) {
  char* dir = make_dir();
  char sub[4][512];
  for (int i = 0; i < 4; ++i) {
    snprintf(sub[i], sizeof sub[i], "%s/%d", dir, i);
  }
  test_argument_errors(dir);
  test_complete(sub[0]);
  test_failed(sub[1]);
  test_cancel(sub[2], 0);
  test_cancel(sub[3], 1);
  free(dir);
  if (failures != 0) {
    fprintf(stderr, "c_run_test: %d failure(s)\n", failures);
    return 1;
  }
  puts("c_run_test: all passed");
  return 0;
}
