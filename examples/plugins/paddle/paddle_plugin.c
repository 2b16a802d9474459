/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A framework plugin for PaddlePaddle, loadable with `trainerctl --plugin` (docs/plugins.md).
 *
 * Training Operator v1 ran PaddlePaddle as a PaddleJob; Kubeflow Trainer v2 dropped it. This
 * plugin gives a TrainJob on a runtime labelled `trainer.kubeflow.org/framework: paddle` what v1's
 * PaddleJob controller gave its pods in collective mode (pkg/controller.v1/paddlepaddle/envvar.go):
 *
 *   PYTHONUNBUFFERED=1, PADDLE_JOB_ID=<job>, PADDLE_NNODES=<nodes>, PADDLE_MASTER=<addr>:<port>
 *
 * and the container port named `master` (36543 unless the runtime's `node` container already
 * declares a port of that name, as v1's defaulting and getPortFromPaddleJob did).
 *
 * One difference from v1: v1 gave rank 0 `PADDLE_MASTER=$(POD_IP_DUMMY):<port>` (its own pod IP)
 * and the others the Service `<job>-worker-0`. A JobSet has one pod template for every rank, so
 * every rank gets the stable DNS name of rank 0's pod instead, `<job>-node-0-0.<job>`, which
 * resolves on rank 0 too (the JobSet's headless Service).
 *
 * Admission, in the `validate` phase:
 *   - the TrainJob must not set the variables the plugin owns (spec.trainer.env), as the Torch
 *     plugin refuses PET_* variables;
 *   - the runtime's trainer job must have the `node` container that receives them (v1 refused a
 *     PaddleJob without a container named `paddle`, the one it configured). libtrainer's runtime
 *     rules refuse such a runtime too when the runtime itself is validated; the plugin checks the
 *     TrainJob against it anyway, as a runtime may have been admitted by a webhook without them.
 *
 * Written against the host table it receives only: the library does not link libtrainer, so the
 * same .so loads into any libtrainer of plugin ABI 1.x. Replies are built with snprintf. Every
 * callback is stateless (the host table is written once, at load), which meets the thread-safety
 * contract of trainer/plugin.h without locks.
 */
#include "trainer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define PADDLE_EXPORT __attribute__((visibility("default")))
#else
#define PADDLE_EXPORT
#endif

#define PADDLE_DEFAULT_PORT 36543
#define PADDLE_PORT_NAME "master"
#define PADDLE_CONTAINER "node"
#define PADDLE_ANCESTOR "trainer"

static const trainer_plugin_host* host;

/* ---- Small helpers ------------------------------------------------------------------------ */

/* A malloc'd string of printf's output (NULL when out of memory). */
static char* format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char* text = malloc((size_t)n + 1);
  if (text == NULL) return NULL;
  va_start(ap, fmt);
  vsnprintf(text, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return text;
}

/* `s` as a JSON string literal, quotes included (malloc'd; NULL when out of memory). Names are
 * DNS labels once admitted, but the plugin does not rely on it. */
static char* json_quote(const char* s) {
  char* out = malloc(strlen(s) * 6 + 3);
  if (out == NULL) return NULL;
  char* p = out;
  *p++ = '"';
  for (; *s != '\0'; ++s) {
    const unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      *p++ = '\\';
      *p++ = (char)c;
    } else if (c < 0x20) {
      p += sprintf(p, "\\u%04x", c);
    } else {
      *p++ = (char)c;
    }
  }
  *p++ = '"';
  *p = '\0';
  return out;
}

static const char* get_string(const trainer_plugin_request* req, const char* fmt, ...) {
  char pointer[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pointer, sizeof pointer, fmt, ap);
  va_end(ap);
  return host->request_get_string(req, pointer);
}

static int get_int(const trainer_plugin_request* req, int64_t* out, const char* fmt, ...) {
  char pointer[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pointer, sizeof pointer, fmt, ap);
  va_end(ap);
  return host->request_get_int(req, pointer, out);
}

static int exists(const trainer_plugin_request* req, const char* fmt, ...) {
  char pointer[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pointer, sizeof pointer, fmt, ap);
  va_end(ap);
  return host->request_get(req, pointer, NULL) != NULL;
}

