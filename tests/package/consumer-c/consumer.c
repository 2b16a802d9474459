/* SPDX-License-Identifier: Apache-2.0 */
/* Links only libtrainer.so through the installed package: checks header/library agreement, then
 * parses, defaults and validates a TrainJob that breaks a rule. */
#include <stdio.h>
#include <string.h>
#include <trainer.h>

static const char kJob[] =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainJob\n"
    "metadata: {name: demo}\n"
    "spec:\n"
    "  runtimeRef: {name: torch-distributed}\n"
    "  trainer: {numProcPerNode: 0}\n";

int main(void) {
  trainer_document_list* docs = NULL;
  trainer_validation* result = NULL;
  trainer_error* err = NULL;
  trainer_document* doc;
  trainer_status st;

  if (trainer_version_number() != TRAINER_VERSION_NUMBER ||
      strcmp(trainer_version_string(), TRAINER_VERSION_STRING) != 0) {
    fprintf(stderr, "header %s != library %s\n", TRAINER_VERSION_STRING, trainer_version_string());
    return 1;
  }
  st = trainer_documents_parse(kJob, sizeof kJob - 1, NULL, &docs, &err);
  if (st != TRAINER_OK || trainer_document_list_count(docs) != 1) return 1;
  doc = trainer_document_list_get(docs, 0);
  if (trainer_document_default(doc, &err) != TRAINER_OK) return 1;
  st = trainer_document_validate(doc, NULL, &result, &err);
  if (st != TRAINER_E_INVALID || trainer_error_field_count(err) != 1 ||
      strcmp(trainer_error_field_path(err, 0), "spec.trainer.numProcPerNode") != 0) {
    fprintf(stderr, "unexpected validation result %d\n", st);
    return 1;
  }
  printf("consumer_c: libtrainer %s rejects as expected: %s\n", trainer_version_string(),
         trainer_error_field_string(err, 0));
  trainer_error_free(err);
  trainer_validation_free(result);
  trainer_document_list_free(docs);
  return 0;
}
