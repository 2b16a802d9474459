#!/usr/bin/env bash
# The TrainJobStatus progress endpoint of local runs (`trainerctl run --feature-gates
# TrainJobStatus=true`, docs/local.md "Progress"), in real pods, with the Kubeflow SDK's own
# update_trainjob_status() (TRAINER_SDK_PYTHON; skipped, 77, without it): the TrainJob's
# progress shows in the run's output, `trainerctl status` and state.json; the endpoint refuses
# a missing or unknown token, another TrainJob's path, a malformed, oversized or out-of-range
# body and an ended pod's token with upstream's codes, in both isolations; without the gate a
# projected token is refused with its field path; a local OptimizationJob takes its trials'
# metrics from their posts.
# Usage: run_progress_test.sh <trainerctl> <source-dir> <trainer-pod>
set -uo pipefail
ctl=$1 src=$2 pod_helper=$3
data=$src/tests/cli/data/progress
if [[ -z ${TRAINER_SDK_PYTHON:-} ]]; then
  echo "TRAINER_SDK_PYTHON is not set: the Kubeflow SDK cannot run in the pods"
  exit 77
fi
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
has() { grep -qE -- "$3" "$2" || { fail "$1: no match for /$3/ in $2:"; cat "$2"; }; }

# The inputs with this machine's values.
fill() {
  sed -e "s|@SDK_PYTHON@|$TRAINER_SDK_PYTHON|g" -e "s|@PROBE_PY@|$data/probe.py|g" \
    -e "s|@HANDOFF@|$tmp/handoff|g" "$1" >"$2"
}
fill "$data/runtime.yaml" "$tmp/runtime.yaml"
fill "$data/trainjob.yaml" "$tmp/trainjob.yaml"
fill "$data/tuning.yaml" "$tmp/tuning.yaml"

for isolation in auto host; do
  rm -rf "$tmp/handoff" && mkdir -p "$tmp/handoff"
  run=$tmp/run-$isolation
  timeout 60 "$ctl" run -f "$tmp/runtime.yaml" -f "$tmp/trainjob.yaml" --run-dir="$run" \
    --isolation="$isolation" --pod-helper="$pod_helper" --feature-gates TrainJobStatus=true \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [[ $rc -eq 0 ]] || { fail "$isolation: exit $rc"; cat "$tmp/out" "$tmp/err"; continue; }
  has "$isolation sdk" "$tmp/out" '\[node-0-0\] sdk sent True'
  # Upstream's answers (pkg/statusserver): 403 Forbidden, 422 Invalid payload or the API
  # server's message, 413 Payload too large; a body without trainerStatus writes nothing.
  has "$isolation no-token" "$tmp/out" 'check no-token 403 Forbidden$'
  has "$isolation bad-token" "$tmp/out" 'check bad-token 403 Forbidden$'
  has "$isolation other-trainjob" "$tmp/out" 'check other-trainjob 403 Forbidden$'
  has "$isolation malformed" "$tmp/out" 'check malformed 422 Invalid payload$'
  has "$isolation oversized" "$tmp/out" 'check oversized 413 Payload too large$'
  has "$isolation out-of-range" "$tmp/out" \
    'check out-of-range 422 TrainJob.trainer.kubeflow.org "progress" is invalid: status.trainerStatus.progressPercentage: Invalid value: 150: .*less than or equal to 100'
  has "$isolation no-status" "$tmp/out" 'check no-status 200 $'
  has "$isolation ended-pod" "$tmp/out" '\[late-0-0\] check ended-pod 403 Forbidden$'
  # The progress in the run's output (a line on stderr when it is not a terminal), in its summary,
  # in `trainerctl status` and in state.json, untouched by the refused posts.
  has "$isolation live" "$tmp/err" '^progress: 40%, 90s left, loss=0.25 accuracy=0.9$'
  "$ctl" status "$run" >"$tmp/status" 2>&1 || fail "$isolation: status exit $?"
  has "$isolation status" "$tmp/status" '^progress: 40%, 90s left, loss=0.25 accuracy=0.9$'
  "$ctl" status "$run" -o json >"$tmp/status.json" 2>&1 || fail "$isolation: status -o json"
  python3 - "$tmp/status.json" <<'PY' || fail "$isolation: state.json trainerStatus"
import json, sys
status = json.load(open(sys.argv[1]))["trainerStatus"]
assert status["progressPercentage"] == 40 and status["estimatedRemainingSeconds"] == 90, status
assert status["metrics"] == [{"name": "loss", "value": "0.25"},
                             {"name": "accuracy", "value": "0.9"}], status
assert status["lastUpdatedTime"].endswith("Z"), status
PY
done

# Without the gate nothing issues service account tokens: a runtime's own projected token is
# refused with its field path before anything runs; with the gate, the run's server issues it.
"$ctl" run -f "$data/token-runtime.yaml" --run-dir="$tmp/token" --pod-helper="$pod_helper" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc -eq 1 ]] || fail "token without the gate: exit $rc, want 1"
has "token refused" "$tmp/err" \
  'volumes\[0\]\.projected\.sources\[0\]\.serviceAccountToken: a local run issues service account tokens only for its TrainJobStatus progress server'
[[ ! -e $tmp/token/state.json ]] || fail "token without the gate: the run started"
"$ctl" run -f "$data/token-runtime.yaml" --run-dir="$tmp/token-gate" --pod-helper="$pod_helper" \
  --feature-gates TrainJobStatus=true >"$tmp/out" 2>"$tmp/err" || fail "token with the gate: exit $?"
has "token issued" "$tmp/out" '^\[node-0-0\] trainer-local\.[0-9a-f]{64}$'

# A tuning run: each trial's loss arrives only as a post.
timeout 60 "$ctl" run -f "$tmp/tuning.yaml" -f "$src/examples/tuning/synthetic-runtime.yaml" \
  --run-dir="$tmp/tuning" --isolation=host --pod-helper="$pod_helper" \
  --feature-gates TrainJobStatus=true >"$tmp/out" 2>"$tmp/err" ||
  { fail "tuning: exit $?"; cat "$tmp/out" "$tmp/err"; }
python3 - "$tmp/tuning/results.json" <<'PY' || fail "tuning: results.json"
import json, sys
doc = json.load(open(sys.argv[1]))
trials = {t["parameters"][0]["value"]: t for t in doc["trials"]}
assert sorted(trials) == ["0.1", "0.5"], trials
for x, t in trials.items():
    assert t["state"] == "Succeeded", t
    assert abs(t["objective"] - (float(x) - 0.3) ** 2) < 1e-9, t
assert doc["status"]["result"]["trainJobName"] in [t["name"] for t in doc["trials"]], doc
PY

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all progress checks passed"
