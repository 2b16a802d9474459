/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plugin library as a third party builds one: a MODULE that exports trainer_plugin_entry and
 * calls libtrainer only through the host table it is handed (it is not linked to libtrainer).
 * For TrainJobs of runtimes labelled trainer.kubeflow.org/framework=loaded it sets the env var
 * LOADED_BY_PLUGIN on the `node` container. Used by c_plugin_test.c.
 */
#include "trainer.h"

#include <string.h>

static const trainer_plugin_host* host;

static trainer_status enforce_ml_policy(void* user_data, const trainer_plugin_request* request,
                                        trainer_plugin_reply* reply) {
  static const char kPatch[] =
      "{\"info\":{\"podSets\":[{\"name\":\"node\",\"containers\":[{\"name\":\"node\","
      "\"env\":[{\"name\":\"LOADED_BY_PLUGIN\",\"value\":\"yes\"}]}]}]}}";
  const char* framework =
      host->request_get_string(request, "/info/runtime/labels/trainer.kubeflow.org~1framework");
  (void)user_data;
  if (framework == NULL || strcmp(framework, "loaded") != 0) return TRAINER_OK;
  return host->reply_set(reply, kPatch, sizeof kPatch - 1);
}

__attribute__((visibility("default"))) const trainer_plugin_descriptor* trainer_plugin_entry(
    const trainer_plugin_host* h) {
  static trainer_plugin_descriptor desc;
  if (h == NULL || (h->abi_version >> 16) != TRAINER_PLUGIN_ABI_VERSION_MAJOR) return NULL;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
  desc.name = "Loaded";
  desc.enforce_ml_policy = enforce_ml_policy;
  return &desc;
}
