/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trainer_render* from C: options, the result accessors, encodings, determinism and every error
 * class. Inputs come from the golden cases (TRAINER_GOLDEN_CASES) and the fixed MPI key of their
 * test data (TRAINER_GOLDEN_TESTDATA); the objects themselves are checked against the expected
 * files by the golden tests (`golden.capi:*`), so this test checks the C surface around them.
 * Compiled as C11 with -pedantic-errors and linked against libtrainer.so only.
 */
#include "c_check.h"
#include "c_fixtures.h"
#include "trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(TRAINER_GOLDEN_CASES) || !defined(TRAINER_GOLDEN_TESTDATA)
#error "TRAINER_GOLDEN_CASES and TRAINER_GOLDEN_TESTDATA must be defined"
#endif

#define CHECK_CONTAINS(haystack, needle) CHECK((haystack) != NULL && strstr((haystack), (needle)))

static const char kUid[] = "3f0c9a6e-5b1d-4c2e-9a7f-0d1e2c3b4a59";
static const char kNow[] = "2025-01-01T00:00:00Z";

/* ---- Input files ---------------------------------------------------------------------- */

/* The whole file at `path`, NUL-terminated, malloc'ed; exits when it cannot be read. */
static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text;
  long size;
  if (f == NULL) {
    fprintf(stderr, "c_render_test.c: cannot open %s\n", path);
    exit(1);
  }
  CHECK(fseek(f, 0, SEEK_END) == 0);
  size = ftell(f);
  CHECK(size >= 0);
  CHECK(fseek(f, 0, SEEK_SET) == 0);
  text = malloc((size_t)size + 1);
  CHECK(text != NULL);
  CHECK(fread(text, 1, (size_t)size, f) == (size_t)size);
  text[size] = '\0';
  fclose(f);
  return text;
}

/* preconditions.yaml (when the case has one: objects that exist in the cluster), runtime.yaml
 * and trainjob.yaml of golden case `name`, as one YAML stream (malloc'ed). */
static char* case_input(const char* name) {
  static const char* const files[] = {"preconditions.yaml", "runtime.yaml", "trainjob.yaml"};
  char path[512];
  char* all = NULL;
  size_t len = 0, i;
  for (i = 0; i < 3; ++i) {
    FILE* probe;
    char* part;
    snprintf(path, sizeof path, "%s/%s/%s", TRAINER_GOLDEN_CASES, name, files[i]);
    probe = fopen(path, "rb");
    if (probe == NULL && i == 0) continue;
    if (probe != NULL) fclose(probe);
    part = read_file(path);
    all = realloc(all, len + strlen(part) + 6);
    CHECK(all != NULL);
    len += (size_t)sprintf(all + len, "%s%s", len == 0 ? "" : "\n---\n", part);
    free(part);
  }
  return all;
}

static const char kMpiCase[] = "18-mpi-openmpi-separate-launcher";

/* Options that make a render reproducible: fixed UID, clock and MPI key. */
static trainer_render_options fixed_options(const char* private_key) {
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  opts.uid = kUid;
  opts.now = kNow;
  opts.ssh_private_key = private_key;
  return opts;
}

