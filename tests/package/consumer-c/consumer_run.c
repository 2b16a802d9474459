/* SPDX-License-Identifier: Apache-2.0 */
/* Runs a one-pod JobSet through the C ABI (trainer_run_*) with no pod helper named: libtrainer.so
 * must find the installed trainer-pod relative to itself, since this program lives outside the
 * prefix. Usage: consumer_run RUN_DIR. */
#include <stdio.h>
#include <string.h>
#include <trainer.h>

static const char kJobSet[] =
    "apiVersion: jobset.x-k8s.io/v1alpha2\n"
    "kind: JobSet\n"
    "metadata: {name: tiny, namespace: default}\n"
    "spec:\n"
    "  replicatedJobs:\n"
    "    - name: node\n"
    "      replicas: 1\n"
    "      template:\n"
    "        spec:\n"
    "          backoffLimit: 0\n"
    "          template:\n"
    "            spec:\n"
    "              containers:\n"
    "                - name: node\n"
    "                  command: [/bin/sh, -c, 'echo tiny-run-ok']\n";

static int seen = 0;

static trainer_status on_log(void* user_data, const char* prefix, const char* pod,
                             int32_t is_stderr, const char* text, size_t len) {
  (void)user_data;
  (void)prefix;
  (void)pod;
  (void)is_stderr;
  if (len == strlen("tiny-run-ok") && memcmp(text, "tiny-run-ok", len) == 0) seen = 1;
  return TRAINER_OK;
}

int main(int argc, char** argv) {
  trainer_run_options options = TRAINER_RUN_OPTIONS_INIT;
  trainer_run* run = NULL;
  trainer_error* err = NULL;
  int32_t phase = TRAINER_RUN_FAILED;
  trainer_status st;

  if (argc != 2) {
    fprintf(stderr, "usage: consumer_run RUN_DIR\n");
    return 2;
  }
  options.run_dir = argv[1];
  options.isolation = TRAINER_ISOLATION_HOST; /* no privilege needed */
  options.on_log = on_log;
  st = trainer_run_start(kJobSet, sizeof kJobSet - 1, &options, &run, &err);
  if (st != TRAINER_OK) {
    fprintf(stderr, "trainer_run_start: %s: %s\n", trainer_status_name(st),
            trainer_error_message(err));
    trainer_error_free(err);
    return 1;
  }
  st = trainer_run_wait(run, 60000, &phase, &err);
  trainer_run_free(run);
  if (st != TRAINER_OK || phase != TRAINER_RUN_COMPLETE || !seen) {
    fprintf(stderr, "run: %s, phase %s, output seen %d\n", trainer_status_name(st),
            trainer_run_phase_name(phase), seen);
    trainer_error_free(err);
    return 1;
  }
  printf("consumer_run: the pod ran through the installed trainer-pod\n");
  return 0;
}
