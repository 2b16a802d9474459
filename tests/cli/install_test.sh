#!/usr/bin/env bash
# `trainerctl install` / `uninstall` against a private kube-apiserver (../shared/kube-test-env)
# started without CRDs, as a fresh cluster is: everything upstream's manifests install arrives,
# a second install changes nothing, --dry-run=client sends nothing, uninstall removes it all.
# Then the Kubeflow SDK (TRAINER_SDK_PYTHON, when set) sees the installed control plane: no
# TrainerClient() warning, the built-in runtimes listed. Usage: install_test.sh <trainerctl>
# <source-dir>; exit 77 (skipped) without TRAINER_KUBE_TEST_ENV.
set -uo pipefail
ctl=$1 src=$2
if [[ -z ${TRAINER_KUBE_TEST_ENV:-} ]]; then
  echo "SKIPPED: TRAINER_KUBE_TEST_ENV is not set (no kube-apiserver bundle)"; exit 77
fi
tmp=$(mktemp -d)
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
cleanup() {
  "$src/tests/kube/support/apiserver_fixture.sh" stop "$tmp/apiserver" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
# A cluster without the Trainer CRDs: only JobSet's (install does not bring JobSet, as a cluster
# that already runs it).
bundle=$TRAINER_KUBE_TEST_ENV
mkdir -p "$tmp/crds"
if [[ -f $bundle/kube-test-env.tar.xz ]]; then
  tar -xJf "$bundle/kube-test-env.tar.xz" -C "$tmp" kube-test-env/crds/jobset.x-k8s.io_jobsets.yaml
  mv "$tmp/kube-test-env/crds/jobset.x-k8s.io_jobsets.yaml" "$tmp/crds/"
fi
CRD_DIR=$tmp/crds "$src/tests/kube/support/apiserver_fixture.sh" start "$tmp/apiserver" >/dev/null || exit 1
# shellcheck disable=SC1091
. "$tmp/apiserver/env"
export KUBECONFIG
api() {
  curl -sS --fail-with-body --max-time 20 --cacert "$APISERVER_CA" \
    -H "Authorization: Bearer $APISERVER_TOKEN" "$APISERVER_URL$1"
}
exists() { api "$1" >/dev/null 2>&1; }
gone() { ! exists "$1"; }
paths=(
  /apis/apiextensions.k8s.io/v1/customresourcedefinitions/trainjobs.trainer.kubeflow.org
  /apis/apiextensions.k8s.io/v1/customresourcedefinitions/optimizationjobs.trainer.kubeflow.org
  /api/v1/namespaces/kubeflow-system
  /api/v1/namespaces/kubeflow-system/serviceaccounts/kubeflow-trainer-controller-manager
  /apis/rbac.authorization.k8s.io/v1/clusterroles/kubeflow-trainer-controller-manager
  /apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeflow-trainer-controller-manager
  /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed
  /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torchtune-llama3.2-1b
  /api/v1/namespaces/kubeflow-system/configmaps/kubeflow-trainer-public
  /apis/rbac.authorization.k8s.io/v1/namespaces/kubeflow-system/roles/kubeflow-trainer-public
  /apis/rbac.authorization.k8s.io/v1/namespaces/kubeflow-system/rolebindings/kubeflow-trainer-public
  /api/v1/namespaces/kubeflow-system/services/kubeflow-trainer-controller-manager
  /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validator.trainer.kubeflow.org
  /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/defaulter.trainer.kubeflow.org
  /apis/apps/v1/namespaces/kubeflow-system/deployments/kubeflow-trainer-controller-manager
)

# Dry run: the objects, nothing sent.
timeout 60 "$ctl" install --dry-run=client -o yaml --image example.com/trainerctl:1 >"$tmp/dry.yaml" || fail "dry-run: exit $?"
grep -q '^kind: CustomResourceDefinition' "$tmp/dry.yaml" || fail "dry-run: no CRD printed"
grep -q -- '--webhook-port=9443' "$tmp/dry.yaml" || fail "dry-run: the Deployment does not serve webhooks"
exists "${paths[0]}" && fail "dry-run: a CRD was created"
timeout 10 "$ctl" install --output yaml >/dev/null 2>&1; [[ $? -eq 2 ]] || fail "install -o without --dry-run: want exit 2"

# Install: every object, each line as kubectl prints a server-side apply.
timeout 120 "$ctl" install --image example.com/trainerctl:1 >"$tmp/install.out" 2>"$tmp/install.err" || {
  fail "install: exit $?"; cat "$tmp/install.err"; }
grep -q '^customresourcedefinition.apiextensions.k8s.io/trainjobs.trainer.kubeflow.org serverside-applied$' "$tmp/install.out" ||
  fail "install: no CRD line in: $(head -3 "$tmp/install.out")"
for p in "${paths[@]}"; do exists "$p" || fail "install: $p is missing"; done
api /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed | grep -q '"trainer.kubeflow.org/webhook-validation": "disabled"' ||
  fail "install: the built-in runtimes lack upstream's webhook-validation label"
# Idempotent: the second install changes no object (resourceVersions stay).
versions() { for p in "${paths[@]}"; do [[ ${1:-} == no-ns && $p == /api/v1/namespaces/kubeflow-system ]] && continue; echo "$p $(api "$p" | sed -n 's/.*"resourceVersion": *"\([0-9]*\)".*/\1/p' | head -1)"; done; }
# (The API server stores a Namespace created by an apply without managedFields and records them,
# as `before-first-apply`, at the second apply: a one-time change of the Namespace alone.)
before=$(versions no-ns)
timeout 120 "$ctl" install --image example.com/trainerctl:1 >/dev/null 2>&1 || fail "second install: exit $?"
after=$(versions no-ns)
[[ $before == "$after" ]] || fail "second install changed objects: $(diff <(echo "$before") <(echo "$after"))"
before=$(versions)
timeout 120 "$ctl" install --image example.com/trainerctl:1 >/dev/null 2>&1 || fail "third install: exit $?"
after=$(versions)
[[ $before == "$after" ]] || fail "third install changed objects: $(diff <(echo "$before") <(echo "$after"))"

# The SDK sees the installed control plane.
if [[ -n ${TRAINER_SDK_PYTHON:-} ]]; then
  "$TRAINER_SDK_PYTHON" - <<'PY' || fail "sdk: TrainerClient against the install"
import logging, os
from kubeflow.trainer import KubernetesBackendConfig, TrainerClient
seen = []
class H(logging.Handler):
    def emit(self, record): seen.append(record.getMessage())
logging.getLogger().addHandler(H(level=logging.WARNING))
client = TrainerClient(KubernetesBackendConfig(namespace="default", config_file=os.environ["KUBECONFIG"]))
assert not seen, seen
names = {r.name for r in client.list_runtimes()}
assert {"torch-distributed", "torchtune-qwen2.5-1.5b"} <= names, names
PY
else
  echo "note: TRAINER_SDK_PYTHON is not set: the SDK check against the install did not run"
fi

# Uninstall: everything goes (CRDs too, as kubectl delete -k); a second uninstall is a no-op.
timeout 120 "$ctl" uninstall >"$tmp/uninstall.out" 2>&1 || { fail "uninstall: exit $?"; cat "$tmp/uninstall.out"; }
grep -q '^deployment.apps "kubeflow-trainer-controller-manager" deleted$' "$tmp/uninstall.out" ||
  fail "uninstall: no Deployment line in: $(head -3 "$tmp/uninstall.out")"
for p in "${paths[@]}"; do
  if [[ $p == /api/v1/namespaces/kubeflow-system ]]; then continue; fi  # terminating, no controller
  for _ in $(seq 50); do gone "$p" && break; sleep 0.2; done
  gone "$p" || fail "uninstall: $p is still there"
done
timeout 60 "$ctl" uninstall >/dev/null 2>&1 || fail "second uninstall: exit $?"

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
echo "install: ok"
