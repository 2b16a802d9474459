#!/usr/bin/env bash
# `trainerctl run` of an OptimizationJob (examples/tuning, synthetic objective) on this machine:
# random (seeded) and grid searches complete with parallelTrials 2, results.json holds every
# trial and status.result is the best one by the direction, `trainerctl status` prints it, and
# median stopping ends a trial with a rising loss early.
# Usage: tuning_test.sh <trainerctl> <source-dir> <trainer-pod>
set -uo pipefail
ctl=$1 src=$2 pod_helper=$3
ex=$src/examples/tuning
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# tune <name> <job.yaml>: runs the job into $tmp/<name> (bounded), keeps stdout/stderr.
tune() {
  local name=$1 job=$2
  timeout 40 "$ctl" run -f "$job" -f "$ex/synthetic-runtime.yaml" --isolation=host \
    --run-dir="$tmp/$name" --pod-helper="$pod_helper" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    fail "$name: exit $rc"; cat "$tmp/$name.out" "$tmp/$name.err"
    return 1
  fi
}

# check_results <name> <numTrials>: results.json has every trial Succeeded, and status.result
# names the trial with the least objective (Minimize), with that trial's parameters.
check_results() {
  local name=$1 want=$2 file=$tmp/$1/results.json
  python3 - "$file" "$want" <<'EOF' || fail "$name: results.json"
import json, sys
doc = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
trials = doc["trials"]
assert len(trials) == want, f"{len(trials)} trials, want {want}"
assert doc["finished"] is True
for t in trials:
    assert t["state"] == "Succeeded", t
    assert isinstance(t["objective"], float), t
    assert t["metrics"][-1]["name"] == "loss", t
best = min(trials, key=lambda t: t["objective"])
status = doc["status"]
assert status["result"]["trainJobName"] == best["name"], (status, best)
assert status["result"]["parameters"] == best["parameters"], (status, best)
types = {c["type"]: c["status"] for c in status["conditions"]}
assert types.get("Complete") == "True", status
# the trial's own run folder is an ordinary local run
import os
assert all(os.path.isfile(os.path.join(t["runDir"], "state.json")) for t in trials)
print(best["name"])
EOF
}

# Random, seeded: 6 trials, 2 at a time; the same seed gives the same parameters.
if tune random "$ex/synthetic-random.yaml"; then
  best=$(check_results random 6)
  grep -qF "best trial: $best " "$tmp/random.out" || fail "random: stdout lacks best trial $best"
  grep -qF "trial synthetic-random-trial-5 Succeeded" "$tmp/random.err" ||
    fail "random: no progress line on stderr"
  "$ctl" status "$tmp/random" >"$tmp/status.out" 2>&1 || fail "random: status exit $?"
  grep -qF "best trial: $best " "$tmp/status.out" || fail "random: status lacks $best"
  grep -qF "OptimizationJob default/synthetic-random (Minimize loss)" "$tmp/status.out" ||
    fail "random: status header"
  [[ $(grep -c "^synthetic-random-trial-" "$tmp/status.out") -eq 6 ]] || fail "random: status rows"
  "$ctl" status "$tmp/random" -o json | python3 -c 'import json,sys; json.load(sys.stdin)["trials"]' ||
    fail "random: status -o json"
  # An ordinary run folder of one trial still reads as a TrainJob run.
  "$ctl" status "$tmp/random/synthetic-random-trial-0" >"$tmp/trial.out" 2>&1 &&
    grep -qF "TrainJob default/synthetic-random-trial-0" "$tmp/trial.out" || fail "trial status"
  if tune random-again "$ex/synthetic-random.yaml"; then
    python3 - "$tmp/random/results.json" "$tmp/random-again/results.json" <<'EOF' || fail "random: not reproducible"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert [t["parameters"] for t in a["trials"]] == [t["parameters"] for t in b["trials"]]
EOF
  fi
fi

# Grid: the 3 x 2 combinations, the best one known (x=0.25 z=2).
if tune grid "$ex/synthetic-grid.yaml"; then
  best=$(check_results grid 6)
  grep -qF "best trial: $best x=0.25 z=2" "$tmp/grid.out" || fail "grid: best $best"
fi

# A grid smaller than numTrials: the run ends Complete when the grid is exhausted.
sed 's/numTrials: 6/numTrials: 8/' "$ex/synthetic-grid.yaml" >"$tmp/grid8.yaml"
if tune grid8 "$tmp/grid8.yaml"; then
  best=$(check_results grid8 6)
  [[ $best == synthetic-grid-trial-3 ]] || fail "grid8: best $best"
