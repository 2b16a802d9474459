/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A test plugin in C: for runtimes labelled trainer.kubeflow.org/framework=testfw it adds an env
 * variable, a port and a volume (with its mount) to the trainer `node` container, a label on the
 * JobSet, and builds a ConfigMap without namespace or owner (the framework adds both). It reaches
 * libtrainer only through the host table, as a plugin library should.
 */
#include "trainer.h"

#include <string.h>

static const trainer_plugin_host* host;

static int is_testfw(const trainer_plugin_request* request) {
  const char* fw =
      host->request_get_string(request, "/info/runtime/labels/trainer.kubeflow.org~1framework");
  return fw != NULL && strcmp(fw, "testfw") == 0;
}

static trainer_status enforce_ml_policy(void* user_data, const trainer_plugin_request* request,
                                        trainer_plugin_reply* reply) {
  static const char patch[] =
      "{\"info\":{\"labels\":{\"testfw.example.com/managed\":\"true\"},"
      "\"podSets\":[{\"name\":\"node\",\"containers\":[{\"name\":\"node\","
      "\"env\":[{\"name\":\"TESTFW_CONFIG\",\"value\":\"/etc/testfw/config.json\"}],"
      "\"ports\":[{\"containerPort\":29400,\"name\":\"testfw\",\"protocol\":\"TCP\"}],"
      "\"volumeMounts\":[{\"name\":\"testfw-config\",\"mountPath\":\"/etc/testfw\"}]}],"
      "\"volumes\":[{\"name\":\"testfw-config\",\"configMap\":{\"name\":\"testfw-config\"}}]}]}}";
  (void)user_data;
  if (!is_testfw(request)) return TRAINER_OK;
  return host->reply_set(reply, patch, sizeof patch - 1);
}

static trainer_status build(void* user_data, const trainer_plugin_request* request,
                            trainer_plugin_reply* reply) {
  static const char objects[] =
      "{\"objects\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
      "\"metadata\":{\"name\":\"testfw-config\"},\"data\":{\"config.json\":\"{}\"}}]}";
  (void)user_data;
  if (!is_testfw(request)) return TRAINER_OK;
  return host->reply_set(reply, objects, sizeof objects - 1);
}

TRAINER_API const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h);

TRAINER_API const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h) {
  static trainer_plugin_descriptor desc;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
  desc.name = "TestFw";
  desc.enforce_ml_policy = enforce_ml_policy;
  desc.build = build;
  return &desc;
}
