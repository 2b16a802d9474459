#!/usr/bin/env bash
# A local tuning run on a machine out of processes: trainerctl runs under a real RLIMIT_NPROC, so
# that its threads or its pods' fork are refused. The run must not abort (no `internal` error),
# must end soon, and must leave a results.json where every trial that could not start is Failed
# with reason StartFailed and the errno text, and the run is Failed/TrialsFailedToStart after
# kMaxConsecutiveStartFailures (3) such trials in a row; the exit status is 1.
# Usage: tuning_nproc_test.sh <trainerctl> <source-dir> <trainer-pod>
# Exit 77 (skipped) where no process limit can be set up (no user namespaces).
set -uo pipefail
ctl=$1 src=$2 pod_helper=$3
ex=$src/examples/tuning
# LeakSanitizer (an instrumented build) checks for leaks at exit from a thread of its own, which
# the limit refuses: its fatal error would replace trainerctl's exit status and unflushed output.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# "${limited[@]}" --nproc=N <command...>: the command with at most N processes and threads.
# RLIMIT_NPROC does not bind root (uid 0 of the initial user namespace), so root runs the command
# as nobody. Either way it runs in a user namespace of its own, where the kernel counts the
# user's processes from zero: other processes of the same user do not change the limit.
if [[ $(id -u) -eq 0 ]]; then
  limited=(setpriv --reuid=65534 --regid=65534 --clear-groups unshare -r prlimit)
else
  limited=(unshare -r prlimit)
fi
if ! "${limited[@]}" --nproc=64 true 2>"$tmp/probe.err"; then
  echo "skipped: no process limit here ($(cat "$tmp/probe.err"))"
  exit 77
fi
# The limited user must reach the binaries and write the run folders.
chmod 0755 "$tmp"
mkdir "$tmp/runs"
[[ $(id -u) -eq 0 ]] && chown 65534:65534 "$tmp/runs"

# 100 trials, 2 at a time, of the synthetic random job.
sed -e 's/numTrials: 6/numTrials: 100/' "$ex/synthetic-random.yaml" >"$tmp/job.yaml"
sed -e 's/parallelTrials: 2/parallelTrials: 1/' "$tmp/job.yaml" >"$tmp/job1.yaml"
chmod 0644 "$tmp"/*.yaml

# tune <name> <nproc> <job.yaml>: runs the job under the limit (bounded), keeps stdout/stderr;
# sets rc and took (seconds).
tune() {
  local name=$1 n=$2 job=$3 started=$SECONDS
  timeout 60 "${limited[@]}" --nproc="$n" "$ctl" run -f "$job" \
    -f "$ex/synthetic-runtime.yaml" --isolation=host --run-dir="$tmp/runs/$name" \
    --pod-helper="$pod_helper" >"$tmp/$name.out" 2>"$tmp/$name.err"
  rc=$?
  took=$((SECONDS - started))
}

# check <name> <text in every trial's message>: results.json as described above.
check() {
  local name=$1 want=$2
  [[ $rc -eq 1 ]] || fail "$name: exit $rc"
  [[ $took -lt 30 ]] || fail "$name: took ${took}s"
  if grep -qi "internal" "$tmp/$name.err"; then fail "$name: internal error"; fi
  python3 - "$tmp/runs/$name/results.json" "$want" <<'EOF' || {
import json, sys
doc = json.load(open(sys.argv[1]))
want = sys.argv[2]
assert doc["finished"] is True, doc["finished"]
trials = doc["trials"]
assert len(trials) == 3, [t["name"] for t in trials]
for t in trials:
    assert t["state"] == "Failed", t
    assert t["reason"] == "StartFailed", t
    assert want in t["message"], t
conditions = {c["type"]: c for c in doc["status"]["conditions"]}
failed = conditions.get("Failed")
assert failed and failed["status"] == "True", doc["status"]
assert failed["reason"] == "TrialsFailedToStart", failed
assert "3 trials in a row could not start" in failed["message"], failed
assert "stopped after 3 of 100 trials" in failed["message"], failed
assert "Complete" not in conditions, doc["status"]
assert conditions["Running"]["status"] == "False", doc["status"]
EOF
    fail "$name: results.json"
    cat "$tmp/$name.out" "$tmp/$name.err" "$tmp/runs/$name/results.json"
  }
  grep -q "^condition Failed=True reason=TrialsFailedToStart" "$tmp/$name.out" ||
    fail "$name: stdout lacks the Failed condition"
}

# One task: trainerctl's main thread only. No thread for the signals (a warning), none for any
# trial's executor.
tune threads 1 "$tmp/job.yaml"
check threads "Resource temporarily unavailable"
grep -q "no thread for SIGINT/SIGTERM" "$tmp/threads.err" || fail "threads: no signal warning"
# A trial's own run folder says why it did not run.
python3 - "$tmp/runs/threads/synthetic-random-trial-0/state.json" <<'EOF' || fail "threads: state.json"
import json, sys
doc = json.load(open(sys.argv[1]))
failed = [c for c in doc["conditions"] if c["type"] == "Failed"]
assert failed and failed[0]["reason"] == "StartFailed", doc["conditions"]
assert doc["finished"] is True
EOF

# Five tasks: the main thread, the signal thread, the pod launcher's owner thread, the launcher
# (trainer-pod launch) and one trial's executor; the launcher's fork of the pod is refused (the
# pod fails to start, retried up to backoffLimit, at once).
tune fork 5 "$tmp/job1.yaml"
check fork "fork: Resource temporarily unavailable"

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "tuning under a process limit: all passed"
