#!/usr/bin/env bash
# trainerctl's command-line contract: exit codes, stdout/stderr contents, warnings, error lines.
# Usage: cli_test.sh <trainerctl> <source-dir>
set -uo pipefail
ctl=$1 src=$2
ex=$src/examples/torch-distributed
data=$src/tests/cli/data
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0

# run <expected-exit> <name> -- args...: runs trainerctl, keeps stdout/stderr in $out/$err.
run() {
  local want=$1 name=$2
  shift 3
  "$ctl" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, want $want"; echo "stdout: $out"; echo "stderr: $err"
    failures=$((failures + 1))
    return 1
  fi
  return 0
}
# has <name> <haystack> <needle>: fixed-string containment.
has() {
  if ! grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: missing [$3] in:"; echo "$2"; failures=$((failures + 1))
  fi
}
empty() {
  if [[ -n $2 ]]; then echo "FAIL $1: expected nothing, got: $2"; failures=$((failures + 1)); fi
}

run 0 version -- version && has version "$out" "trainerctl 0.1.0 (libtrainer 0.1.0"
run 2 no-command -- && has no-command "$err" "usage: trainerctl"
run 2 unknown-command -- frobnicate && has unknown-command "$err" 'unknown command "frobnicate"'
run 2 version-extra -- version extra

run 0 valid -- validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" && empty valid-out "$out" && empty valid-err "$err"
run 0 valid-reversed -- validate -f "$ex/trainjob.yaml" -f "$ex/runtime.yaml"
run 0 valid-yaml -- validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o yaml && {
  has valid-yaml "$out" "kind: TrainJob"
  has valid-yaml "$out" "managedBy: trainer.kubeflow.org/trainjob-controller"
  has valid-yaml "$out" "kind: ClusterTrainingRuntime"
  has valid-yaml "$out" "---"
}
run 0 valid-json -- validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o json && {
  has valid-json "$out" '"kind": "List"'
  has valid-json "$out" '"suspend": false'
}
# The JSON List printed above is itself valid input.
"$ctl" validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o json >"$tmp/list.json"
run 0 list-roundtrip -- validate -f "$tmp/list.json"
run 0 stdin -- validate -f - <"$ex/trainjob.yaml"

run 2 no-files -- validate && has no-files "$err" "at least one -f FILE"
run 2 bad-flag -- validate -f "$ex/trainjob.yaml" --bogus && has bad-flag "$err" 'unexpected argument "--bogus"'
run 2 bad-output -- validate -f "$ex/trainjob.yaml" -o xml && has bad-output "$err" "-o must be yaml or json"
run 1 missing-file -- validate -f "$tmp/nope.yaml" && has missing-file "$err" "nope.yaml: cannot open"
run 1 broken-yaml -- validate -f "$data/broken.yaml" && has broken-yaml "$err" "broken.yaml"

run 1 invalid -- validate -f "$data/invalid-trainjob.yaml" && {
  has invalid "$err" "spec.trainer.numProcPerNode: Invalid value: 0: numProcPerNode must be greater than or equal to 1"
  has invalid "$err" "metadata.name must match RFC 1035 DNS label format"
  has invalid "$err" "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"
  has invalid "$err" "spec.trainer.numNodes"
  empty invalid-out "$out"
  lines=$(grep -c . <<<"$err")
  [[ $lines -ge 4 ]] || { echo "FAIL invalid: want >= 4 error lines, got $lines"; failures=$((failures + 1)); }
}
run 0 unknown-field -- validate -f "$data/unknown-field.yaml" && has unknown-field "$err" 'Warning: unknown field "spec.trainer.numNode"'
run 0 deprecated -- validate -f "$data/deprecated-runtime.yaml" && {
  has deprecated "$err" 'Warning: ClusterTrainingRuntime "old-torch" is deprecated'
  has deprecated "$err" 'Warning: Referenced ClusterTrainingRuntime "old-torch" is deprecated'
}
run 1 unsupported-runtime -- validate -f "$data/unsupported-runtime.yaml" && has unsupported-runtime "$err" "unsupported runtime: MyRuntime.example.com"

