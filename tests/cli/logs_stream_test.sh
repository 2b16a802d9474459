#!/usr/bin/env bash
# Pod output streams as it comes, in bounded memory (docs/local.md, "Logs"): a progress bar that
# redraws with `\r` and prints no newline shows before the pod ends, and a 64 MiB line without a
# newline goes through in pieces while trainerctl's peak RSS stays small.
# Usage: logs_stream_test.sh <trainerctl> <source-dir> local <trainer-pod>
#        logs_stream_test.sh <trainerctl> <source-dir> cluster <log_stream_server>
# local: `trainerctl run` and `trainerctl logs -f RUN_DIR`; cluster: `trainerctl logs -f NAME`
# against log_stream_server (the test API server has no kubelet to serve pod logs).
set -uo pipefail
ctl=$1 src=$2 mode=$3 tool=$4
. "$src/tests/cli/memory_bounds.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# wait_for <seconds> <command...>: true once the command succeeds, false when the time is up.
wait_for() {
  local until=$((SECONDS + $1))
  shift
  while ! "$@"; do
    ((SECONDS < until)) || return 1
    sleep 0.1
  done
}
has_text() { grep -qaF -- "$2" "$1" 2>/dev/null; }
size_at_least() { [[ -f $1 && $(stat -c %s "$1") -ge $2 ]]; }
# peak_kb <pid>: the process's peak resident memory (VmHWM) so far, in KiB.
peak_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# watch_peak <pid>: VmHWM as last read before the process ended (it only grows), in KiB.
watch_peak() {
  local last="" now
  while now=$(peak_kb "$1") && [[ -n $now ]]; do
    last=$now
    sleep 0.1
  done
  echo "$last"
}

big=$((64 * 1024 * 1024))
# What the progress bar prints, byte for byte.
for i in $(seq 0 49); do printf '\rstep %d' "$i"; done >"$tmp/progress.expected"
# 64 MiB: the endless line's bytes.
head -c "$big" /dev/zero | tr '\0' x >"$tmp/endless.expected"

case $mode in
local)
  pod_helper=$tool
  # The pod's program: the bar, a marker file once it is drawn, then 8 s before the pod ends.
  cat >"$tmp/progress.sh" <<SCRIPT
i=0
while [ \$i -lt 50 ]; do printf '\\rstep %d' \$i; i=\$((i + 1)); sleep 0.02; done
touch "$tmp/drawn"
sleep 8
SCRIPT
  cat >"$tmp/endless.sh" <<SCRIPT
cat "$tmp/endless.expected"
touch "$tmp/written"
sleep 5
SCRIPT
  job() { sed "s|command: .*|command: [\"sh\", \"$tmp/$1.sh\"]|" "$src/tests/cli/data/echo-job.yaml" >"$tmp/$1.yaml"; }
  job progress
  job endless

  # trainerctl run shows the redraws while the pod still runs, and so does logs -f on its folder.
  "$ctl" run -f "$tmp/progress.yaml" --isolation=host --run-dir="$tmp/progress" \
    --pod-helper="$pod_helper" >"$tmp/run.out" 2>"$tmp/run.err" &
  run_pid=$!
  pids+=("$run_pid")
  wait_for 30 test -f "$tmp/progress/state.json" || fail "progress: no run folder after 30 s"
  timeout 60 "$ctl" logs -f "$tmp/progress" >"$tmp/follow.out" 2>"$tmp/follow.err" &
  follow_pid=$!
  pids+=("$follow_pid")
  if wait_for 30 test -f "$tmp/drawn"; then
    # The pod sleeps 8 s from here: what shows within 4 s showed before it ended.
    wait_for 4 has_text "$tmp/run.out" "[node-0-0] step 48"$'\r' ||
      fail "run: the redraws did not show while the pod ran: $(od -c "$tmp/run.out" | tail -3)"
    wait_for 4 has_text "$tmp/follow.out" "[node-0-0] step 48"$'\r' ||
      fail "logs -f: the redraws did not show while the pod ran: $(od -c "$tmp/follow.out" | tail -3)"
  else
    fail "progress: the pod did not draw its bar within 30 s"
  fi
  wait "$run_pid" || fail "run: exit $?: $(cat "$tmp/run.err")"
  # logs -f ends by itself once the run has finished, with all of run.log.
  wait "$follow_pid" || fail "logs -f: exit $? (124: it did not end with the run): $(cat "$tmp/follow.err")"
  cmp -s "$tmp/follow.out" "$tmp/progress/run.log" || fail "logs -f: differs from run.log"
  cmp -s "$tmp/run.out" "$tmp/progress/run.log" || fail "run: its output differs from run.log"
  want=$(for i in $(seq 0 48); do printf '[node-0-0] step %d\r' "$i"; done; printf '[node-0-0] step 49\n')
  [[ $(cat "$tmp/progress/run.log") == "$want" ]] || fail "run.log: $(od -c "$tmp/progress/run.log" | head -5)"
  pod_log=$("$ctl" logs "$tmp/progress" node-0-0 2>&1) || fail "logs POD: $pod_log"
  cmp -s "$tmp/progress.expected" <("$ctl" logs "$tmp/progress" node-0-0) ||
    fail "the pod's log file is not the bytes it wrote"

  # 64 MiB without a newline: stdout, run.log and the pod's log get all of it, trainerctl's peak
  # RSS stays far below the line's size.
  "$ctl" run -f "$tmp/endless.yaml" --isolation=host --run-dir="$tmp/endless" \
    --pod-helper="$pod_helper" >"$tmp/endless.out" 2>"$tmp/endless.err" &
  run_pid=$!
  pids+=("$run_pid")
  peak=$(watch_peak "$run_pid")
  wait "$run_pid" || fail "endless run: exit $?: $(cat "$tmp/endless.err")"
  echo "trainerctl run: peak RSS ${peak:-?} KiB for a ${big}-byte line"
  rss_within "$ctl" "$peak" 49152 || fail "endless: trainerctl run peaked at ${peak:-?} KiB (limit 48 MiB)"
  [[ $(stat -c %s "$tmp/endless/run.log") -eq $((11 + big + 1)) ]] ||
    fail "endless: run.log has $(stat -c %s "$tmp/endless/run.log") bytes, want $((11 + big + 1))"
  cmp -s "$tmp/endless.out" "$tmp/endless/run.log" || fail "endless: stdout differs from run.log"
  cmp -s "$tmp/endless.expected" <("$ctl" logs "$tmp/endless" node-0-0) ||
    fail "endless: the pod's log file is not the bytes it wrote"
  ;;
