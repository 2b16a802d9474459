#!/usr/bin/env bash
# What a newcomer tripped over (issue 23), each as a kubectl or Kubeflow user expects it:
# - --strict refuses unknown fields with the API server's strict-decoding text; without it run
#   and render warn and end by saying what they ignored;
# - a misspelt runtime is an error naming the closest one when the runtimes are known
#   (--builtin-runtimes, or runtimes of that kind given), and "not checked" otherwise;
# - a name that is not a DNS subdomain is reported at metadata.name, as the API server does;
# - logs RUN_DIR --tail N prints the last N lines, -f follows the run until it ends, also when
#   it starts before the run has written its state;
# - one SIGTERM (delivered twice when the sender also signals the process group, as timeout(1)
#   does) is one graceful stop; a user's second signal still ends the process at once;
# - median stopping judges a trial once, at its start_step-th report, so a trial that ran all its
#   reports is not stopped at the end; trials and their run folders agree; steps count from 1;
# - the best trial's objective value is on the `best trial:` line and in status.result.
# Cases that need a cluster (apply --strict, `timeout N trainerctl controller`) run against the
# shared test API server ($TRAINER_TEST_APISERVER_DIR, CTest fixture kube_apiserver) and are
# skipped, visibly, without it.
# Usage: newcomer_test.sh <trainerctl> <source-dir> <trainer-pod>
set -uo pipefail
ctl=$1 src=$2 pod_helper=$3
data=$src/tests/cli/data
ex=$src/examples
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# run <expected-exit> <name> -- args...: runs trainerctl, keeps stdout/stderr in $out/$err.
run() {
  local want=$1 name=$2
  shift 3
  "$ctl" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
  if [[ $got -ne $want ]]; then
    fail "$name: exit $got, want $want"; echo "stdout: $out"; echo "stderr: $err"
    return 1
  fi
  return 0
}
has() { grep -qF -- "$3" <<<"$2" || { fail "$1: missing [$3] in:"; echo "$2"; }; }
lacks() { ! grep -qF -- "$3" <<<"$2" || { fail "$1: unexpected [$3] in:"; echo "$2"; }; }
same() { [[ $2 == "$3" ]] || { fail "$1:"; echo "  got:  [$2]"; echo "  want: [$3]"; }; }
local_run=(--isolation host --pod-helper "$pod_helper")

# --- Strict field validation. ---
typo_job=$data/unknown-field.yaml  # numNode for numNodes, on the built-in torch-distributed
strict_text='error: TrainJob in version "v1alpha1" cannot be handled as a TrainJob: strict decoding error: unknown field "spec.trainer.numNode"'
ignored_text='Warning: ignored unknown field "spec.trainer.numNode" (--strict refuses it, as the API server'"'"'s strict field validation does)'
run 1 strict-validate -- validate --strict -f "$typo_job" --builtin-runtimes && same strict-validate "$err" "$strict_text"
run 0 warn-validate -- validate -f "$typo_job" --builtin-runtimes && has warn-validate "$err" 'Warning: unknown field "spec.trainer.numNode"'
run 1 strict-render -- render --strict -f "$typo_job" --builtin-runtimes && {
  same strict-render "$err" "$strict_text"
  same strict-render-out "$out" ""
}
run 0 warn-render -- render -f "$typo_job" --builtin-runtimes && {
  has warn-render "$out" "kind: JobSet"
  same warn-render-last "$(tail -1 <<<"$err")" "$ignored_text"
}
# The TrainJob is the file's last document, its spec the last lines.
{ cat "$data/echo-job.yaml"; printf '  trainer:\n    numNode: 2\n'; } >"$tmp/echo-typo.yaml"
run 1 strict-run -- run --strict -f "$tmp/echo-typo.yaml" "${local_run[@]}" --run-dir "$tmp/strict-run" && {
  same strict-run "$err" "$strict_text"
  [[ ! -e $tmp/strict-run ]] || fail "strict-run: a run folder was made"
}
run 0 warn-run -- run -f "$tmp/echo-typo.yaml" "${local_run[@]}" --run-dir "$tmp/warn-run" && {
  has warn-run "$out" "hello-from-echo"
  same warn-run-last "$(tail -1 <<<"$err")" "$ignored_text"
}
sed 's/numTrials: 6/numTrial: 6/' "$ex/tuning/synthetic-grid.yaml" >"$tmp/grid-typo.yaml"
run 1 strict-tuning -- run --strict -f "$tmp/grid-typo.yaml" -f "$ex/tuning/synthetic-runtime.yaml" "${local_run[@]}" --run-dir "$tmp/strict-tuning" &&
  same strict-tuning "$err" 'error: OptimizationJob in version "v1alpha1" cannot be handled as a OptimizationJob: strict decoding error: unknown field "spec.numTrial"'

