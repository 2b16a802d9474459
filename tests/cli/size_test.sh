#!/usr/bin/env bash
# One TrainJob must not exhaust memory (docs/yaml.md, "Size of a TrainJob"): trainerctl render,
# validate and run refuse more than kMaxPodsPerTrainJob pods with the field error, fast and
# under a 1 GiB address-space cap, and render a TrainJob of exactly the limit under that cap.
# Usage: size_test.sh <trainerctl> <source-dir>
set -uo pipefail
ctl=$1 src=$2
. "$src/tests/cli/memory_bounds.sh"
data=$src/tests/cli/data/size
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0

# capped <expected-exit> <name> -- args...: trainerctl under `ulimit -v` 1 GiB (none when
# instrumented: memory_bounds.sh) and 60 s.
capped() {
  local want=$1 name=$2
  shift 3
  local start=$SECONDS
  (ulimit -v "$(address_cap "$ctl" 1048576)" && exec timeout 60 "$ctl" "$@") >"$tmp/out" 2>"$tmp/err"
  local got=$?
  elapsed=$((SECONDS - start))
  err=$(cat "$tmp/err")
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, want $want (in ${elapsed} s)"; head -c 2000 "$tmp/err"; echo
    failures=$((failures + 1))
    return 1
  fi
  return 0
}
has() {
  if ! grep -qF -- "$3" <<<"$2"; then echo "FAIL $1: missing [$3] in:"; echo "$2"; failures=$((failures + 1)); fi
}
quick() {
  if [[ $elapsed -gt 5 ]]; then echo "FAIL $1: took ${elapsed} s"; failures=$((failures + 1)); fi
}

refusal='spec.trainer.numNodes: Invalid value: 2147483647: must be no more than 100000, the most pods a TrainJob may have'
for verb in render validate run; do
  capped 1 "huge-$verb" -- "$verb" -f "$data/runtime.yaml" -f "$data/huge.yaml" &&
    { has "huge-$verb" "$err" "$refusal"; quick "huge-$verb"; }
done

# Exactly the limit renders under the same cap: one JobSet whose node Job has 100000 pods.
sed 's/numNodes: 2147483647/numNodes: 100000/; s/name: huge/name: limit/' "$data/huge.yaml" >"$tmp/limit.yaml"
capped 0 limit-render -- render -f "$data/runtime.yaml" -f "$tmp/limit.yaml" && {
  has limit-parallelism "$(cat "$tmp/out")" "parallelism: 100000"
  quick limit-render
}
sed 's/numNodes: 2147483647/numNodes: 100001/; s/name: huge/name: over/' "$data/huge.yaml" >"$tmp/over.yaml"
capped 1 over-render -- render -f "$data/runtime.yaml" -f "$tmp/over.yaml" &&
  has over-render "$err" 'spec.trainer.numNodes: Invalid value: 100001: must be no more than 100000'

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
echo "size: ok"
