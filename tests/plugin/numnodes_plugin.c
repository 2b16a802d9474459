/* SPDX-License-Identifier: Apache-2.0 */
/* A test plugin in C whose validate refuses more than 4 nodes, with a field error. */
#include "trainer.h"

#include <stdio.h>
#include <string.h>

static const trainer_plugin_host* host;

static trainer_status validate(void* user_data, const trainer_plugin_request* request,
                               trainer_plugin_reply* reply) {
  int64_t nodes = 0;
  char text[256];
  int n;
  (void)user_data;
  if (!host->request_get_int(request, "/trainJob/spec/trainer/numNodes", &nodes) || nodes <= 4) {
    static const char checked[] = "{\"warnings\":[\"MaxNodes checked\"]}";
    return host->reply_set(reply, checked, sizeof checked - 1);
  }
  n = snprintf(text, sizeof text,
               "{\"errors\":[{\"type\":\"FieldValueInvalid\",\"field\":\"spec.trainer.numNodes\","
               "\"value\":%lld,\"detail\":\"must be at most 4\"}]}",
               (long long)nodes);
  if (n < 0 || (size_t)n >= sizeof text) return TRAINER_E_INTERNAL;
  return host->reply_set(reply, text, (size_t)n);
}

TRAINER_API const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h);

TRAINER_API const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h) {
  static trainer_plugin_descriptor desc;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.abi_version = TRAINER_PLUGIN_ABI_VERSION;
  desc.name = "MaxNodes";
  desc.validate = validate;
  return &desc;
}
