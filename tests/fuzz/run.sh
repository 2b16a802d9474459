#!/usr/bin/env bash
# Runs one libFuzzer target of the `fuzz` preset for a bounded time.
#
#   tests/fuzz/run.sh [--fresh] <target> <seconds> [libFuzzer options...]
#
# <target> is fuzz_yaml, fuzz_json, fuzz_render, ... (the names trainer_add_fuzz_target gave in
# tests/fuzz/CMakeLists.txt), or the path of its build/fuzz/tests/fuzz/<target>.fuzz file. Build
# first: `cmake --preset fuzz && cmake --build --preset fuzz`. The build folder is build/fuzz
# unless TRAINER_FUZZ_BUILD_DIR names another.
#
# The target fuzzes build/fuzz/tests/fuzz/work/<target>/corpus, into which the seed corpus
# (tests/fuzz/corpus/<target>) is copied first; inputs it finds are added there and kept between
# runs (--fresh starts again from the seeds alone, as the CTest test does). The source corpus is
# never written. Limits: -max_total_time=<seconds> -timeout=10 (seconds per input)
# -rss_limit_mb=2048. A crash, leak, timeout or out-of-memory stops the run with a non-zero
# status and leaves the input in build/fuzz/tests/fuzz/work/<target>/artifacts/ (reproduce with
# `build/fuzz/tests/fuzz/<target> <file>`).
set -euo pipefail

fresh=0
if [[ ${1:-} == --fresh ]]; then
  fresh=1
  shift
fi
if (($# < 2)); then
  sed -n '2,18s/^# \{0,1\}//p' "$0" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  echo "run.sh: <seconds> must be a positive integer, not \"$seconds\"" >&2
  exit 2
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
if [[ -f $target ]]; then
  config=$target
else
  build=${TRAINER_FUZZ_BUILD_DIR:-$root/build/fuzz}
  config=$build/tests/fuzz/$target.fuzz
  if [[ ! -f $config ]]; then
    echo "run.sh: $config not found: no fuzz target \"$target\" in $build" >&2
    echo "  (build it: cmake --preset fuzz && cmake --build --preset fuzz)" >&2
    exit 2
  fi
fi

binary='' corpus='' dict='' work=''
while IFS='=' read -r key value; do
  case $key in
    binary) binary=$value ;;
    corpus) corpus=$value ;;
    dict) dict=$value ;;
    work) work=$value ;;
  esac
done <"$config"
if [[ ! -x $binary ]]; then
  echo "run.sh: $binary is not built (cmake --build --preset fuzz)" >&2
  exit 2
fi

if ((fresh)); then rm -rf "$work/corpus"; fi
mkdir -p "$work/corpus" "$work/artifacts"
cp -R "$corpus/." "$work/corpus/"
chmod -R u+w "$work/corpus"

args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
  -artifact_prefix="$work/artifacts/")
if [[ -n $dict ]]; then args+=(-dict="$dict"); fi

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
echo "run.sh: $binary ${args[*]} $* $work/corpus"
status=0
"$binary" "${args[@]}" "$@" "$work/corpus" || status=$?
if ((status != 0)); then
  echo "run.sh: $(basename "$binary") failed (status $status); reproducers in $work/artifacts/:" >&2
  ls -l "$work/artifacts/" >&2 || true
fi
exit "$status"