# --- A misspelt runtime. ---
sed 's/name: torch-distributed/name: torch-distributd/' "$ex/torch-distributed/trainjob.yaml" >"$tmp/rt-typo.yaml"
run 1 runtime-builtin -- validate -f "$tmp/rt-typo.yaml" --builtin-runtimes && {
  has runtime-builtin "$err" 'Warning: TrainJob default/mnist-ddp references ClusterTrainingRuntime "torch-distributd", which is neither among the inputs nor a built-in runtime; did you mean "torch-distributed"?'
  has runtime-builtin "$err" 'spec.RuntimeRef: Invalid value: {"name":"torch-distributd","apiGroup":"trainer.kubeflow.org","kind":"ClusterTrainingRuntime"}: clustertrainingruntimes.trainer.kubeflow.org "torch-distributd" not found'
}
run 1 runtime-render -- render -f "$tmp/rt-typo.yaml" --builtin-runtimes && has runtime-render "$err" 'did you mean "torch-distributed"?'
run 1 runtime-given -- validate -f "$ex/torch-distributed/runtime.yaml" -f "$tmp/rt-typo.yaml" && has runtime-given "$err" 'did you mean "torch-distributed"?'
sed 's/^    name: echo$/    name: ecko/' "$data/echo-job.yaml" >"$tmp/tr-typo.yaml"  # runtimeRef only
run 1 runtime-namespaced -- validate -f "$tmp/tr-typo.yaml" && has runtime-namespaced "$err" 'references TrainingRuntime "ecko" in namespace "default", which is not among the inputs; did you mean "echo"?'
run 0 runtime-unchecked -- validate -f "$tmp/rt-typo.yaml" && {
  has runtime-unchecked "$err" 'the TrainJob was not checked against it'
  lacks runtime-unchecked "$err" "did you mean"
}
run 1 runtime-far -- validate -f - --builtin-runtimes < <(sed 's/name: torch-distributed/name: my-own-runtime/' "$ex/torch-distributed/trainjob.yaml") &&
  lacks runtime-far "$err" "did you mean"

# --- Names at metadata.name. ---
run 1 bad-name -- validate -f - --builtin-runtimes < <(sed 's/^  name: mnist-ddp$/  name: My_Job/' "$ex/torch-distributed/trainjob.yaml") &&
  same bad-name "$(head -1 <<<"$err")" "metadata.name: Invalid value: \"My_Job\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

# --- logs of a local run: --tail, -f. ---
sed 's/command: \["sh", "-c", "echo hello-from-echo"\]/command: ["sh", "-c", "for i in 1 2 3 4 5 6; do echo line-$i; sleep 0.4; done"]/' \
  "$data/echo-job.yaml" >"$tmp/slow-echo.yaml"