fi

# Median stopping: the fourth trial's rising loss stops it at the start step.
if tune medianstop "$ex/synthetic-medianstop.yaml"; then
  python3 - "$tmp/medianstop/results.json" <<'EOF' || fail "medianstop: results.json"
import json, sys
doc = json.load(open(sys.argv[1]))
states = [t["state"] for t in doc["trials"]]
assert states == ["Succeeded"] * 3 + ["EarlyStopped"], states
bad = doc["trials"][3]
assert len(bad["metrics"]) < 10, bad  # 40 reports when not stopped
assert "median stopping" in bad["message"], bad
assert doc["status"]["result"]["trainJobName"] == "synthetic-medianstop-trial-0", doc["status"]
EOF
fi

# SIGINT stops the run: the running trial is cancelled (Failed), none starts, results.json is
# written and the exit status is 1.
sed 's/n = t < 0 ? 5 : 40/n = 40/' "$ex/synthetic-medianstop.yaml" >"$tmp/long.yaml"
# The signal is sent once a trial runs (results.json says so), not after a fixed time, so a
# loaded machine does not change what is stopped; every wait is bounded.
# trainerctl is signalled itself, not through timeout(1), which would pass the signal on twice
# (to its child and to its process group): a second SIGINT means "exit without waiting".
"$ctl" run -f "$tmp/long.yaml" -f "$ex/synthetic-runtime.yaml" \
  --isolation=host --run-dir="$tmp/stopped" --pod-helper="$pod_helper" >"$tmp/stopped.out" 2>&1 &
run_pid=$!
for _ in $(seq 1 300); do
  grep -Eqs '"state": ?"Running"' "$tmp/stopped/results.json" && break
  sleep 0.1
done
kill -INT "$run_pid" 2>/dev/null
for _ in $(seq 1 300); do
  kill -0 "$run_pid" 2>/dev/null || break
  sleep 0.1
done
kill -KILL "$run_pid" 2>/dev/null
wait "$run_pid"
rc=$?
[[ $rc -eq 1 ]] || { fail "stopped: exit $rc"; cat "$tmp/stopped.out"; }
python3 - "$tmp/stopped/results.json" <<'EOF' || { fail "stopped: results.json"; cat "$tmp/stopped/results.json" "$tmp/stopped.out"; }
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["finished"] is True
assert [(t["state"], t["message"]) for t in doc["trials"]] == [("Failed", "cancelled")], doc["trials"]
assert {c["type"]: c["reason"] for c in doc["status"]["conditions"]}.get("Failed") == "AllTrialsFailed", doc["status"]
EOF

# The trial table fits the terminal: long names, 17-digit parameter values and a float metric
# at 80 columns (COLUMNS, stdout not a terminal), values shortened in the table only;
# results.json keeps every digit, and -o wide shows the values whole.
cat >"$tmp/wide.yaml" <<'EOF'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata:
  name: tuning-job-with-a-rather-long-name
spec:
  objectives: [{metric: validation-loss, direction: Minimize}]
  searchAlgorithm: {random: {seed: 3}}
  parameters:
    - name: learning-rate-of-the-optimizer
      searchSpace: {logUniform: {min: "0.00001", max: "0.1"}}
    - name: weight-decay-coefficient
      searchSpace: {uniform: {min: "0", max: "0.3"}}
    - name: optimizer-name
      searchSpace: {categorical: {choices: [adamw-with-decoupled-weight-decay, sgd-with-nesterov]}}
  numTrials: 3
  parallelTrials: 3
  trainJobTemplate:
    spec:
      runtimeRef: {name: synthetic, kind: TrainingRuntime}
      trainer:
        command: ["awk"]
        args:
          - -v
          - lr=$(KUBEFLOW_TRAINER_OPT_LEARNING_RATE_OF_THE_OPTIMIZER)
          - -v
          - wd=$(KUBEFLOW_TRAINER_OPT_WEIGHT_DECAY_COEFFICIENT)
          - 'BEGIN { printf "validation-loss=%.17g\n", (log(lr) / log(10) + 2.5) ^ 2 + wd / 3 }'
