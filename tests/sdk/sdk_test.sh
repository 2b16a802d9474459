#!/usr/bin/env bash
# The Kubeflow Python SDK as a user drives it, against `trainerctl controller` on the shared
# kube-apiserver of the ctest run (fixture kube_apiserver) or a private one when run by hand.
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
server=${TRAINER_TEST_APISERVER_DIR:-}
if [[ -z $server || ! -f $server/env ]]; then
  private=$tmp/apiserver server=$private
  "$src/tests/kube/support/apiserver_fixture.sh" start "$server" >/dev/null || exit 1
fi
# shellcheck disable=SC1091
. "$server/env"  # KUBECONFIG, APISERVER_URL, APISERVER_TOKEN, APISERVER_CA
export KUBECONFIG
api() {
  curl -sS --fail-with-body --max-time 20 --cacert "$APISERVER_CA" \
    -H "Authorization: Bearer $APISERVER_TOKEN" -X "$1" \
    -H "Content-Type: ${4:-application/json}" ${3:+--data "$3"} "$APISERVER_URL$2"
}

# What an install of the control plane puts in the cluster for the SDK: the built-in runtimes
# and the public ConfigMap that TrainerClient() reads (its version field).
for runtime in $("$ctl" runtimes); do "$ctl" runtimes "$runtime" >>"$tmp/runtimes.yaml"; echo --- >>"$tmp/runtimes.yaml"; done
timeout 60 "$ctl" apply -f "$tmp/runtimes.yaml" >/dev/null || { echo "FAIL: applying the built-in runtimes"; exit 1; }
api PATCH "/api/v1/namespaces/kubeflow-system?fieldManager=sdk-test&force=true" \
  '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kubeflow-system"}}' application/apply-patch+yaml >/dev/null || exit 1
api PATCH "/api/v1/namespaces/kubeflow-system/configmaps/kubeflow-trainer-public?fieldManager=sdk-test&force=true" \
  "$(cat "$src/tests/sdk/data/kubeflow-trainer-public.json")" application/apply-patch+yaml >/dev/null || exit 1

ns=sdk-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
api POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$ns\"}}" >/dev/null || exit 1
"$ctl" controller -n "$ns" >"$tmp/ctl.log" 2>&1 &
pid=$!
rc=0
TEST_NAMESPACE=$ns timeout 300 "$TRAINER_SDK_PYTHON" "$src/tests/sdk/trainer_client_test.py" || rc=1
kill -TERM "$pid"; wait "$pid" 2>/dev/null; pid=
if [[ $rc -ne 0 ]]; then echo "--- controller log:"; tail -40 "$tmp/ctl.log"; fi
api DELETE "/api/v1/namespaces/$ns" >/dev/null 2>&1
exit $rc
