/* SPDX-License-Identifier: Apache-2.0 */
/* C consumer of the packaged libtrainer.so: version agreement, then one parse + validate. */
#include <stdio.h>
#include <string.h>
#include <trainer.h>

static const char kJob[] =
    "apiVersion: trainer.kubeflow.org/v1alpha1\n"
    "kind: TrainJob\n"
    "metadata: {name: mnist}\n"
    "spec:\n"
    "  runtimeRef: {name: torch-distributed}\n"
    "  trainer: {numNodes: -1}\n";

int main(void) {
  trainer_document_list* list = NULL;
  trainer_error* err = NULL;
  trainer_status st;

  if (trainer_version_number() != TRAINER_VERSION_NUMBER ||
      strcmp(trainer_version_string(), TRAINER_VERSION_STRING) != 0) {
    fprintf(stderr, "header %s, library %s\n", TRAINER_VERSION_STRING, trainer_version_string());
    return 1;
  }
  st = trainer_documents_parse(kJob, sizeof kJob - 1, NULL, &list, &err);
  if (st != TRAINER_OK || trainer_document_list_count(list) != 1) {
    fprintf(stderr, "parse: %s %s\n", trainer_status_name(st), trainer_error_message(err));
    trainer_error_free(err);
    return 1;
  }
  trainer_document* doc = trainer_document_list_get(list, 0);
  st = trainer_document_default(doc, NULL);
  if (st == TRAINER_OK) st = trainer_document_validate(doc, NULL, NULL, &err);
  /* numNodes: -1 is rejected with a field error at spec.trainer.numNodes. */
  int ok = st == TRAINER_E_INVALID && trainer_error_field_count(err) >= 1 &&
           strcmp(trainer_error_field_path(err, 0), "spec.trainer.numNodes") == 0;
  if (!ok)
    fprintf(stderr, "validate: %s %s\n", trainer_status_name(st), trainer_error_message(err));
  trainer_error_free(err);
  trainer_document_list_free(list);
  if (!ok) return 1;
  printf("test_package_c: libtrainer %s\n", trainer_version_string());
  return 0;
}