static trainer_render_result* render_ok(const char* text, const trainer_render_options* opts) {
  trainer_render_result* result = SENTINEL(trainer_render_result);
  trainer_error* err = SENTINEL(trainer_error);
  trainer_status st = trainer_render(text, strlen(text), opts, &result, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(err == NULL);
  CHECK(result != NULL);
  return result;
}

/* Renders `text` expecting `expected`; returns the error (caller frees). */
static trainer_error* render_fails(const char* text, const trainer_render_options* opts,
                                   trainer_status expected) {
  trainer_render_result* result = SENTINEL(trainer_render_result);
  trainer_error* err = NULL;
  trainer_status st = trainer_render(text, strlen(text), opts, &result, &err);
  CHECK_STATUS(st, expected, err);
  CHECK(result == NULL);
  CHECK(err != NULL);
  CHECK(trainer_error_code(err) == expected);
  return err;
}

static char* encode(const trainer_render_result* result, trainer_format fmt) {
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  trainer_error* err = SENTINEL(trainer_error);
  char* copy;
  CHECK_STATUS(trainer_render_result_encode(result, fmt, &buf, &err), TRAINER_OK, err);
  CHECK(err == NULL);
  CHECK(buf.data != NULL && strlen(buf.data) == buf.len);
  copy = malloc(buf.len + 1);
  CHECK(copy != NULL);
  memcpy(copy, buf.data, buf.len + 1);
  trainer_buffer_free(&buf);
  return copy;
}

/* ---- Tests ---------------------------------------------------------------------------- */

static void test_options_init(void) {
  trainer_render_options opts;
  memset(&opts, 0x5a, sizeof opts);
  CHECK(trainer_render_options_init(&opts, TRAINER_RENDER_OPTIONS_VERSION) == TRAINER_OK);
  CHECK(opts.version == TRAINER_RENDER_OPTIONS_VERSION);
  CHECK(opts.uid == NULL && opts.namespace_name == NULL && opts.feature_gates == NULL);
  CHECK(opts.ssh_private_key == NULL && opts.now == NULL && opts.parse == NULL);
  CHECK(opts.builtin_runtimes == 0);
  CHECK(trainer_render_options_init(&opts, 0) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_render_options_init(&opts, TRAINER_RENDER_OPTIONS_VERSION + 1) ==
        TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_render_options_init(NULL, TRAINER_RENDER_OPTIONS_VERSION) ==
        TRAINER_E_INVALID_ARGUMENT);
}

static void test_null_arguments(void) {
  trainer_render_result* result = SENTINEL(trainer_render_result);
  trainer_error* err = NULL;
  trainer_render_options bad_version = TRAINER_RENDER_OPTIONS_INIT;
  trainer_buffer buf = TRAINER_BUFFER_INIT;

  CHECK(trainer_render("x", 1, NULL, NULL, &err) == TRAINER_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(trainer_error_message(err), "out is NULL");
  trainer_error_free(err);
  CHECK(trainer_render(NULL, 3, NULL, &result, NULL) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(result == NULL);
  bad_version.version = 99;
  CHECK(trainer_render("", 0, &bad_version, &result, &err) == TRAINER_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(trainer_error_message(err), "trainer_render_options version 99");
  trainer_error_free(err);

  /* accessors of a NULL result never fail */
  trainer_render_result_free(NULL);
  CHECK(trainer_render_result_count(NULL) == 0);
  CHECK(trainer_render_result_json(NULL, 0) == NULL);
  CHECK(trainer_render_result_kind(NULL, 0) == NULL);
  CHECK(trainer_render_result_api_version(NULL, 0) == NULL);
  CHECK(trainer_render_result_name(NULL, 0) == NULL);
  CHECK(trainer_render_result_namespace(NULL, 0) == NULL);
  CHECK(trainer_render_result_warning_count(NULL) == 0);
  CHECK(trainer_render_result_warning(NULL, 0) == NULL);
  CHECK_STR(trainer_render_result_skipped_reason(NULL), "");
  CHECK(trainer_render_result_encode(NULL, TRAINER_FORMAT_YAML, &buf, NULL) ==
        TRAINER_E_INVALID_ARGUMENT);
}

static void test_mpi_objects(const char* private_key) {
  char* input = case_input(kMpiCase);
  trainer_render_options opts = fixed_options(private_key);
  trainer_render_result* result = render_ok(input, &opts);
  static const char* const kinds[] = {"ConfigMap", "JobSet", "Secret", "ConfigMap"};
  static const char* const names[] = {"test-job-runtime-snapshot", "test-job",
                                      "test-job-mpi-ssh-auth", "test-job-mpi-hostfile"};
  static const char* const api_versions[] = {"v1", "jobset.x-k8s.io/v1alpha2", "v1", "v1"};
  char owner[128];
  size_t i;

  CHECK(trainer_render_result_count(result) == 4);
  snprintf(owner, sizeof owner, "\"uid\":\"%s\"", kUid);
  for (i = 0; i < 4; ++i) {
    const char* json = trainer_render_result_json(result, i);
    CHECK_STR(trainer_render_result_kind(result, i), kinds[i]);
    CHECK_STR(trainer_render_result_name(result, i), names[i]);
    CHECK_STR(trainer_render_result_api_version(result, i), api_versions[i]);
    CHECK_STR(trainer_render_result_namespace(result, i), "default");
    CHECK(json != NULL && json[0] == '{');
    CHECK_CONTAINS(json, owner); /* every object is owned by the TrainJob */
  }
  CHECK(trainer_render_result_json(result, 4) == NULL);
  CHECK(trainer_render_result_kind(result, 4) == NULL);
  CHECK(trainer_render_result_name(result, 4) == NULL);
  CHECK(trainer_render_result_warning_count(result) == 0);
  CHECK(trainer_render_result_warning(result, 0) == NULL);
  CHECK_STR(trainer_render_result_skipped_reason(result), "");
  /* the Secret carries the given key (PEM, base64 in data) and its derived public key */
  CHECK_CONTAINS(trainer_render_result_json(result, 2), "\"ssh-privatekey\":\"");
  CHECK_CONTAINS(trainer_render_result_json(result, 2), "\"ssh-publickey\":\"");

  trainer_render_result_free(result);
  free(input);
}

static void test_encodings_and_determinism(const char* private_key) {
  char* input = case_input(kMpiCase);
  trainer_render_options opts = fixed_options(private_key);
  trainer_render_result* a = render_ok(input, &opts);
  trainer_render_result* b = render_ok(input, &opts);
  char *yaml_a, *yaml_b, *json, *pretty;
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  trainer_buffer used = TRAINER_BUFFER_INIT;
  trainer_error* err = NULL;
  const char* doc;
  size_t docs = 0;

  yaml_a = encode(a, TRAINER_FORMAT_YAML);
  yaml_b = encode(b, TRAINER_FORMAT_YAML);
  CHECK_STR(yaml_a, yaml_b); /* fixed UID, clock and key: the same bytes */
  CHECK(strncmp(yaml_a, "apiVersion: v1\nkind: ConfigMap\n", 31) == 0);
  for (doc = strstr(yaml_a, "\n---\n"); doc != NULL; doc = strstr(doc + 1, "\n---\n")) ++docs;
  CHECK(docs == 3); /* four documents */

  json = encode(a, TRAINER_FORMAT_JSON);
  CHECK(strncmp(json, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[", 41) == 0);
  CHECK_CONTAINS(json, trainer_render_result_json(a, 1)); /* items are the objects */
  pretty = encode(a, TRAINER_FORMAT_JSON_PRETTY);
  CHECK(strncmp(pretty, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\"", 40) == 0);

  CHECK(trainer_render_result_encode(a, 7, &buf, &err) == TRAINER_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(trainer_error_message(err), "unknown format 7");
  CHECK(buf.data == NULL && buf.len == 0);
  trainer_error_free(err);
  CHECK(trainer_render_result_encode(a, TRAINER_FORMAT_YAML, &used, NULL) == TRAINER_OK);
  CHECK(trainer_render_result_encode(a, TRAINER_FORMAT_YAML, &used, NULL) ==
        TRAINER_E_INVALID_ARGUMENT); /* not empty */
  trainer_buffer_free(&used);
  CHECK(trainer_render_result_encode(a, TRAINER_FORMAT_YAML, NULL, NULL) ==
        TRAINER_E_INVALID_ARGUMENT);

  free(yaml_a);
  free(yaml_b);
  free(json);
  free(pretty);
  trainer_render_result_free(a);
  trainer_render_result_free(b);
  free(input);
}

/* Without a key option every render generates a fresh pair; without a UID each gets a new one. */
static void test_system_defaults(void) {
  char* input = case_input(kMpiCase);
  trainer_render_result* a = render_ok(input, NULL);
  trainer_render_result* b = render_ok(input, NULL);
  const char* uid_a = strstr(trainer_render_result_json(a, 1), "\"uid\":\"");
  const char* uid_b = strstr(trainer_render_result_json(b, 1), "\"uid\":\"");
  CHECK(uid_a != NULL && uid_b != NULL);
  CHECK(strlen(uid_a) > 7 + 36 && uid_a[7 + 36] == '"'); /* a 36-character UUID */
  CHECK(uid_a[7 + 14] == '4');                           /* version 4 */
  CHECK(strncmp(uid_a, uid_b, 7 + 36) != 0);
  CHECK(strcmp(trainer_render_result_json(a, 2), trainer_render_result_json(b, 2)) != 0);
  trainer_render_result_free(a);
  trainer_render_result_free(b);
  free(input);
}

/* A TrainJob with its own metadata.uid keeps it when no UID option is given. */
static void test_own_uid(void) {
  static const char job[] =
      "\n---\n"
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: own\n"
      "  uid: 11111111-2222-4333-8444-555555555555\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: test-runtime\n"
      "    kind: TrainingRuntime\n";
  char path[512];
  char *runtime, *input;
  trainer_render_result* result;
  snprintf(path, sizeof path, "%s/%s/runtime.yaml", TRAINER_GOLDEN_CASES,
           "09-torch-numnodes-and-numprocpernode-explicit");
  runtime = read_file(path);
  input = malloc(strlen(runtime) + sizeof job);
  CHECK(input != NULL);
  sprintf(input, "%s%s", runtime, job);
  result = render_ok(input, NULL);
  CHECK(trainer_render_result_count(result) == 2);
  CHECK_CONTAINS(trainer_render_result_json(result, 1),
                 "\"uid\":\"11111111-2222-4333-8444-555555555555\"");
  trainer_render_result_free(result);
  free(runtime);
  free(input);
}

static void test_rejected(void) {
  char* input = case_input("32-invalid-torch-reserved-env");
  trainer_error* err = render_fails(input, NULL, TRAINER_E_INVALID);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.trainer.env");
  CHECK_STR(trainer_error_field_type(err, 0), "FieldValueInvalid");
  CHECK_CONTAINS(trainer_error_field_detail(err, 0), "must not have reserved envs");
  trainer_error_free(err);
  free(input);

  /* the CRD rules run too, with Kubernetes' field text */
  input = case_input(kMpiCase);
  {
    char* two = strstr(input, "numNodes: 2\n");
    char* negative = malloc(strlen(input) + 2);
    CHECK(two != NULL && negative != NULL);
    sprintf(negative, "%.*snumNodes: -2%s", (int)(two - input), input, two + 11);
    err = render_fails(negative, NULL, TRAINER_E_INVALID);
    CHECK(trainer_error_field_count(err) == 1);
    CHECK_STR(trainer_error_field_string(err, 0),
              "spec.trainer.numNodes: Invalid value: -2: spec.trainer.numNodes in body should be "
              "greater than or equal to 0");
    trainer_error_free(err);
    free(negative);
  }
  free(input);
}

static void test_input_errors(void) {
  static const char only_runtime_ref[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata: {name: lonely}\n"
      "spec: {runtimeRef: {name: nowhere}}\n";
  static const char builtin_job[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata: {name: b}\n"
      "spec: {runtimeRef: {name: torch-distributed}}\n";
  static const char two_jobs[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata: {name: a}\n"
      "spec: {runtimeRef: {name: torch-distributed}}\n"
      "---\n"
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata: {name: b}\n"
      "spec: {runtimeRef: {name: torch-distributed}}\n";
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  trainer_parse_options tiny = TRAINER_PARSE_OPTIONS_INIT;
  trainer_render_result* result;
  trainer_error* err;

  err = render_fails(only_runtime_ref, NULL, TRAINER_E_NOT_FOUND);
  CHECK_CONTAINS(trainer_error_message(err), "nowhere");
  trainer_error_free(err);

  /* with the built-in runtimes, a name they do not have is still not found ... */
  opts.builtin_runtimes = 1;
  err = render_fails(only_runtime_ref, &opts, TRAINER_E_NOT_FOUND);
  trainer_error_free(err);
  /* ... but torch-distributed is one of them */
  result = render_ok(builtin_job, &opts);
  CHECK(trainer_render_result_count(result) == 2);
  CHECK_STR(trainer_render_result_kind(result, 1), "JobSet");
  CHECK_STR(trainer_render_result_name(result, 1), "b");
  trainer_render_result_free(result);
  err = render_fails(two_jobs, &opts, TRAINER_E_INVALID);
  CHECK_CONTAINS(trainer_error_message(err), "TrainJob");
  trainer_error_free(err);

  err = render_fails("kind: [", NULL, TRAINER_E_PARSE);
  trainer_error_free(err);

  tiny.max_document_bytes = 16;
  opts.parse = &tiny;
  err = render_fails(two_jobs, &opts, TRAINER_E_LIMIT);
  trainer_error_free(err);
  /* the alias budget (struct version 2) reaches render's parser as well */
  tiny.max_document_bytes = 0;
  tiny.max_alias_bytes = 8;
  err = render_fails(
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata: {name: &n aliased, labels: {a: *n}}\n"
      "spec: {runtimeRef: {name: torch-distributed}}\n",
      &opts, TRAINER_E_LIMIT);
  CHECK_CONTAINS(trainer_error_message(err),
                 "metadata.labels.a: anchors and aliases copy more than max_alias_bytes (8)");
  trainer_error_free(err);
  tiny.version = 42;
  err = render_fails(two_jobs, &opts, TRAINER_E_INVALID_ARGUMENT);
  trainer_error_free(err);
}

static void test_bad_options(void) {
  char* input = case_input(kMpiCase);
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  trainer_error* err;

  opts.feature_gates = "Nope=true";
  err = render_fails(input, &opts, TRAINER_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(trainer_error_message(err), "unrecognized feature gate \"Nope\"");
  trainer_error_free(err);
  opts.feature_gates = "TrainJobStatus=maybe";
  err = render_fails(input, &opts, TRAINER_E_INVALID_ARGUMENT);
  CHECK_CONTAINS(trainer_error_message(err), "TrainJobStatus=maybe");
  trainer_error_free(err);
  opts.feature_gates = "TrainJobStatus";
  err = render_fails(input, &opts, TRAINER_E_INVALID_ARGUMENT);
  trainer_error_free(err);

  opts.feature_gates = NULL;
  opts.ssh_private_key =
      "-----BEGIN EC PRIVATE KEY-----\nnot a key\n-----END EC PRIVATE KEY-----\n";
  err = render_fails(input, &opts, TRAINER_E_INVALID_ARGUMENT);
  trainer_error_free(err);
  free(input);
}

static void test_feature_gate_on(const char* private_key) {
  char* input = case_input("79-trainjobstatus-gate-on");
  trainer_render_options opts = fixed_options(private_key);
  trainer_render_result* off = render_ok(input, &opts);
  trainer_render_result* on;
  size_t i;
  opts.feature_gates = " TrainJobStatus=true ,";
  on = render_ok(input, &opts);
  /* the gate adds the status server's env to the JobSet and the CA ConfigMap after it */
  CHECK(trainer_render_result_count(off) == 2);
  CHECK(trainer_render_result_count(on) == 3);
  for (i = 0; i < 2; ++i) {
    CHECK_STR(trainer_render_result_kind(on, i), trainer_render_result_kind(off, i));
  }
  CHECK_STR(trainer_render_result_kind(on, 1), "JobSet");
  CHECK_CONTAINS(trainer_render_result_json(on, 1), "/trainjobs/test-job/status");
  CHECK(strstr(trainer_render_result_json(off, 1), "/trainjobs/test-job/status") == NULL);
  CHECK_STR(trainer_render_result_kind(on, 2), "ConfigMap");
  CHECK_STR(trainer_render_result_name(on, 2), "test-job-tls-config");
  trainer_render_result_free(on);
  trainer_render_result_free(off);
  free(input);
}

static void test_skipped(void) {
  char* input = case_input("55-managed-by-multikueue");
  trainer_render_result* result = render_ok(input, NULL);
  char* yaml;
  CHECK(trainer_render_result_count(result) == 0);
  CHECK(trainer_render_result_json(result, 0) == NULL);
  CHECK_CONTAINS(trainer_render_result_skipped_reason(result),
                 "is managed by \"kueue.x-k8s.io/multikueue\"");
  yaml = encode(result, TRAINER_FORMAT_YAML);
  CHECK_STR(yaml, "");
  free(yaml);
  trainer_render_result_free(result);
  free(input);
}

/* A TrainJob (in `ns` when not NULL) and the deprecated ClusterTrainingRuntime it uses. */
static char* deprecated_runtime_input(const char* ns) {
  static const char runtime[] =
      "spec:\n"
      "  runtimeRef:\n"
      "    name: torch-distributed\n"
      "---\n" DEPRECATED_TORCH_RUNTIME_YAML;
  size_t size = sizeof runtime + 256;
  char* text = malloc(size);
  CHECK(text != NULL);
  snprintf(text, size,
           "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n"
           "  name: warned\n%s%s%s%s",
           ns != NULL ? "  namespace: " : "", ns != NULL ? ns : "", ns != NULL ? "\n" : "",
           runtime);
  return text;
}

static void test_warnings_and_namespace(void) {
  trainer_render_options opts = TRAINER_RENDER_OPTIONS_INIT;
  char* text = deprecated_runtime_input(NULL);
  trainer_render_result* result;
  trainer_error* err;
  size_t i;

  opts.namespace_name = "team-a";
  result = render_ok(text, &opts);
  CHECK(trainer_render_result_warning_count(result) == 2); /* the runtime's and the TrainJob's */
  CHECK_CONTAINS(trainer_render_result_warning(result, 0), "\"torch-distributed\" is deprecated");
  CHECK_CONTAINS(trainer_render_result_warning(result, 1), "\"torch-distributed\" is deprecated");
  CHECK(trainer_render_result_warning(result, 2) == NULL);
  CHECK(trainer_render_result_count(result) == 2);
  for (i = 0; i < 2; ++i) CHECK_STR(trainer_render_result_namespace(result, i), "team-a");
  trainer_render_result_free(result);
  free(text);

  /* an input in another namespace than the option's is refused */
  text = deprecated_runtime_input("team-b");
  err = render_fails(text, &opts, TRAINER_E_INVALID);
  CHECK_CONTAINS(trainer_error_message(err), "team-b");
  trainer_error_free(err);
  free(text);
}

int main(void) {
  char path[512];
  char* private_key;
  snprintf(path, sizeof path, "%s/ssh-key.pem", TRAINER_GOLDEN_TESTDATA);
  private_key = read_file(path);

  test_options_init();
  test_null_arguments();
  test_mpi_objects(private_key);
  test_encodings_and_determinism(private_key);
  test_system_defaults();
  test_own_uid();
  test_rejected();
  test_input_errors();
  test_bad_options();
  test_feature_gate_on(private_key);
  test_skipped();
  test_warnings_and_namespace();

  free(private_key);
  puts("c_render_test: all checks passed");
  return 0;
}