static trainer_status reply_owned(trainer_plugin_reply* reply, char* json) {
  if (json == NULL) {
    host->reply_set_error(reply, "out of memory");
    return TRAINER_E_NOMEM;
  }
  const trainer_status status = host->reply_set(reply, json, strlen(json));
  free(json);
  return status;
}

/* ---- What the plugin reads from the request ---------------------------------------------- */

/* Whether the TrainJob's runtime is a Paddle runtime: the framework label convention. */
static int is_paddle(const trainer_plugin_request* req) {
  const char* framework =
      host->request_get_string(req, "/info/runtime/labels/trainer.kubeflow.org~1framework");
  return framework != NULL && strcmp(framework, "paddle") == 0;
}

/* Index of the trainer pod set (ancestor `trainer`) in info.podSets, or -1. */
static int trainer_pod_set(const trainer_plugin_request* req) {
  for (int i = 0; exists(req, "/info/podSets/%d", i); ++i) {
    const char* ancestor = get_string(req, "/info/podSets/%d/ancestor", i);
    if (ancestor != NULL && strcmp(ancestor, PADDLE_ANCESTOR) == 0) return i;
  }
  return -1;
}

/* Index of the `node` container of pod set `ps`, or -1. */
static int node_container(const trainer_plugin_request* req, int ps) {
  for (int j = 0; exists(req, "/info/podSets/%d/containers/%d", ps, j); ++j) {
    const char* name = get_string(req, "/info/podSets/%d/containers/%d/name", ps, j);
    if (name != NULL && strcmp(name, PADDLE_CONTAINER) == 0) return j;
  }
  return -1;
}

/* The containerPort of the container's port named `master`, else v1's default. */
static int64_t master_port(const trainer_plugin_request* req, int ps, int c) {
  for (int k = 0; exists(req, "/info/podSets/%d/containers/%d/ports/%d", ps, c, k); ++k) {
    const char* name = get_string(req, "/info/podSets/%d/containers/%d/ports/%d/name", ps, c, k);
    int64_t port = 0;
    if (name != NULL && strcmp(name, PADDLE_PORT_NAME) == 0 &&
        get_int(req, &port, "/info/podSets/%d/containers/%d/ports/%d/containerPort", ps, c, k)) {
      return port;
    }
  }
  return PADDLE_DEFAULT_PORT;
}

/* ---- validate ----------------------------------------------------------------------------- */

static const char* const reserved_env[] = {"PADDLE_JOB_ID", "PADDLE_MASTER", "PADDLE_NNODES"};
#define RESERVED_COUNT (sizeof reserved_env / sizeof reserved_env[0])

static trainer_status paddle_validate(void* user_data, const trainer_plugin_request* req,
                                      trainer_plugin_reply* reply) {
  (void)user_data;
  if (!is_paddle(req)) return TRAINER_OK;

  /* Reserved names, sorted, as the Torch plugin lists PET_* names. */
  char names[128] = "";
  for (size_t r = 0; r < RESERVED_COUNT; ++r) {
    for (int i = 0; exists(req, "/trainJob/spec/trainer/env/%d", i); ++i) {
      const char* name = get_string(req, "/trainJob/spec/trainer/env/%d/name", i);
      if (name != NULL && strcmp(name, reserved_env[r]) == 0) {
        if (names[0] != '\0') strcat(names, " ");
        strcat(names, reserved_env[r]);
        break;
      }
    }
  }
  char* env_error = NULL;
  if (names[0] != '\0') {
    const char* env = host->request_get(req, "/trainJob/spec/trainer/env", NULL);
    env_error = format(
        "{\"type\":\"FieldValueInvalid\",\"field\":\"spec.trainer.env\",\"value\":%s,"
        "\"detail\":\"must not have reserved envs, invalid envs configured: [%s]\"}",
        env, names);
    if (env_error == NULL) return reply_owned(reply, NULL);
  }

  char* node_error = NULL;
  const int ps = trainer_pod_set(req);
  if (ps < 0 || node_container(req, ps) < 0) {
    const char* ref = host->request_get(req, "/trainJob/spec/runtimeRef", NULL);
    node_error = format(
        "{\"type\":\"FieldValueInvalid\",\"field\":\"spec.runtimeRef\",\"value\":%s,"
        "\"detail\":\"a paddle runtime needs a container named \\\"%s\\\" in its trainer job "
        "(label trainer.kubeflow.org/trainjob-ancestor-step: trainer): PADDLE_* envs are "
        "injected into it\"}",
        ref != NULL ? ref : "null", PADDLE_CONTAINER);
    if (node_error == NULL) {
      free(env_error);
      return reply_owned(reply, NULL);
    }
  }

  if (env_error == NULL && node_error == NULL) return TRAINER_OK;
  char* json = format("{\"errors\":[%s%s%s]}", env_error != NULL ? env_error : "",
                      env_error != NULL && node_error != NULL ? "," : "",
                      node_error != NULL ? node_error : "");
  free(env_error);
  free(node_error);
  return reply_owned(reply, json);
}