"$ctl" run -f "$tmp/slow-echo.yaml" "${local_run[@]}" --run-dir "$tmp/logs-run" >"$tmp/logs-run.out" 2>&1 &
run_pid=$!
for _ in $(seq 100); do grep -qs line-1 "$tmp/logs-run/run.log" && break; sleep 0.1; done
run 0 logs-follow -- logs "$tmp/logs-run" -f && {
  same logs-follow "$out" "$(printf '[node-0-0] line-%s\n' 1 2 3 4 5 6)"
  kill -0 "$run_pid" 2>/dev/null && [[ $("$ctl" status "$tmp/logs-run" -o json) != *'"finished":true'* ]] &&
    fail "logs-follow: ended while the run goes on"
}
wait "$run_pid" || fail "logs: the run failed: $(cat "$tmp/logs-run.out")"
# -f started before the run: it waits for the run's state and logs, then follows to the end.
mkdir "$tmp/logs-early"
"$ctl" logs "$tmp/logs-early" -f >"$tmp/early.out" 2>&1 &
logs_pid=$!
sleep 0.5
"$ctl" run -f "$tmp/slow-echo.yaml" "${local_run[@]}" --run-dir "$tmp/logs-early" >/dev/null 2>&1 ||
  fail "logs-early: the run failed"
wait "$logs_pid" || fail "logs-early: logs -f exited $?: $(cat "$tmp/early.out")"
same logs-early "$(cat "$tmp/early.out")" "$(printf '[node-0-0] line-%s\n' 1 2 3 4 5 6)"
run 0 logs-tail -- logs "$tmp/logs-run" --tail 2 && same logs-tail "$out" "$(printf '[node-0-0] line-%s\n' 5 6)"
run 0 logs-tail-pod -- logs "$tmp/logs-run" node-0-0 --tail=1 && same logs-tail-pod "$out" "line-6"
run 0 logs-tail-zero -- logs "$tmp/logs-run" --tail 0 && same logs-tail-zero "$out" ""
run 0 logs-tail-more -- logs "$tmp/logs-run" --tail 100 && same logs-tail-more "$(wc -l <<<"$out")" 6
run 0 logs-tail-follow -- logs "$tmp/logs-run" --tail 1 -f && same logs-tail-follow "$out" "[node-0-0] line-6"
run 2 logs-tail-bad -- logs "$tmp/logs-run" --tail -1

# --- One SIGTERM is one stop (a tuning run whose trial takes 4 s to stop). ---
# start_slow NAME: starts the run in the background ($slow_pid), returns once its trial runs.
start_slow() {
  "$ctl" run -f "$data/slow-stop.yaml" "${local_run[@]}" --run-dir "$tmp/$1" >"$tmp/$1.out" 2>"$tmp/$1.err" &
  slow_pid=$!
  for _ in $(seq 100); do grep -qs started "$tmp/$1/slow-stop-trial-0/run.log" && return 0; sleep 0.1; done
  fail "$1: the trial did not start: $(cat "$tmp/$1.err")"
}
# The same signal twice from one sender (the process, then its group): one stop.
start_slow echo-stop
kill -TERM "$slow_pid"; sleep 0.2; kill -TERM "$slow_pid"
wait "$slow_pid"
rc=$?
[[ $rc -eq 1 ]] || fail "echo-stop: exit $rc, want 1 (stopped)"
lacks echo-stop "$(cat "$tmp/echo-stop.err")" "second signal"
grep -q '"finished": *true' "$tmp/echo-stop/results.json" || fail "echo-stop: results.json not finished"
# A second signal from the user, later, while the stop waits: exits at once.
start_slow user-stop
kill -TERM "$slow_pid"; sleep 1.5; kill -TERM "$slow_pid"
wait "$slow_pid"
rc=$?
[[ $rc -eq 1 ]] || fail "user-stop: exit $rc, want 1"
has user-stop "$(cat "$tmp/user-stop.err")" "second signal: exiting without waiting for the stop"
# timeout(1) signals its child and then its own process group.
timeout -s TERM 2 "$ctl" run -f "$data/slow-stop.yaml" "${local_run[@]}" --run-dir "$tmp/timeout-run" >/dev/null 2>"$tmp/timeout-run.err"
lacks timeout-stop "$(cat "$tmp/timeout-run.err")" "second signal"
has timeout-stop "$(cat "$tmp/timeout-run.err")" "received SIGTERM: stopping"

