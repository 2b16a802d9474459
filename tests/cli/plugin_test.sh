#!/usr/bin/env bash
# trainerctl --plugin with the example Paddle plugin (examples/plugins/paddle, docs/plugins.md):
# the rendered objects are exactly tests/golden/plugins/paddle-render.yaml, the plugin's field
# errors reach validate and render, load errors exit 2 naming the path, and a local run's pods
# see the PADDLE_* variables the plugin injected.
# The in-process C++ variant (examples/plugins/paddle_cpp) renders the same golden file.
# Usage: plugin_test.sh <trainerctl> <source-dir> <libpaddle_plugin.so> [<trainer-pod>|""]
#        [<paddle_render>]
# UPDATE_GOLDEN=1 rewrites the golden file from this build instead of comparing.
set -uo pipefail
ctl=$1 src=$2 plugin=$3 pod_helper=${4:-} paddle_render=${5:-}
ex=$src/examples/plugins/paddle
data=$src/tests/cli/data/paddle
golden=$src/tests/golden/plugins/paddle-render.yaml
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0

# run <expected-exit> <name> -- args...: runs trainerctl, keeps stdout/stderr in $out/$err.
run() {
  local want=$1 name=$2
  shift 3
  timeout 60 "$ctl" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, want $want"; echo "stdout: $out"; echo "stderr: $err"
    failures=$((failures + 1))
    return 1
  fi
  return 0
}
has() {
  if ! grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: missing [$3] in:"; echo "$2"; failures=$((failures + 1))
  fi
}
lacks() {
  if grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: unexpected [$3] in:"; echo "$2"; failures=$((failures + 1))
  fi
}
empty() {
  if [[ -n $2 ]]; then echo "FAIL $1: expected nothing, got: $2"; failures=$((failures + 1)); fi
}

# --- render: exactly the golden file (fixed UID; the Paddle runtime needs no clock or keys) ---
uid=7d3c1b2a-5e6f-4a8b-9c0d-1e2f3a4b5c6d
if run 0 render -- render --plugin "$plugin" -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" --uid "$uid"; then
  empty render-err "$err"
  if [[ ${UPDATE_GOLDEN:-} == 1 ]]; then
    cp "$tmp/out" "$golden" && echo "updated $golden"
  elif ! diff -u "$golden" "$tmp/out"; then
    echo "FAIL render: output differs from $golden (UPDATE_GOLDEN=1 rewrites it)"
    failures=$((failures + 1))
  fi
fi
# The C++ plugin, registered in process, renders exactly the same objects.
if [[ -n $paddle_render ]]; then
  if timeout 60 "$paddle_render" "$ex/runtime.yaml" "$ex/trainjob.yaml" --uid "$uid" >"$tmp/cpp.yaml" 2>"$tmp/cpp.err"; then
    diff -u "$golden" "$tmp/cpp.yaml" || { echo "FAIL paddle_render: output differs from $golden"; failures=$((failures + 1)); }
  else
    echo "FAIL paddle_render: $(cat "$tmp/cpp.err")"; failures=$((failures + 1))
  fi
fi
# The runtime's own port named `master` is the rendezvous port (no second port is added).
run 0 render-own-port -- render --plugin "$plugin" -f "$data/own-port.yaml" -o json && {
  has render-own-port "$out" '"value": "port-node-0-0.port:37777"'
  has render-own-port "$out" '"value": "3"'
  [[ $(grep -c '"containerPort"' <<<"$out") -eq 1 ]] || { echo "FAIL render-own-port: want the JobSet's one port"; failures=$((failures + 1)); }
  lacks render-own-port "$out" "36543"
}
# Without the plugin the runtime is a plain one: no PADDLE_* variables, no port.
run 0 render-no-plugin -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" --uid "$uid" && {
  lacks render-no-plugin "$out" "PADDLE_MASTER"
  lacks render-no-plugin "$out" "36543"
}
# A TrainJob that is not the plugin's own renders exactly as without it.
torch=$src/examples/torch-distributed
run 0 render-torch-plain -- render -f "$torch/runtime.yaml" -f "$torch/trainjob.yaml" --uid "$uid" &&
  cp "$tmp/out" "$tmp/torch-plain.yaml"
