// SPDX-License-Identifier: Apache-2.0
//
// TrainJobStatus plugin (upstream pkg/runtime/framework/plugins/trainjobstatus): wires the trainer
// pods to the status server. The registry adds it only when the `TrainJobStatus` feature gate is
// on; once added it acts on every TrainJob, whatever its runtime (no policy switch).
//
// - EnforcePodSpec: on every regular container of the trainer-ancestor PodSet, upserts the env
//   `KUBEFLOW_TRAINER_SERVER_URL` (`https://<webhookServiceName>.<operatorNamespace>.svc:<port>
//   /apis/trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<job>/status`),
//   `KUBEFLOW_TRAINER_SERVER_CA_CERT` and `KUBEFLOW_TRAINER_SERVER_TOKEN`, and the read-only mount
//   of volume `kubeflow-trainer-token` at `/var/run/secrets/kubeflow/trainer`; upserts that
//   projected volume (service-account token for the TrainJob's status audience, 3600 s, and
//   `ca.crt` from ConfigMap `<job>-tls-config`). Error `missing status server port` when
//   `OperatorConfig::status_server_port` is unset.
// - Build: ConfigMap `<job>-tls-config` whose `ca.crt` is the webhook Secret's
//   (`PluginContext::find("v1", "Secret", operator_namespace, webhook_secret_name)`) `ca.crt`,
//   base64-decoded, with a controller owner reference to the TrainJob. Errors as upstream:
//   `failed to look up status server tls secret: secrets "<name>" not found`,
//   `failed to find status server ca.crt in tls secret` (key missing or empty).
#pragma once

#include "trainer/framework.hpp"

#include <memory>

namespace trainer::plugins {

[[nodiscard]] std::unique_ptr<trainer::Plugin> make_trainjobstatus_plugin();

}  // namespace trainer::plugins