EOF
# table_lines <file>: the trial table's lines (its header up to the first condition line).
table_lines() { awk '/^TRIAL / { on = 1 } /^condition / { on = 0 } on' "$1"; }
# check_width <file> <columns> <what>: every table line at most <columns> characters, 4 lines.
check_width() {
  python3 - "$1" "$2" <<'EOF' || fail "$3: table wider than $2 columns"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
width = int(sys.argv[2])
assert len(lines) == 4, lines
for line in lines:
    assert len(line) <= width, (len(line), line)
EOF
}
if COLUMNS=80 tune wide "$tmp/wide.yaml"; then
  table_lines "$tmp/wide.out" >"$tmp/wide.table"
  check_width "$tmp/wide.table" 80 "run"
  COLUMNS=80 "$ctl" status "$tmp/wide" >"$tmp/wide-status.out" 2>&1 || fail "wide: status exit $?"
  table_lines "$tmp/wide-status.out" >"$tmp/wide-status.table"
  check_width "$tmp/wide-status.table" 80 "status"
  COLUMNS=80 "$ctl" status "$tmp/wide" -o wide >"$tmp/wide-wide.out" 2>&1 ||
    fail "wide: status -o wide exit $?"
  python3 - "$tmp/wide/results.json" "$tmp/wide.table" "$tmp/wide-wide.out" <<'EOF' || fail "wide: values"
import json, os, re, sys
doc = json.load(open(sys.argv[1]))
table = open(sys.argv[2]).read()
wide = open(sys.argv[3]).read()
floats = 0
for t in doc["trials"]:
    assert t["state"] == "Succeeded", t
    # results.json: the parameters as the trials got them, the objective as the trial printed it.
    log = open(os.path.join(t["runDir"], "run.log")).read()
    printed = re.search(r"validation-loss=(\S+)", log).group(1)
    assert t["objective"] == float(printed), (t["objective"], printed)
    assert len(printed.lstrip("-").replace(".", "").lstrip("0")) >= 15, printed
    for p in t["parameters"]:
        if p["name"] == "optimizer-name":
            continue
        if len(p["value"]) > 10:
            floats += 1
            assert p["value"] not in table, ("whole value in the fitted table", p)
            assert p["value"] in wide, ("value not whole in -o wide", p)
assert floats >= 3, doc["trials"]
assert any(len(line) > 80 for line in wide.splitlines()), "-o wide was fitted"
EOF
  # The live table on a terminal of 80 columns and 24 rows (stderr a pty): every line fits,
  # once the redraws' escape sequences are taken out.
  python3 - "$ctl" "$tmp/wide.yaml" "$ex/synthetic-runtime.yaml" "$tmp/wide-tty" "$pod_helper" <<'EOF' ||
import fcntl, os, pty, re, select, struct, subprocess, sys, termios, time
ctl, job, runtime, run_dir, helper = sys.argv[1:]
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
env = dict(os.environ)
env.pop("COLUMNS", None)
proc = subprocess.Popen([ctl, "run", "-f", job, "-f", runtime, "--isolation=host",
                         "--run-dir=" + run_dir, "--pod-helper=" + helper],
                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=env)
os.close(slave)
out = b""
deadline = time.monotonic() + 40
while time.monotonic() < deadline:
    if not select.select([master], [], [], 1)[0]:
        continue
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the pty's other side is closed
        break
    if not chunk:
        break
    out += chunk
if proc.poll() is None:
    proc.kill()
assert proc.wait(timeout=10) == 0, proc.returncode
text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "\n", out.decode("utf-8", "replace")).replace("\r", "")
# Warnings (host isolation) are printed above the table, not part of it.
lines = [l for l in text.split("\n") if l and not l.startswith("Warning: ")]
assert any(l.startswith("TRIAL ") for l in lines), text
for l in lines:
    assert len(l) <= 80, (len(l), l)
EOF
    fail "wide: live table on an 80-column terminal"
fi

# Bad input: an unknown early stopping algorithm names the annotation.
sed 's/early-stopping: medianstop/early-stopping: hyperband/' "$ex/synthetic-medianstop.yaml" >"$tmp/bad.yaml"
if "$ctl" run -f "$tmp/bad.yaml" -f "$ex/synthetic-runtime.yaml" --isolation=host \
  --run-dir="$tmp/bad" --pod-helper="$pod_helper" >"$tmp/bad.out" 2>&1; then
  fail "bad annotation accepted"
fi
grep -qF 'metadata.annotations[tuning.trainer.kubeflow.org/early-stopping]: Unsupported value: "hyperband"' "$tmp/bad.out" ||
  { fail "bad annotation message"; cat "$tmp/bad.out"; }

if [[ $failures -ne 0 ]]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "tuning: all passed"