run 0 render-torch-plugin -- render --plugin "$plugin" -f "$torch/runtime.yaml" -f "$torch/trainjob.yaml" --uid "$uid" &&
  { diff -u "$tmp/torch-plain.yaml" "$tmp/out" || { echo "FAIL render-torch-plugin: the plugin changed a torch TrainJob"; failures=$((failures + 1)); }; }

# --- the plugin's admission rules, with their field paths, on validate and render ---
reserved='spec.trainer.env: Invalid value: [{"name":"PADDLE_MASTER","value":"somewhere:1234"},{"name":"LEARNING_RATE","value":"0.01"}]: must not have reserved envs, invalid envs configured: [PADDLE_MASTER]'
run 1 validate-reserved -- validate --plugin "$plugin" -f "$ex/runtime.yaml" -f "$data/reserved-env.yaml" && {
  has validate-reserved "$err" "$reserved"
  empty validate-reserved-out "$out"
}
run 1 render-reserved -- render --plugin "$plugin" -f "$ex/runtime.yaml" -f "$data/reserved-env.yaml" && {
  has render-reserved "$err" "$reserved"
  empty render-reserved-out "$out"
}
run 0 validate-reserved-no-plugin -- validate -f "$ex/runtime.yaml" -f "$data/reserved-env.yaml"
node='spec.runtimeRef: Invalid value: {"name":"paddle-misnamed","apiGroup":"trainer.kubeflow.org","kind":"TrainingRuntime"}: a paddle runtime needs a container named "node" in its trainer job'
run 1 validate-no-node -- validate --plugin "$plugin" -f "$data/no-node-container.yaml" &&
  has validate-no-node "$err" "$node"
run 1 render-no-node -- render --plugin "$plugin" -f "$data/no-node-container.yaml" &&
  has render-no-node "$err" "$node"

# --- load errors: exit 2 with the library's message, naming the path ---
for cmd in validate render run; do
  run 2 "missing-$cmd" -- "$cmd" --plugin /nonexistent.so -f "$ex/trainjob.yaml" && {
    has "missing-$cmd" "$err" "/nonexistent.so"
    has "missing-$cmd" "$err" "error: --plugin"
  }
done
run 2 missing-controller -- controller --plugin /nonexistent.so && has missing-controller "$err" "/nonexistent.so"
run 2 not-a-plugin -- render --plugin "$ex/runtime.yaml" -f "$ex/trainjob.yaml" && has not-a-plugin "$err" "$ex/runtime.yaml"
run 2 twice -- render --plugin "$plugin" --plugin "$plugin" -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" && {
  has twice "$err" 'plugin name "Paddle" is already registered'
  empty twice-out "$out"
}
run 0 help -- render --help && has help "$out" "--plugin PATH"

# --- a local run: every rank sees the plugin's variables. With --isolation host the executor
# rewrites pod hostnames to 127.0.0.1 (docs/local.md), so PADDLE_MASTER is rank 0 on loopback.
if [[ -n $pod_helper ]]; then
  if run 0 run -- run --plugin "$plugin" -f "$data/run.yaml" --isolation host --run-dir "$tmp/run" --pod-helper "$pod_helper"; then
    for pod in node-0-0 node-0-1; do
      has "run-$pod" "$out" "[$pod] PADDLE_MASTER=127.0.0.1:36543"
      has "run-$pod" "$out" "[$pod] PADDLE_NNODES=2"
      has "run-$pod" "$out" "[$pod] PADDLE_JOB_ID=paddle-env"
    done
    run 0 run-logs -- logs "$tmp/run" node-0-1 && has run-logs "$out" "PADDLE_MASTER=127.0.0.1:36543"
  fi
fi

if ((failures)); then echo "plugin_test: $failures failure(s)"; exit 1; fi
echo "plugin_test: all passed"