/* ---- enforceMLPolicy ---------------------------------------------------------------------- */

static trainer_status paddle_enforce_ml_policy(void* user_data, const trainer_plugin_request* req,
                                               trainer_plugin_reply* reply) {
  (void)user_data;
  if (!is_paddle(req)) return TRAINER_OK;
  const int ps = trainer_pod_set(req);
  const int c = ps < 0 ? -1 : node_container(req, ps);
  if (c < 0) {
    /* validate refuses this at admission; a render without admission fails here instead. */
    host->reply_set_error(reply, "the runtime's trainer job has no container \"node\"");
    return TRAINER_E_INVALID;
  }
  const char* job = host->request_get_string(req, "/trainJob/metadata/name");
  const char* pod_set = get_string(req, "/info/podSets/%d/name", ps);
  if (job == NULL || pod_set == NULL) {
    host->reply_set_error(reply, "the request has no TrainJob name or pod set name");
    return TRAINER_E_INVALID;
  }
  /* The built-in plugins ran first: the count is numNodes already (PlainML). */
  int64_t nodes = 1;
  if (!get_int(req, &nodes, "/info/podSets/%d/count", ps)) {
    (void)host->request_get_int(req, "/trainJob/spec/trainer/numNodes", &nodes);
  }
  const int64_t port = master_port(req, ps, c);

  /* Rank 0's pod by its JobSet DNS name: <jobset>-<replicatedJob>-<job index>-<pod
   * index>.<subdomain>, the subdomain being the JobSet's (the TrainJob's) name. */
  char* master = format("%s-%s-0-0.%s:%lld", job, pod_set, job, (long long)port);
  char* q_job = json_quote(job);
  char* q_pod_set = json_quote(pod_set);
  char* q_master = master != NULL ? json_quote(master) : NULL;
  char* json = NULL;
  if (q_job != NULL && q_pod_set != NULL && q_master != NULL) {
    json = format(
        "{\"info\":{\"podSets\":[{\"name\":%s,\"containers\":[{\"name\":\"%s\","
        "\"env\":[{\"name\":\"PYTHONUNBUFFERED\",\"value\":\"1\"},"
        "{\"name\":\"PADDLE_JOB_ID\",\"value\":%s},"
        "{\"name\":\"PADDLE_NNODES\",\"value\":\"%lld\"},"
        "{\"name\":\"PADDLE_MASTER\",\"value\":%s}],"
        "\"ports\":[{\"name\":\"%s\",\"containerPort\":%lld}]}]}]}}",
        q_pod_set, PADDLE_CONTAINER, q_job, (long long)nodes, q_master, PADDLE_PORT_NAME,
        (long long)port);
  }
  free(master);
  free(q_job);
  free(q_pod_set);
  free(q_master);
  return reply_owned(reply, json);
}

/* ---- Entry point -------------------------------------------------------------------------- */

PADDLE_EXPORT const trainer_plugin_descriptor* trainer_plugin_entry(const trainer_plugin_host* h) {
  static const trainer_plugin_descriptor descriptor = {
      TRAINER_PLUGIN_ABI_VERSION,
      "Paddle",
      NULL, /* user_data: the callbacks keep no state */
      NULL, /* user_data_free */
      paddle_validate,
      paddle_enforce_ml_policy,
      NULL, /* enforce_pod_group_policy */
      NULL, /* enforce_pod_spec */
      NULL, /* pre_build_sync */
      NULL, /* build */
      NULL, /* status */
  };
  /* The host table is what this plugin was compiled against only when the major versions
   * match; refusing makes the load fail with a clear error instead of calling a wrong table. */
  if (h == NULL || (h->abi_version >> 16) != TRAINER_PLUGIN_ABI_VERSION_MAJOR) return NULL;
  host = h;
  return &descriptor;
}
