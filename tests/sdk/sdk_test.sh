#!/usr/bin/env bash
# The Kubeflow Python SDK as a user drives it, against `trainerctl install` and
# `trainerctl controller` on a private kube-apiserver.
# Usage: sdk_test.sh <trainerctl> <source-dir>. Exit 77 (skipped) without TRAINER_KUBE_TEST_ENV
# or TRAINER_SDK_PYTHON (a python3 with kubeflow==0.5.0; scripts/setup makes one).
set -uo pipefail
ctl=$1 src=$2
if [[ -z ${TRAINER_KUBE_TEST_ENV:-} ]]; then
  echo "SKIPPED: TRAINER_KUBE_TEST_ENV is not set (no kube-apiserver bundle)"; exit 77
fi
if [[ -z ${TRAINER_SDK_PYTHON:-} ]]; then
  echo "SKIPPED: TRAINER_SDK_PYTHON is not set (a python3 with kubeflow==0.5.0)"; exit 77
fi
if ! "$TRAINER_SDK_PYTHON" -c 'import kubeflow.trainer' 2>/dev/null; then
  echo "FAIL: $TRAINER_SDK_PYTHON cannot import kubeflow.trainer"; exit 1
fi
tmp=$(mktemp -d)
pid=
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null
  [[ -n ${private:-} ]] && "$src/tests/kube/support/apiserver_fixture.sh" stop "$private" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
# A private API server: the test installs the control plane (cluster-scoped runtimes, the
# kubeflow-system namespace), which the shared server's other tests must not see.
private=$tmp/apiserver server=$private
"$src/tests/kube/support/apiserver_fixture.sh" start "$server" >/dev/null || exit 1
# shellcheck disable=SC1091
. "$server/env"  # KUBECONFIG, APISERVER_URL, APISERVER_TOKEN, APISERVER_CA
export KUBECONFIG
api() {
  curl -sS --fail-with-body --max-time 20 --cacert "$APISERVER_CA" \
    -H "Authorization: Bearer $APISERVER_TOKEN" -X "$1" \
    -H "Content-Type: ${4:-application/json}" ${3:+--data "$3"} "$APISERVER_URL$2"
}

ns=sdk-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
api POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$ns\"}}" >/dev/null || exit 1
# A TrainJob admission refuses, created while no webhook is installed: the controller's own
# admission gives it the Failed condition and the Warning event get_job_events() returns.
api POST "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs" '{"apiVersion":"trainer.kubeflow.org/v1alpha1",
  "kind":"TrainJob","metadata":{"name":"sdk-refused"},"spec":{"runtimeRef":{"name":"torch-distributed"},
  "trainer":{"numNodes":200000}}}' >/dev/null || exit 1

# The control plane as a user installs it: CRDs, built-in runtimes, the SDK's public ConfigMap.
timeout 120 "$ctl" install >/dev/null || { echo "FAIL: trainerctl install"; exit 1; }

# The installed webhooks call the controller's Service; this API server has no cluster network,
# so they are pointed at the controller on loopback (whose certificate manager fills in their
# caBundle): every TrainJob the SDK creates passes through our admission webhooks.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
loopback() {  # loopback CONFIGURATION-PATH COUNT: each webhook's clientConfig becomes a URL
  local ops="" i path
  for ((i = 0; i < $2; i++)); do
    path=$(api GET "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['webhooks'][$i]['clientConfig']['service']['path'])")
    ops+="${ops:+,}{\"op\":\"replace\",\"path\":\"/webhooks/$i/clientConfig\",\"value\":{\"url\":\"https://127.0.0.1:$port$path\"}}"
  done
  api PATCH "$1" "[$ops]" application/json-patch+json >/dev/null
}
loopback /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validator.trainer.kubeflow.org 4 || exit 1
loopback /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/defaulter.trainer.kubeflow.org 1 || exit 1

"$ctl" controller -n "$ns" --webhook-port "$port" --webhook-bind-address 127.0.0.1 \
  --webhook-cert-hosts 127.0.0.1 --operator-namespace kubeflow-system >"$tmp/ctl.log" 2>&1 &
pid=$!
for _ in $(seq 150); do grep -q "serving webhooks on port $port" "$tmp/ctl.log" && break; sleep 0.2; done
for _ in $(seq 150); do
  api GET /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validator.trainer.kubeflow.org |
    grep -q '"caBundle"' && break
  sleep 0.2
done
rc=0
TEST_NAMESPACE=$ns timeout 300 "$TRAINER_SDK_PYTHON" "$src/tests/sdk/trainer_client_test.py" || rc=1
kill -TERM "$pid"; wait "$pid" 2>/dev/null; pid=
if [[ $rc -ne 0 ]]; then echo "--- controller log:"; tail -40 "$tmp/ctl.log"; fi
api DELETE "/api/v1/namespaces/$ns" >/dev/null 2>&1
exit $rc
