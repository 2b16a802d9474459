/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C ABI from C: every function of trainer.h (documents, errors, buffers, versions), every
 * error path. Compiled as C11 with -pedantic-errors and linked against libtrainer.so only.
 * Each check prints the failing line and exits non-zero.
 */
#include "c_check.h"
#include "c_fixtures.h"
#include "trainer.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EXPECT_FEATURES
#error "EXPECT_FEATURES (the trainer_features() bitmask of this build) must be defined"
#endif

static trainer_document_list* parse_ok(const char* text) {
  trainer_document_list* list = NULL;
  trainer_error* err = SENTINEL(trainer_error);
  trainer_status st = trainer_documents_parse(text, strlen(text), NULL, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(err == NULL);
  CHECK(list != NULL);
  return list;
}

static const char kTrainJobAndRuntime[] =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainJob\n"
    "metadata:\n"
    "  name: pytorch-job\n"
    "  namespace: team-a\n"
    "spec:\n"
    "  runtimeRef:\n"
    "    name: torch-distributed\n"
    "  trainer:\n"
    "    image: pytorch:2.5\n"
    "    numNodes: 2\n"
    "  unknownSpecField: 1\n"
    "---\n" DEPRECATED_TORCH_RUNTIME_YAML;

static const char kDeprecationUrl[] =
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"
    "#runtime-deprecation-policy";

/* ---- Version, features, status names -------------------------------------------------------- */

static void test_version_and_features(void) {
  CHECK(trainer_version_number() == TRAINER_VERSION_NUMBER);
  CHECK_STR(trainer_version_string(), TRAINER_VERSION_STRING);
  CHECK(TRAINER_VERSION_CHECK(0, 1, 0));
  CHECK(!TRAINER_VERSION_CHECK(99, 0, 0));
  CHECK(trainer_features() == (uint32_t)(EXPECT_FEATURES));
  CHECK((trainer_features() & ~(TRAINER_FEATURE_MPI | TRAINER_FEATURE_NCCL)) == 0);
}

static void test_status_names(void) {
  CHECK_STR(trainer_status_name(TRAINER_OK), "TRAINER_OK");
  CHECK_STR(trainer_status_name(TRAINER_E_INVALID_ARGUMENT), "TRAINER_E_INVALID_ARGUMENT");
  CHECK_STR(trainer_status_name(TRAINER_E_PARSE), "TRAINER_E_PARSE");
  CHECK_STR(trainer_status_name(TRAINER_E_INVALID), "TRAINER_E_INVALID");
  CHECK_STR(trainer_status_name(TRAINER_E_LIMIT), "TRAINER_E_LIMIT");
  CHECK_STR(trainer_status_name(TRAINER_E_NOT_FOUND), "TRAINER_E_NOT_FOUND");
  CHECK_STR(trainer_status_name(TRAINER_E_UNSUPPORTED), "TRAINER_E_UNSUPPORTED");
  CHECK_STR(trainer_status_name(TRAINER_E_NOMEM), "TRAINER_E_NOMEM");
  CHECK_STR(trainer_status_name(TRAINER_E_INTERNAL), "TRAINER_E_INTERNAL");
  CHECK_STR(trainer_status_name(TRAINER_E_USER), "TRAINER_E_USER");
  CHECK_STR(trainer_status_name(TRAINER_E_IO), "TRAINER_E_IO");
  CHECK_STR(trainer_status_name(TRAINER_E_TIMEOUT), "TRAINER_E_TIMEOUT");
  CHECK_STR(trainer_status_name(1), "TRAINER_E_?");
  CHECK_STR(trainer_status_name(-1000), "TRAINER_E_?");
}

/* ---- NULL handles and frees ------------------------------------------------------------------ */

static void test_null_handles(void) {
  trainer_buffer buf = TRAINER_BUFFER_INIT;

  trainer_error_free(NULL);
  trainer_document_list_free(NULL);
  trainer_validation_free(NULL);
  trainer_buffer_free(NULL);
  trainer_buffer_free(&buf);
  CHECK(buf.data == NULL && buf.len == 0);

  CHECK(trainer_error_code(NULL) == TRAINER_E_INVALID_ARGUMENT);
  CHECK_STR(trainer_error_message(NULL), "");
  CHECK(trainer_error_field_count(NULL) == 0);
  CHECK(trainer_error_field_path(NULL, 0) == NULL);
  CHECK(trainer_error_field_type(NULL, 0) == NULL);
  CHECK(trainer_error_field_value(NULL, 0) == NULL);
  CHECK(trainer_error_field_detail(NULL, 0) == NULL);
  CHECK(trainer_error_field_string(NULL, 0) == NULL);

  CHECK(trainer_document_list_count(NULL) == 0);
  CHECK(trainer_document_list_get(NULL, 0) == NULL);
  CHECK_STR(trainer_document_kind(NULL), "");
  CHECK_STR(trainer_document_api_version(NULL), "");
  CHECK_STR(trainer_document_name(NULL), "");
  CHECK_STR(trainer_document_namespace(NULL), "");
  CHECK(trainer_document_warning_count(NULL) == 0);
  CHECK(trainer_document_warning(NULL, 0) == NULL);

  CHECK(trainer_validation_warning_count(NULL) == 0);
  CHECK(trainer_validation_warning(NULL, 0) == NULL);
}

static void test_null_arguments(void) {
  trainer_error* err = NULL;
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_validation* validation = SENTINEL(trainer_validation);
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  trainer_status st;

  /* out NULL */
  st = trainer_documents_parse("a: 1", 4, NULL, NULL, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(trainer_error_code(err) == TRAINER_E_INVALID_ARGUMENT);
  CHECK_STR(trainer_error_message(err), "trainer_documents_parse: out is NULL");
  CHECK(trainer_error_field_count(err) == 0);
  trainer_error_free(err);

  /* data NULL with a length; err NULL is allowed */
  st = trainer_documents_parse(NULL, 3, NULL, &list, NULL);
  CHECK(st == TRAINER_E_INVALID_ARGUMENT);
  CHECK(list == NULL);

  st = trainer_document_default(NULL, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK_STR(trainer_error_message(err), "trainer_document_default: doc is NULL");
  trainer_error_free(err);

  st = trainer_document_validate(NULL, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(validation == NULL);
  CHECK_STR(trainer_error_message(err), "trainer_document_validate: doc is NULL");
  trainer_error_free(err);

  st = trainer_document_encode(NULL, TRAINER_FORMAT_JSON, &buf, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK_STR(trainer_error_message(err), "trainer_document_encode: doc is NULL");
  CHECK(buf.data == NULL && buf.len == 0);
  trainer_error_free(err);

  /* parse_options_init */
  CHECK(trainer_parse_options_init(NULL, TRAINER_PARSE_OPTIONS_VERSION) ==
        TRAINER_E_INVALID_ARGUMENT);
}

/* ---- Parse options --------------------------------------------------------------------------- */

static void test_parse_options(void) {
  trainer_parse_options opts;
  trainer_parse_options init = TRAINER_PARSE_OPTIONS_INIT;
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_error* err = NULL;
  trainer_status st;

  memset(&opts, 0xff, sizeof opts);
  CHECK(trainer_parse_options_init(&opts, 0) == TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_parse_options_init(&opts, TRAINER_PARSE_OPTIONS_VERSION + 1) ==
        TRAINER_E_INVALID_ARGUMENT);
  CHECK(trainer_parse_options_init(&opts, TRAINER_PARSE_OPTIONS_VERSION) == TRAINER_OK);
  CHECK(opts.version == TRAINER_PARSE_OPTIONS_VERSION);
  CHECK(opts.version == init.version);
  CHECK(opts.max_document_bytes == 0 && opts.max_depth == 0 && opts.max_documents == 0);
  CHECK(opts.max_nodes == 0 && opts.max_aliases == 0 && opts.max_alias_bytes == 0);
  CHECK(init.max_alias_bytes == 0);

  /* all-zero limits mean the defaults */
  st = trainer_documents_parse("a: 1\n", 5, &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(trainer_document_list_count(list) == 1);
  trainer_document_list_free(list);

  /* unknown struct version */
  opts.version = 0;
  list = SENTINEL(trainer_document_list);
  st = trainer_documents_parse("a: 1\n", 5, &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(list == NULL);
  CHECK_STR(trainer_error_message(err),
            "trainer_documents_parse: unsupported trainer_parse_options version 0");
  trainer_error_free(err);

  /* a version from the future is refused, not read past the end of the caller's struct */
  opts.version = TRAINER_PARSE_OPTIONS_VERSION + 1;
  list = SENTINEL(trainer_document_list);
  st = trainer_documents_parse("a: 1\n", 5, &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK(list == NULL);
  CHECK_STR(trainer_error_message(err),
            "trainer_documents_parse: unsupported trainer_parse_options version 3");
  trainer_error_free(err);
}

/* ---- max_alias_bytes (struct version 2) and version-1 callers -------------------------------- */

/* trainer_parse_options as a program compiled against the version-1 header lays it out. */
typedef struct parse_options_v1 {
  uint32_t version;
  size_t max_document_bytes;
  size_t max_depth;
  size_t max_documents;
  size_t max_nodes;
  size_t max_aliases;
} parse_options_v1;

/* Version 2 appended one field to version 1, nothing else moved. */
_Static_assert(TRAINER_PARSE_OPTIONS_VERSION == 2, "this test knows struct versions 1 and 2");
_Static_assert(offsetof(trainer_parse_options, max_alias_bytes) == sizeof(parse_options_v1),
               "max_alias_bytes is appended after the version-1 fields");
_Static_assert(offsetof(trainer_parse_options, max_aliases) ==
                   offsetof(parse_options_v1, max_aliases),
               "version-1 fields keep their offsets");

/* An 8-byte anchored scalar and three aliases of it: 32 bytes of copies (the anchor's own copy
   and one per alias). */
static const char kAliases[] = "a: &x abcdefgh\nb: [*x, *x, *x]\n";

static void test_alias_bytes(void) {
  trainer_parse_options opts = TRAINER_PARSE_OPTIONS_INIT;
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_error* err = NULL;
  trainer_status st;

  /* 0: the default (4 MiB) */
  st = trainer_documents_parse(kAliases, strlen(kAliases), &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  trainer_document_list_free(list);

  /* a small limit refuses the document at the alias that exceeds it, naming the limit */
  opts.max_alias_bytes = 16;
  list = SENTINEL(trainer_document_list);
  st = trainer_documents_parse(kAliases, strlen(kAliases), &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_E_LIMIT, err);
  CHECK(list == NULL);
  CHECK_STR(trainer_error_message(err),
            "yaml: line 2, column 9: b[1]: anchors and aliases copy more than max_alias_bytes "
            "(16) bytes of scalar text");
  trainer_error_free(err);

  /* exactly enough */
  opts.max_alias_bytes = 32;
  st = trainer_documents_parse(kAliases, strlen(kAliases), &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  trainer_document_list_free(list);
}

static void test_parse_options_version_1(void) {
  /* The caller's struct is version 1; the bytes after it (where version 2 has max_alias_bytes)
     belong to someone else and hold a value that would refuse kAliases if it were read. */
  union {
    parse_options_v1 v1;
    trainer_parse_options v2;
  } mem;
  parse_options_v1* exact;
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_error* err = NULL;
  trainer_status st;

  /* trainer_parse_options_init for version 1 writes the version-1 fields only */
  memset(&mem, 0xff, sizeof mem);
  CHECK(trainer_parse_options_init(&mem.v2, 1) == TRAINER_OK);
  CHECK(mem.v1.version == 1);
  CHECK(mem.v1.max_document_bytes == 0 && mem.v1.max_depth == 0 && mem.v1.max_documents == 0);
  CHECK(mem.v1.max_nodes == 0 && mem.v1.max_aliases == 0);
  CHECK(mem.v2.max_alias_bytes == (size_t)-1);

  /* a version-1 struct keeps the default alias budget, whatever follows it */
  mem.v2.max_alias_bytes = 1;
  st = trainer_documents_parse(kAliases, strlen(kAliases), &mem.v2, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(trainer_document_list_count(list) == 1);
  trainer_document_list_free(list);

  /* ... and its own limits still apply, read at their version-1 offsets */
  mem.v1.max_aliases = 2;
  list = SENTINEL(trainer_document_list);
  st = trainer_documents_parse(kAliases, strlen(kAliases), &mem.v2, &list, &err);
  CHECK_STATUS(st, TRAINER_E_LIMIT, err);
  CHECK(list == NULL);
  CHECK_STR(trainer_error_message(err),
            "yaml: line 2, column 13: more than max_aliases (2) aliases");
  trainer_error_free(err);

  /* a heap block of exactly the version-1 size (ASan reports any read past it) */
  exact = (parse_options_v1*)malloc(sizeof *exact);
  CHECK(exact != NULL);
  CHECK(trainer_parse_options_init((trainer_parse_options*)(void*)exact, 1) == TRAINER_OK);
  CHECK(exact->version == 1 && exact->max_aliases == 0);
  exact->max_documents = 1;
  st = trainer_documents_parse(kAliases, strlen(kAliases),
                               (const trainer_parse_options*)(const void*)exact, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  trainer_document_list_free(list);
  st = trainer_documents_parse("a: 1\n---\nb: 2\n", 14,
                               (const trainer_parse_options*)(const void*)exact, &list, &err);
  CHECK_STATUS(st, TRAINER_E_LIMIT, err);
  trainer_error_free(err);
  free(exact);
}

static void check_limit(const char* text, trainer_parse_options opts) {
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_error* err = NULL;
  trainer_status st = trainer_documents_parse(text, strlen(text), &opts, &list, &err);
  CHECK_STATUS(st, TRAINER_E_LIMIT, err);
  CHECK(list == NULL);
  CHECK(trainer_error_code(err) == TRAINER_E_LIMIT);
  CHECK(strlen(trainer_error_message(err)) > 0);
  trainer_error_free(err);
}

static void test_limits(void) {
  trainer_parse_options opts = TRAINER_PARSE_OPTIONS_INIT;
  opts.max_documents = 1;
  check_limit("a: 1\n---\nb: 2\n", opts);

  opts.max_documents = 0;
  opts.max_document_bytes = 8;
  check_limit("key: a long value\n", opts);

  opts.max_document_bytes = 0;
  opts.max_depth = 2;
  check_limit("a:\n  b:\n    c:\n      d: 1\n", opts);

  opts.max_depth = 0;
  opts.max_aliases = 1;
  check_limit("a: &x 1\nb: *x\nc: *x\n", opts);

  opts.max_aliases = 0;
  opts.max_nodes = 3;
  check_limit("[1, 2, 3, 4, 5]", opts);
}

/* ---- Parse errors ---------------------------------------------------------------------------- */

static void test_bad_yaml(void) {
  static const char text[] = "a: [1, 2\n";
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_error* err = NULL;
  trainer_status st = trainer_documents_parse(text, strlen(text), NULL, &list, &err);
  CHECK_STATUS(st, TRAINER_E_PARSE, err);
  CHECK(list == NULL);
  CHECK(trainer_error_code(err) == TRAINER_E_PARSE);
  CHECK(strlen(trainer_error_message(err)) > 0);
  trainer_error_free(err);

  /* JSON front end */
  st = trainer_documents_parse("{\"a\": }", 7, NULL, &list, &err);
  CHECK_STATUS(st, TRAINER_E_PARSE, err);
  trainer_error_free(err);

  /* err may be NULL */
  st = trainer_documents_parse(text, strlen(text), NULL, &list, NULL);
  CHECK(st == TRAINER_E_PARSE);
  CHECK(list == NULL);
}

static void test_type_error(void) {
  static const char text[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: job\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: torch\n"
      "  trainer:\n"
      "    numNodes: two\n";
  trainer_document_list* list = SENTINEL(trainer_document_list);
  trainer_error* err = NULL;
  trainer_status st = trainer_documents_parse(text, sizeof text - 1, NULL, &list, &err);
  CHECK_STATUS(st, TRAINER_E_PARSE, err);
  CHECK(list == NULL);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.trainer.numNodes");
  CHECK_STR(trainer_error_field_type(err, 0), "FieldValueTypeInvalid");
  CHECK_STR(trainer_error_field_value(err, 0), "\"two\"");
  CHECK_STR(trainer_error_field_detail(err, 0), "expected int32");
  CHECK_STR(trainer_error_field_string(err, 0),
            "spec.trainer.numNodes: Invalid value: \"two\": expected int32");
  CHECK_STR(trainer_error_message(err),
            "spec.trainer.numNodes: Invalid value: \"two\": expected int32");
  CHECK(trainer_error_field_path(err, 1) == NULL);
  CHECK(trainer_error_field_type(err, 1) == NULL);
  CHECK(trainer_error_field_value(err, 1) == NULL);
  CHECK(trainer_error_field_detail(err, 1) == NULL);
  CHECK(trainer_error_field_string(err, 1) == NULL);
  trainer_error_free(err);
}

/* ---- Documents --------------------------------------------------------------------------------
 */

static void test_empty_input(void) {
  trainer_document_list* list = NULL;
  trainer_error* err = NULL;
  trainer_status st = trainer_documents_parse(NULL, 0, NULL, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(trainer_document_list_count(list) == 0);
  CHECK(trainer_document_list_get(list, 0) == NULL);
  trainer_document_list_free(list);

  list = parse_ok("---\n---\n");
  CHECK(trainer_document_list_count(list) == 0);
  trainer_document_list_free(list);
}

/* Input that is not NUL-terminated: only `len` bytes are read. */
static void test_not_nul_terminated(void) {
  static const char text[] = {'k', 'i', 'n', 'd', ':', ' ', 'A', 'B'};
  trainer_document_list* list = NULL;
  trainer_error* err = NULL;
  trainer_status st = trainer_documents_parse(text, 7, NULL, &list, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK_STR(trainer_document_kind(trainer_document_list_get(list, 0)), "A");
  trainer_document_list_free(list);
}

static void test_trainjob_document(void) {
  trainer_document_list* list = parse_ok(kTrainJobAndRuntime);
  trainer_document* job;
  trainer_document* runtime;
  trainer_error* err = SENTINEL(trainer_error);
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  trainer_status st;

  CHECK(trainer_document_list_count(list) == 2);
  job = trainer_document_list_get(list, 0);
  runtime = trainer_document_list_get(list, 1);
  CHECK(job != NULL && runtime != NULL && job != runtime);
  CHECK(trainer_document_list_get(list, 2) == NULL);

  CHECK_STR(trainer_document_kind(job), "TrainJob");
  CHECK_STR(trainer_document_api_version(job), "trainer.kubeflow.org/v1alpha1");
  CHECK_STR(trainer_document_name(job), "pytorch-job");
  CHECK_STR(trainer_document_namespace(job), "team-a");
  CHECK_STR(trainer_document_kind(runtime), "ClusterTrainingRuntime");
  CHECK_STR(trainer_document_name(runtime), "torch-distributed");
  CHECK_STR(trainer_document_namespace(runtime), "");

  /* unknown fields are warnings of the decoder */
  CHECK(trainer_document_warning_count(job) == 1);
  CHECK_STR(trainer_document_warning(job, 0), "unknown field \"spec.unknownSpecField\"");
  CHECK(trainer_document_warning(job, 1) == NULL);
  CHECK(trainer_document_warning_count(runtime) == 0);

  /* before defaulting: exactly what was given, in upstream's field order */
  st = trainer_document_encode(job, TRAINER_FORMAT_JSON, &buf, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(err == NULL);
  CHECK_STR(buf.data,
            "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\","
            "\"metadata\":{\"name\":\"pytorch-job\",\"namespace\":\"team-a\"},"
            "\"spec\":{\"runtimeRef\":{\"name\":\"torch-distributed\"},"
            "\"trainer\":{\"image\":\"pytorch:2.5\",\"numNodes\":2}}}");
  CHECK(buf.len == strlen(buf.data));

  /* a non-empty buffer is refused and left alone */
  {
    char* before = buf.data;
    st = trainer_document_encode(job, TRAINER_FORMAT_JSON, &buf, &err);
    CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
    CHECK(buf.data == before);
    CHECK_STR(trainer_error_message(err),
              "trainer_document_encode: out is not empty (initialise it with "
              "TRAINER_BUFFER_INIT or reset it with trainer_buffer_free)");
    trainer_error_free(err);
  }
  trainer_buffer_free(&buf);
  CHECK(buf.data == NULL && buf.len == 0);
  trainer_buffer_free(&buf); /* freeing a reset buffer again is harmless */

  /* defaults */
  st = trainer_document_default(job, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(err == NULL);
  st = trainer_document_default(job, NULL); /* idempotent; err may be NULL */
  CHECK(st == TRAINER_OK);
  CHECK_STR(trainer_document_name(job), "pytorch-job");

  st = trainer_document_encode(job, TRAINER_FORMAT_JSON, &buf, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK_STR(buf.data,
            "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\","
            "\"metadata\":{\"name\":\"pytorch-job\",\"namespace\":\"team-a\"},"
            "\"spec\":{\"runtimeRef\":{\"name\":\"torch-distributed\","
            "\"apiGroup\":\"trainer.kubeflow.org\",\"kind\":\"ClusterTrainingRuntime\"},"
            "\"trainer\":{\"image\":\"pytorch:2.5\",\"numNodes\":2},\"suspend\":false,"
            "\"managedBy\":\"trainer.kubeflow.org/trainjob-controller\"}}");
  trainer_buffer_free(&buf);

  st = trainer_document_encode(job, TRAINER_FORMAT_YAML, &buf, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK_STR(buf.data,
            "apiVersion: trainer.kubeflow.org/v1alpha1\n"
            "kind: TrainJob\n"
            "metadata:\n"
            "  name: pytorch-job\n"
            "  namespace: team-a\n"
            "spec:\n"
            "  runtimeRef:\n"
            "    name: torch-distributed\n"
            "    apiGroup: trainer.kubeflow.org\n"
            "    kind: ClusterTrainingRuntime\n"
            "  trainer:\n"
            "    image: pytorch:2.5\n"
            "    numNodes: 2\n"
            "  suspend: false\n"
            "  managedBy: trainer.kubeflow.org/trainjob-controller\n");
  CHECK(buf.len == strlen(buf.data));

  /* the YAML output parses back to the same document */
  {
    trainer_document_list* again = parse_ok(buf.data);
    trainer_buffer json1 = TRAINER_BUFFER_INIT;
    trainer_buffer json2 = TRAINER_BUFFER_INIT;
    CHECK(trainer_document_list_count(again) == 1);
    CHECK(trainer_document_warning_count(trainer_document_list_get(again, 0)) == 0);
    CHECK(trainer_document_encode(job, TRAINER_FORMAT_JSON, &json1, NULL) == TRAINER_OK);
    CHECK(trainer_document_encode(trainer_document_list_get(again, 0), TRAINER_FORMAT_JSON, &json2,
                                  NULL) == TRAINER_OK);
    CHECK_STR(json2.data, json1.data);
    trainer_buffer_free(&json1);
    trainer_buffer_free(&json2);
    trainer_document_list_free(again);
  }
  trainer_buffer_free(&buf);

  st = trainer_document_encode(job, TRAINER_FORMAT_JSON_PRETTY, &buf, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(strncmp(buf.data, "{\n  \"apiVersion\": \"trainer.kubeflow.org/v1alpha1\",\n", 51) == 0);
  trainer_buffer_free(&buf);

  /* unknown format */
  st = trainer_document_encode(job, 42, &buf, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK_STR(trainer_error_message(err), "trainer_document_encode: unknown format 42");
  CHECK(buf.data == NULL && buf.len == 0);
  trainer_error_free(err);

  st = trainer_document_encode(job, TRAINER_FORMAT_JSON, NULL, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID_ARGUMENT, err);
  CHECK_STR(trainer_error_message(err), "trainer_document_encode: out is NULL");
  trainer_error_free(err);

  trainer_document_list_free(list);
}

static void test_validate_with_warnings(void) {
  trainer_document_list* list = parse_ok(kTrainJobAndRuntime);
  trainer_document* job = trainer_document_list_get(list, 0);
  trainer_document* runtime = trainer_document_list_get(list, 1);
  trainer_validation* validation = SENTINEL(trainer_validation);
  trainer_error* err = SENTINEL(trainer_error);
  trainer_status st;
  char expected[512];

  CHECK(trainer_document_default(job, NULL) == TRAINER_OK);
  CHECK(trainer_document_default(runtime, NULL) == TRAINER_OK);

  /* the runtime itself: valid, with the deprecation warning of its webhook */
  st = trainer_document_validate(runtime, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(err == NULL);
  CHECK(validation != NULL);
  CHECK(trainer_validation_warning_count(validation) == 1);
  snprintf(expected, sizeof expected,
           "ClusterTrainingRuntime \"torch-distributed\" is deprecated and will be removed in a "
           "future release of Kubeflow Trainer. See runtime deprecation policy: %s",
           kDeprecationUrl);
  CHECK_STR(trainer_validation_warning(validation, 0), expected);
  CHECK(trainer_validation_warning(validation, 1) == NULL);
  trainer_validation_free(validation);

  /* the TrainJob without context (an empty one): admitted by its own rules, and a warning says
   * which runtime it was not checked against */
  validation = SENTINEL(trainer_validation);
  st = trainer_document_validate(job, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(validation != NULL);
  CHECK(trainer_validation_warning_count(validation) == 1);
  CHECK_STR(trainer_validation_warning(validation, 0),
            "TrainJob team-a/pytorch-job references ClusterTrainingRuntime \"torch-distributed\", "
            "which is not among the inputs: the TrainJob was not checked against it; "
            "\"torch-distributed\" is a built-in ClusterTrainingRuntime of libtrainer: add "
            "--builtin-runtimes (trainerctl) or set the builtin_runtimes option to use it");
  trainer_validation_free(validation);

  /* with its list as context: the webhook finds the runtime and warns */
  st = trainer_document_validate(job, list, &validation, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(trainer_validation_warning_count(validation) == 1);
  snprintf(expected, sizeof expected,
           "Referenced ClusterTrainingRuntime \"torch-distributed\" is deprecated and will be "
           "removed in a future release of Kubeflow Trainer. See runtime deprecation policy: %s",
           kDeprecationUrl);
  CHECK_STR(trainer_validation_warning(validation, 0), expected);
  trainer_validation_free(validation);

  /* out and err may be NULL */
  CHECK(trainer_document_validate(job, list, NULL, NULL) == TRAINER_OK);

  trainer_document_list_free(list);
}

static void test_validate_invalid(void) {
  static const char text[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: job\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: torch\n"
      "  trainer:\n"
      "    numProcPerNode: 0\n"
      "  managedBy: example.com/controller\n";
  trainer_document_list* list = parse_ok(text);
  trainer_document* job = trainer_document_list_get(list, 0);
  trainer_validation* validation = NULL;
  trainer_error* err = NULL;
  trainer_status st;
  size_t i;

  CHECK(trainer_document_default(job, NULL) == TRAINER_OK);
  st = trainer_document_validate(job, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  /* the result is handed out for rejected documents too */
  CHECK(validation != NULL);
  CHECK(trainer_validation_warning_count(validation) == 0);
  CHECK(trainer_error_code(err) == TRAINER_E_INVALID);
  CHECK(trainer_error_field_count(err) == 2);
  for (i = 0; i < 2; ++i) {
    const char* path = trainer_error_field_path(err, i);
    CHECK(path != NULL);
    if (strcmp(path, "spec.trainer.numProcPerNode") == 0) {
      CHECK_STR(trainer_error_field_type(err, i), "FieldValueInvalid");
      CHECK_STR(trainer_error_field_detail(err, i),
                "numProcPerNode must be greater than or equal to 1");
    } else {
      CHECK_STR(path, "spec.managedBy");
      CHECK_STR(trainer_error_field_type(err, i), "FieldValueInvalid");
      CHECK_STR(trainer_error_field_detail(err, i),
                "ManagedBy must be trainer.kubeflow.org/trainjob-controller or "
                "kueue.x-k8s.io/multikueue if set");
    }
  }
  {
    /* Kubernetes' aggregate text: "[a, b]" of the field strings, in order */
    char expected[1024];
    snprintf(expected, sizeof expected, "[%s, %s]", trainer_error_field_string(err, 0),
             trainer_error_field_string(err, 1));
    CHECK_STR(trainer_error_message(err), expected);
  }
  trainer_error_free(err);
  trainer_validation_free(validation);

  /* out NULL: only the status and the error */
  st = trainer_document_validate(job, NULL, NULL, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  CHECK(trainer_error_field_count(err) == 2);
  trainer_error_free(err);

  trainer_document_list_free(list);
}

static void test_validate_unsupported_runtime(void) {
  static const char text[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: job\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: torch\n"
      "    kind: Foo\n";
  trainer_document_list* list = parse_ok(text);
  trainer_document* job = trainer_document_list_get(list, 0);
  trainer_validation* validation = NULL;
  trainer_error* err = NULL;
  trainer_status st;

  CHECK(trainer_document_default(job, NULL) == TRAINER_OK);
  /* with or without context: NULL is an empty context, and the kind is never a runtime kind */
  st = trainer_document_validate(job, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  CHECK(validation != NULL);
  CHECK_STR(trainer_error_message(err), "unsupported runtime: Foo.trainer.kubeflow.org");
  trainer_error_free(err);
  trainer_validation_free(validation);

  st = trainer_document_validate(job, list, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  CHECK(validation != NULL);
  CHECK_STR(trainer_error_message(err), "unsupported runtime: Foo.trainer.kubeflow.org");
  CHECK(trainer_error_field_count(err) == 0);
  CHECK(trainer_error_field_path(err, 0) == NULL);
  trainer_error_free(err);
  trainer_validation_free(validation);
  trainer_document_list_free(list);
}

/* A TrainingRuntime is found only in the TrainJob's namespace: one of that name that the context
 * holds in another namespace rejects the TrainJob (the webhook's not-found error), with a warning
 * saying where it is. */
static void test_validate_training_runtime_context(void) {
  static const char text[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainingRuntime\n"
      "metadata:\n"
      "  name: rt\n"
      "  namespace: ns1\n"
      "spec:\n"
      "  template:\n"
      "    spec:\n"
      "      replicatedJobs:\n"
      "        - name: node\n"
      "          replicas: 2\n"
      "          template:\n"
      "            metadata:\n"
      "              labels:\n"
      "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
      "            spec:\n"
      "              template:\n"
      "                spec:\n"
      "                  containers:\n"
      "                    - name: node\n"
      "                      image: busybox\n"
      "---\n"
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: job\n"
      "  namespace: ns2\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: rt\n"
      "    kind: TrainingRuntime\n";
  trainer_document_list* list = parse_ok(text);
  trainer_document* runtime = trainer_document_list_get(list, 0);
  trainer_document* job = trainer_document_list_get(list, 1);
  trainer_validation* validation = NULL;
  trainer_error* err = NULL;
  trainer_status st;

  CHECK(trainer_document_default(runtime, NULL) == TRAINER_OK);
  CHECK(trainer_document_default(job, NULL) == TRAINER_OK);

  /* the runtime breaks the webhook rule on trainer-ancestor jobs */
  st = trainer_document_validate(runtime, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.template.spec.replicatedJobs[0].replicas");
  CHECK_STR(trainer_error_field_type(err, 0), "FieldValueInvalid");
  CHECK_STR(trainer_error_field_value(err, 0), "2");
  CHECK_STR(trainer_error_field_detail(err, 0), "always must be 1");
  CHECK_STR(trainer_error_field_string(err, 0),
            "spec.template.spec.replicatedJobs[0].replicas: Invalid value: 2: always must be 1");
  CHECK_STR(trainer_error_message(err),
            "spec.template.spec.replicatedJobs[0].replicas: Invalid value: 2: always must be 1");
  trainer_error_free(err);
  trainer_validation_free(validation);

  /* the TrainJob lives in another namespace: the runtime is not found, and that is an error */
  st = trainer_document_validate(job, list, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(
      trainer_error_field_string(err, 0),
      "spec.runtimeRef: Invalid value: "
      "{\"name\":\"rt\",\"apiGroup\":\"trainer.kubeflow.org\",\"kind\":\"TrainingRuntime\"}: "
      "trainingruntimes.trainer.kubeflow.org \"rt\" not found: specified trainingRuntime must "
      "be created before the TrainJob is created");
  CHECK(trainer_validation_warning_count(validation) == 1);
  CHECK_STR(trainer_validation_warning(validation, 0),
            "TrainJob ns2/job references TrainingRuntime \"rt\" in namespace \"ns2\", which is not "
            "among the inputs (a TrainingRuntime of that name is in namespace \"ns1\"; a "
            "TrainingRuntime must be in the TrainJob's namespace)");
  trainer_error_free(err);
  trainer_validation_free(validation);

  /* without context it is only not checked against its runtime */
  st = trainer_document_validate(job, NULL, &validation, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK(trainer_validation_warning_count(validation) == 1);
  trainer_validation_free(validation);

  trainer_document_list_free(list);
}

/* The plugins' rules run through trainer_document_validate as in trainerctl validate: the Torch
 * plugin rejects a reserved PET_* env. A TrainJob without a namespace finds a TrainingRuntime in
 * "default" (and the webhook agrees). */
static void test_validate_runs_plugins(void) {
  static const char text[] =
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainingRuntime\n"
      "metadata:\n"
      "  name: torch\n"
      "  namespace: default\n"
      "spec:\n"
      "  mlPolicy:\n"
      "    numNodes: 1\n"
      "    torch: {}\n"
      "  template:\n"
      "    spec:\n"
      "      replicatedJobs:\n"
      "        - name: node\n"
      "          template:\n"
      "            metadata:\n"
      "              labels:\n"
      "                trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
      "            spec:\n"
      "              template:\n"
      "                spec:\n"
      "                  containers:\n"
      "                    - name: node\n"
      "                      image: pytorch:2.5\n"
      "---\n"
      "apiVersion: trainer.kubeflow.org/v1alpha1\n"
      "kind: TrainJob\n"
      "metadata:\n"
      "  name: job\n"
      "spec:\n"
      "  runtimeRef:\n"
      "    name: torch\n"
      "    kind: TrainingRuntime\n"
      "  trainer:\n"
      "    env:\n"
      "      - name: PET_NODE_RANK\n"
      "        value: \"3\"\n";
  trainer_document_list* list = parse_ok(text);
  trainer_document* runtime = trainer_document_list_get(list, 0);
  trainer_document* job = trainer_document_list_get(list, 1);
  trainer_validation* validation = NULL;
  trainer_error* err = NULL;
  trainer_status st;

  CHECK(trainer_document_default(runtime, NULL) == TRAINER_OK);
  CHECK(trainer_document_default(job, NULL) == TRAINER_OK);
  st = trainer_document_validate(job, list, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_INVALID, err);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_path(err, 0), "spec.trainer.env");
  CHECK_STR(trainer_error_field_detail(err, 0),
            "must not have reserved envs, invalid envs configured: [PET_NODE_RANK]");
  CHECK(trainer_validation_warning_count(validation) == 0);
  trainer_error_free(err);
  trainer_validation_free(validation);
  trainer_document_list_free(list);
}

/* A `v1` List (what `trainerctl validate -o json` prints) contributes its items, as in
 * trainerctl validate: the TrainJob finds its runtime among them. */
static void test_list_items_are_documents(void) {
  static const char text[] =
      "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": ["
      "{\"apiVersion\": \"trainer.kubeflow.org/v1alpha1\", \"kind\": \"ClusterTrainingRuntime\","
      " \"metadata\": {\"name\": \"plain\"}, \"spec\": {\"template\": {\"spec\": "
      "{\"replicatedJobs\": [{\"name\": \"node\", \"template\": {\"metadata\": {\"labels\": "
      "{\"trainer.kubeflow.org/trainjob-ancestor-step\": \"trainer\"}}, \"spec\": {\"template\": "
      "{\"spec\": {\"containers\": [{\"name\": \"node\", \"image\": \"busybox\"}]}}}}}]}}}},"
      "{\"apiVersion\": \"trainer.kubeflow.org/v1alpha1\", \"kind\": \"TrainJob\","
      " \"metadata\": {\"name\": \"job\"}, \"spec\": {\"runtimeRef\": {\"name\": \"plain\"}}}]}";
  trainer_document_list* list = parse_ok(text);
  trainer_document* job;
  trainer_validation* validation = NULL;
  trainer_error* err = NULL;
  size_t i;

  CHECK(trainer_document_list_count(list) == 2);
  CHECK_STR(trainer_document_kind(trainer_document_list_get(list, 0)), "ClusterTrainingRuntime");
  job = trainer_document_list_get(list, 1);
  CHECK_STR(trainer_document_kind(job), "TrainJob");
  for (i = 0; i < 2; ++i) {
    CHECK(trainer_document_default(trainer_document_list_get(list, i), NULL) == TRAINER_OK);
  }
  CHECK_STATUS(trainer_document_validate(job, list, &validation, &err), TRAINER_OK, err);
  CHECK(trainer_validation_warning_count(validation) == 0);
  trainer_validation_free(validation);
  trainer_document_list_free(list);
}

static void test_untyped_document(void) {
  static const char text[] =
      "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"cm\", "
      "\"namespace\": \"ns\"}, \"data\": {\"z\": \"1\", \"a\": \"true\"}}";
  trainer_document_list* list = parse_ok(text);
  trainer_document* doc = trainer_document_list_get(list, 0);
  trainer_validation* validation = SENTINEL(trainer_validation);
  trainer_error* err = NULL;
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  trainer_status st;

  CHECK_STR(trainer_document_kind(doc), "ConfigMap");
  CHECK_STR(trainer_document_api_version(doc), "v1");
  CHECK_STR(trainer_document_name(doc), "cm");
  CHECK_STR(trainer_document_namespace(doc), "ns");
  CHECK(trainer_document_warning_count(doc) == 0);

  CHECK(trainer_document_default(doc, &err) == TRAINER_OK);
  CHECK(err == NULL);

  st = trainer_document_validate(doc, list, &validation, &err);
  CHECK_STATUS(st, TRAINER_E_UNSUPPORTED, err);
  CHECK(validation == NULL);
  CHECK_STR(trainer_error_message(err),
            "validation of kind \"ConfigMap\" (apiVersion \"v1\") is not supported: only "
            "TrainJob, TrainingRuntime, ClusterTrainingRuntime and OptimizationJob of "
            "trainer.kubeflow.org");
  trainer_error_free(err);

  /* kept as JSON: key order and string values survive */
  st = trainer_document_encode(doc, TRAINER_FORMAT_JSON, &buf, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK_STR(buf.data,
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\","
            "\"namespace\":\"ns\"},\"data\":{\"z\":\"1\",\"a\":\"true\"}}");
  trainer_buffer_free(&buf);

  st = trainer_document_encode(doc, TRAINER_FORMAT_YAML, &buf, &err);
  CHECK_STATUS(st, TRAINER_OK, err);
  CHECK_STR(buf.data,
            "apiVersion: v1\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            "  name: cm\n"
            "  namespace: ns\n"
            "data:\n"
            "  z: \"1\"\n"
            "  a: \"true\"\n");
  trainer_buffer_free(&buf);
  trainer_document_list_free(list);

  /* a document that is not an object has no header */
  list = parse_ok("- 1\n- 2\n");
  doc = trainer_document_list_get(list, 0);
  CHECK_STR(trainer_document_kind(doc), "");
  CHECK_STR(trainer_document_api_version(doc), "");
  CHECK_STR(trainer_document_name(doc), "");
  CHECK_STR(trainer_document_namespace(doc), "");
  CHECK(trainer_document_encode(doc, TRAINER_FORMAT_JSON, &buf, NULL) == TRAINER_OK);
  CHECK_STR(buf.data, "[1,2]");
  CHECK(buf.len == 5);
  trainer_buffer_free(&buf);
  trainer_document_list_free(list);
}

int main(void) {
  test_version_and_features();
  test_status_names();
  test_null_handles();
  test_null_arguments();
  test_parse_options();
  test_limits();
  test_alias_bytes();
  test_parse_options_version_1();
  test_bad_yaml();
  test_type_error();
  test_empty_input();
  test_not_nul_terminated();
  test_trainjob_document();
  test_validate_with_warnings();
  test_validate_invalid();
  test_validate_unsupported_runtime();
  test_validate_training_runtime_context();
  test_validate_runs_plugins();
  test_list_items_are_documents();
  test_untyped_document();
  printf("c_api_test: all checks passed\n");
  return 0;
}