# --- Median stopping and the best trial's value. ---
run 0 late -- run -f "$data/medianstop-late.yaml" -f "$ex/tuning/synthetic-runtime.yaml" "${local_run[@]}" --run-dir "$tmp/late" && {
  has late "$out" "best trial: late-trial-0 mode=fast loss=0.125"
  python3 - "$tmp/late/results.json" <<'EOF' || fail "late: results.json"
import json, sys
doc = json.load(open(sys.argv[1]))
slow = doc["trials"][1]
assert slow["state"] == "Succeeded" and len(slow["metrics"]) == 10, slow
assert doc["status"]["result"]["metrics"] == [{"metric": "loss", "value": "0.125"}], doc["status"]
EOF
}
run 0 medianstop -- run -o wide -f "$ex/tuning/synthetic-medianstop.yaml" -f "$ex/tuning/synthetic-runtime.yaml" "${local_run[@]}" --run-dir "$tmp/medianstop" && {
  has medianstop "$out" "median stopping: loss worse than the completed trials' at step 2"
  run 0 medianstop-status -- status "$tmp/medianstop" && has medianstop-status "$out" "best trial: synthetic-medianstop-trial-0 trend=-0.1 loss=0.6"
}
# Each trial's state is its run folder's: Succeeded <-> Complete, EarlyStopped/Failed <-> Failed.
for dir in "$tmp/late" "$tmp/medianstop"; do
  [[ -f $dir/results.json ]] || continue
  python3 - "$dir/results.json" <<'EOF' >"$tmp/states" || fail "states of $dir"
import json, sys
for t in json.load(open(sys.argv[1]))["trials"]:
    print(t["runDir"], t["state"])
EOF
  while read -r run_dir state; do
    phase=$("$ctl" status "$run_dir" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["phase"])')
    case $state in
      Succeeded) want=Complete ;;
      *) want=Failed ;;
    esac
    [[ $phase == "$want" ]] || fail "$(basename "$run_dir"): results.json says $state, its run folder $phase"
  done <"$tmp/states"
done

# --- On a cluster: apply --strict, and `timeout N trainerctl controller`. ---
apiserver=${TRAINER_TEST_APISERVER_DIR:-}
if [[ -n ${TRAINER_KUBE_TEST_ENV:-} && -n $apiserver && -f $apiserver/kubeconfig ]]; then
  api() {
    curl -sf --max-time 30 --cacert "$apiserver/ca.crt" -H "Authorization: Bearer $(cat "$apiserver/token")" "$@"
  }
  ns=newcomer-$$-$RANDOM
  api -H 'Content-Type: application/json' -X POST "$(cat "$apiserver/url")/api/v1/namespaces" \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" >/dev/null || fail "namespace $ns"
  export KUBECONFIG=$apiserver/kubeconfig
  run 1 strict-apply -- apply --strict -n "$ns" -f "$tmp/echo-typo.yaml" && {
    same strict-apply "$err" "$strict_text"
    api "$(cat "$apiserver/url")/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainingruntimes" | grep -q '"items": *\[\]' ||
      fail "strict-apply: something was applied"
  }
  for i in 1 2 3; do
    timeout -s TERM 3 "$ctl" controller -n "$ns" >/dev/null 2>"$tmp/controller.err"
    lacks "controller-timeout-$i" "$(cat "$tmp/controller.err")" "second signal"
    has "controller-timeout-$i" "$(cat "$tmp/controller.err")" "controller stopped"
  done
  api -X DELETE "$(cat "$apiserver/url")/api/v1/namespaces/$ns" >/dev/null
else
  echo "SKIP apply --strict, controller under timeout: no test API server (TRAINER_KUBE_TEST_ENV, ctest fixture kube_apiserver)"
fi

if ((failures)); then echo "newcomer_test: $failures failure(s)"; exit 1; fi
echo "newcomer_test: all passed"
