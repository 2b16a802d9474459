/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OptimizationJob through the document functions of the C ABI: parsed as a typed document
 * (decoding warnings), defaulted by trainer_document_default, admitted by
 * trainer_document_validate (its own rules, then its template against the runtime of the list).
 */
#include "c_check.h"

static const char kOptimizationJob[] =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: OptimizationJob\n"
    "metadata: {name: tune, namespace: team}\n"
    "spec:\n"
    "  objectives: [{metric: loss}]\n"
    "  parameters:\n"
    "  - name: lr\n"
    "    searchSpace: {logUniform: {min: \"0.001\", max: \"0.1\"}}\n"
    "  numTrials: %s\n"
    "  parallelTrials: 2\n"
    "  bogus: 1\n"
    "  trainJobTemplate:\n"
    "    spec:\n"
    "      runtimeRef: {name: rt, kind: TrainingRuntime}\n"
    "%s"
    "---\n"
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainingRuntime\n"
    "metadata: {name: rt, namespace: team}\n"
    "spec:\n"
    "  template:\n"
    "    spec:\n"
    "      replicatedJobs:\n"
    "      - name: node\n"
    "        template:\n"
    "          metadata:\n"
    "            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}\n"
    "          spec:\n"
    "            template:\n"
    "              spec:\n"
    "                containers: [{name: node, image: pytorch}]\n";

/* `template_extra`: lines added to trainJobTemplate.spec. */
static trainer_document_list* parse(const char* num_trials, const char* template_extra) {
  char text[2048];
  trainer_document_list* list = NULL;
  trainer_error* err = SENTINEL(trainer_error);
  snprintf(text, sizeof text, kOptimizationJob, num_trials, template_extra);
  CHECK_STATUS(trainer_documents_parse(text, strlen(text), NULL, &list, &err), TRAINER_OK, err);
  CHECK(err == NULL);
  CHECK(trainer_document_list_count(list) == 2);
  return list;
}

static void test_typed_and_defaulted(void) {
  trainer_document_list* list = parse("2", "");
  trainer_document* doc = trainer_document_list_get(list, 0);
  trainer_error* err = NULL;
  trainer_validation* validation = NULL;
  trainer_buffer buf = TRAINER_BUFFER_INIT;
  CHECK_STR(trainer_document_kind(doc), "OptimizationJob");
  CHECK_STR(trainer_document_name(doc), "tune");
  /* Typed: the unknown field is a decoding warning. */
  CHECK(trainer_document_warning_count(doc) == 1);
  CHECK_STR(trainer_document_warning(doc, 0), "unknown field \"spec.bogus\"");

  CHECK_STATUS(trainer_document_default(doc, &err), TRAINER_OK, err);
  CHECK_STATUS(trainer_document_encode(doc, TRAINER_FORMAT_JSON, &buf, &err), TRAINER_OK, err);
  CHECK(strstr(buf.data, "\"objectives\":[{\"metric\":\"loss\",\"direction\":\"Minimize\"}]") !=
        NULL);
  CHECK(strstr(buf.data, "\"searchAlgorithm\":{\"random\":{}}") != NULL);
  CHECK(strstr(buf.data, "\"type\":\"Float\"") != NULL);
  CHECK(strstr(buf.data, "\"managedBy\":\"trainer.kubeflow.org/trainjob-controller\"") != NULL);
  trainer_buffer_free(&buf);

  CHECK_STATUS(trainer_document_validate(doc, list, &validation, &err), TRAINER_OK, err);
  CHECK(trainer_validation_warning_count(validation) == 0);
  trainer_validation_free(validation);
  trainer_document_list_free(list);
}

static void test_rule_errors(void) {
  trainer_document_list* list = parse("1", "");
  trainer_document* doc = trainer_document_list_get(list, 0);
  trainer_error* err = NULL;
  trainer_validation* validation = NULL;
  CHECK_STATUS(trainer_document_default(doc, &err), TRAINER_OK, err);
  CHECK_STATUS(trainer_document_validate(doc, list, &validation, &err), TRAINER_E_INVALID, err);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK_STR(trainer_error_field_string(err, 0),
            "spec: Invalid value: parallelTrials cannot exceed numTrials");
  trainer_error_free(err);
  trainer_validation_free(validation);
  trainer_document_list_free(list);
}

static void test_template_against_runtime(void) {
  /* The model initializer needs a model-initializer job in the runtime: a plugin's rule, on the
   * template, under spec.trainJobTemplate.spec. */
  trainer_document_list* list = parse("2", "      initializer: {model: {storageUri: hf://m}}\n");
  trainer_document* doc = trainer_document_list_get(list, 0);
  trainer_error* err = NULL;
  trainer_validation* validation = NULL;
  CHECK_STATUS(trainer_document_default(doc, &err), TRAINER_OK, err);
  CHECK_STATUS(trainer_document_validate(doc, list, &validation, &err), TRAINER_E_INVALID, err);
  CHECK(trainer_error_field_count(err) == 1);
  CHECK(strncmp(trainer_error_field_path(err, 0), "spec.trainJobTemplate.spec.", 27) == 0);
  trainer_error_free(err);
  trainer_validation_free(validation);
  trainer_document_list_free(list);
}

int main(void) {
  test_typed_and_defaulted();
  test_rule_errors();
  test_template_against_runtime();
  printf("c_optimizationjob_test: ok\n");
  return 0;
}