cluster)
  server=$tool
  # start_server <scenario>: the server in the background with its stdin held open.
  start_server() {
    rm -f "$tmp/kubeconfig" "$tmp/ready"
    mkfifo "$tmp/server.in.$1"
    "$server" "$1" "$tmp/kubeconfig" <"$tmp/server.in.$1" >"$tmp/ready" 2>"$tmp/server.err" &
    pids+=($!)
    exec 7>"$tmp/server.in.$1"
    wait_for 30 has_text "$tmp/ready" ready || fail "$1: the log server did not start: $(cat "$tmp/server.err")"
  }
  stop_server() { exec 7>&-; }

  start_server progress
  "$ctl" logs mnist -f --prefix --kubeconfig "$tmp/kubeconfig" >"$tmp/logs.out" 2>"$tmp/logs.err" &
  logs_pid=$!
  pids+=("$logs_pid")
  # The stream stays open after the bar: what shows, shows while the pod "runs".
  wait_for 20 has_text "$tmp/logs.out" "[pod/mnist-node-0-0/node] step 48"$'\r' ||
    fail "logs -f: the redraws did not show: $(cat "$tmp/logs.err") $(od -c "$tmp/logs.out" | tail -3)"
  kill "$logs_pid" 2>/dev/null
  stop_server

  start_server endless
  "$ctl" logs mnist -f --kubeconfig "$tmp/kubeconfig" >"$tmp/endless.out" 2>"$tmp/endless.err" &
  logs_pid=$!
  pids+=("$logs_pid")
  peak=0
  # 64 MiB arrive and the stream stays open: all but the last piece (held until more of the line
  # or its end arrives, at most 64 KiB) is out while trainerctl still reads.
  if wait_for 60 size_at_least "$tmp/endless.out" $((big - 65536)); then
    peak=$(peak_kb "$logs_pid")
  else
    fail "logs -f: $(stat -c %s "$tmp/endless.out") of $big bytes of an endless line came out: $(cat "$tmp/endless.err")"
  fi
  kill "$logs_pid" 2>/dev/null
  stop_server
  echo "trainerctl logs -f: peak RSS ${peak:-?} KiB for a ${big}-byte line"
  rss_within "$ctl" "$peak" 49152 || fail "logs -f: trainerctl peaked at ${peak:-?} KiB (limit 48 MiB)"
  cmp -s -n "$(stat -c %s "$tmp/endless.out")" "$tmp/endless.out" "$tmp/endless.expected" ||
    fail "logs -f: the endless line's bytes differ"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac

if ((failures)); then echo "logs_stream_test $mode: $failures failure(s)"; exit 1; fi
echo "logs_stream_test $mode: all passed"