# render: the objects the controller would create, or nothing on stdout when rejected.
uid=0c4fd9c2-1111-4222-8333-944455556666
run 0 render -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" --uid "$uid" && {
  has render "$out" "kind: JobSet"
  has render "$out" "name: mnist-ddp-runtime-snapshot"
  has render "$out" "uid: $uid"
  has render "$out" "PET_NPROC_PER_NODE"
  empty render-err "$err"
}
run 0 render-json -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o json && {
  has render-json "$out" '"kind": "List"'
  has render-json "$out" '"kind": "JobSet"'
}
run 0 render-namespace -- render -f "$ex/runtime.yaml" -f - --namespace team-a < <(sed '/namespace: default/d' "$ex/trainjob.yaml") && has render-namespace "$out" "namespace: team-a"
run 1 render-invalid -- render -f "$ex/runtime.yaml" -f "$data/invalid-trainjob.yaml" && {
  empty render-invalid-out "$out"
  has render-invalid "$err" "spec.trainer.numProcPerNode: Invalid value: 0"
}
run 1 render-no-runtime -- render -f "$ex/trainjob.yaml" && {
  empty render-no-runtime-out "$out"
  has render-no-runtime "$err" "torch-distributed"
}
run 1 render-two-jobs -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -f "$data/unknown-field.yaml" && empty render-two-jobs-out "$out"
run 0 render-managed-elsewhere -- render -f "$ex/runtime.yaml" -f "$data/multikueue.yaml" && {
  empty render-managed-out "$out"
  has render-managed-elsewhere "$err" "kueue.x-k8s.io/multikueue"
}
# Built-in ClusterTrainingRuntimes: listed, printed, and used by render/validate on request.
run 0 runtimes -- runtimes && {
  has runtimes "$out" "torch-distributed"
  has runtimes "$out" "deepspeed-distributed"
}
run 0 runtimes-one -- runtimes deepspeed-distributed && has runtimes-one "$out" "kind: ClusterTrainingRuntime"
run 1 runtimes-unknown -- runtimes no-such && has runtimes-unknown "$err" 'no built-in runtime "no-such"'
run 2 runtimes-two -- runtimes a b
run 0 render-builtin -- render -f "$ex/trainjob.yaml" --builtin-runtimes && {
  has render-builtin "$out" "kind: JobSet"
  has render-builtin "$out" "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"
}
run 0 validate-builtin -- validate -f "$ex/trainjob.yaml" --builtin-runtimes && empty validate-builtin-err "$err"
# keygen: a key pair render --ssh-private-key accepts; never overwrites.
run 0 keygen -- keygen -o "$tmp/keys" && {
  [[ $(stat -c %a "$tmp/keys/ssh-privatekey") == 600 ]] || { echo "FAIL keygen: private key mode"; failures=$((failures + 1)); }
  has keygen "$(cat "$tmp/keys/ssh-publickey")" "ecdsa-sha2-nistp521 "
}
run 1 keygen-exists -- keygen -o "$tmp/keys"
run 0 render-with-key -- render -f "$src/examples/ddp/trainjob.yaml" --builtin-runtimes --ssh-private-key "$tmp/keys/ssh-privatekey" -o json && {
  has render-with-key "$out" "$(base64 -w0 <"$tmp/keys/ssh-publickey")"
}
run 2 render-no-files -- render
run 2 render-bad-output -- render -f "$ex/trainjob.yaml" -o table
# --feature-gates: upstream's syntax; TrainJobStatus wires the status server into the pods.
gate_case="$src/tests/golden/cases/79-trainjobstatus-gate-on"
run 0 render-gate-on -- render -f "$gate_case/preconditions.yaml" -f "$gate_case/runtime.yaml" -f "$gate_case/trainjob.yaml" --feature-gates TrainJobStatus=true && {
  has render-gate-on "$out" "KUBEFLOW_TRAINER_SERVER_URL"
  has render-gate-on "$out" "name: test-job-tls-config"
}
run 0 render-gate-off -- render -f "$gate_case/preconditions.yaml" -f "$gate_case/runtime.yaml" -f "$gate_case/trainjob.yaml" && {
  [[ $out != *KUBEFLOW_TRAINER_SERVER_URL* ]] || { echo "FAIL render-gate-off: status server env without the gate"; failures=$((failures + 1)); }
}
run 2 render-bad-gate -- render -f "$ex/trainjob.yaml" --feature-gates Nope=true && has render-bad-gate "$err" 'unrecognized feature gate "Nope"'

if ((failures)); then echo "cli_test: $failures failure(s)"; exit 1; fi
echo "cli_test: all passed"
