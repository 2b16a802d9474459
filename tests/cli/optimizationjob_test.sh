#!/usr/bin/env bash
# trainerctl validate of OptimizationJobs and Katib Experiments: exit codes, the OptimizationJob
# rules' messages with their paths, the template checked against its runtime.
# Usage: optimizationjob_test.sh <trainerctl> <source-dir>
set -uo pipefail
ctl=$1 src=$2
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

job() {  # job <parallelTrials> <logUniform min> <extra template metadata line>
  cat <<EOT
apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata: {name: tune}
spec:
  objectives: [{metric: loss}]
  numTrials: 2
  parallelTrials: $1
  parameters:
  - name: lr
    searchSpace: {logUniform: {min: "$2", max: "0.1"}}
  trainJobTemplate:
$3    spec:
      runtimeRef: {name: torch-distributed}
      trainer: {command: [torchrun, train.py, "--lr=\$(KUBEFLOW_TRAINER_OPT_LR)"]}
EOT
}

job 2 0.001 "" >"$tmp/ok.yaml"
if run 0 "valid OptimizationJob with the built-in runtime" -- validate -f "$tmp/ok.yaml" --builtin-runtimes; then
  [[ -z $err ]] || { echo "FAIL valid: unexpected stderr: $err"; failures=$((failures + 1)); }
fi
if run 0 "valid OptimizationJob, runtime not given" -- validate -f "$tmp/ok.yaml"; then
  has "runtime warning" "$err" \
    'Warning: OptimizationJob default/tune (trainJobTemplate) references ClusterTrainingRuntime "torch-distributed", which is not among the inputs: the TrainJob template was not checked against it'
fi

job 3 0 "    metadata: {name: x}
" >"$tmp/bad.yaml"
if run 1 "invalid OptimizationJob" -- validate -f "$tmp/bad.yaml" --builtin-runtimes; then
  all="$out$err"
  has "logUniform min" "$all" \
    'spec.parameters[0].searchSpace.logUniform: Invalid value: min must be strictly greater than 0'
  has "template metadata" "$all" \
    'spec.trainJobTemplate.metadata: Invalid value: name and namespace cannot be set in a template.'
  has "parallelTrials" "$all" 'spec: Invalid value: parallelTrials cannot exceed numTrials'
fi

# Katib's grid example is converted on the way in, then admitted as an OptimizationJob.
if run 0 "Katib grid Experiment" -- validate -f "$src/tests/data/katib/grid.yaml" --builtin-runtimes; then
  has "primaryContainerName warning" "$err" \
    'Warning: Experiment kubeflow/grid: spec.trialTemplate.primaryContainerName: "node" has no OptimizationJob equivalent'
fi

[[ $failures -eq 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "optimizationjob_test: ok"
