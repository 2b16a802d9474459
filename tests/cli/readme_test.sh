#!/usr/bin/env bash
# Every command the README and the docs show must work as written:
# 1. every ```sh block of README.md, docs/*.md and examples/*/README.md is accounted for:
#    a. a block that only calls trainerctl (its lines are `trainerctl ...`, `export PATH=...` or
#       comments) runs, as written, from a stand-in of the repository root whose build/dev holds
#       what ./scripts/quickstart builds there and nothing else (its `targets=(...)`, each found
#       through the TARGET=FILE arguments), and exits 0 within a bound; so a block that needs a
#       file the quickstart does not build fails here;
#    b. a block that builds or runs the bindings or the packages, or runs a benchmark, is what a
#       CTest test runs (a benchmark's test runs it briefly; the
#       table in covered_by): that test must be registered in this build tree (a toolchain that
#       is absent, or a sanitized tree, leaves it out, and the block is reported skipped, visibly);
#    c. the README's own commands (quickstart, test-all) and builds of another configuration
#       (tsan, vcpkg) are reported skipped with the reason; any other block fails the test;
# 2. a plain ``` block whose first line is `$ trainerctl ...` (a transcript) shows exactly what
#    that command prints with this build;
# 3. the synopses of README.md's "## trainerctl" block are those of `trainerctl COMMAND --help`
#    (which the parser generates from its flag table), command for command.
# Snippets that work on a cluster (apply, get, describe, wait, delete) run against the shared
# test API server ($TRAINER_TEST_APISERVER_DIR, the CTest fixture kube_apiserver) with a
# kubeconfig whose context namespace is a fresh one; without that server they are skipped,
# visibly.
# Usage: readme_test.sh <trainerctl> <source-dir> <build-dir> [TARGET=FILE...]
set -uo pipefail
ctl=$1 src=$2 build=$3
shift 3
declare -A target_files=()
for pair in "$@"; do target_files[${pair%%=*}]=${pair#*=}; done
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# --- 1. Shell snippets. ---
# A stand-in for the repository root: every top-level entry of the source tree, and a build/dev
# with the files of the quickstart's targets at their places in this build tree.
root=$tmp/root
mkdir -p "$root/build/dev"
# As a checkout others may traverse (README): the main job's pods run as uid 1000.
chmod 0755 "$tmp" "$root" "$root/build" "$root/build/dev"
for entry in "$src"/* "$src"/.[!.]*; do
  [[ -e $entry && $(basename "$entry") != build* ]] && ln -s "$entry" "$root/$(basename "$entry")"
done
quickstart_targets=$(sed -n 's/^targets=(\(.*\))$/\1/p' "$src/scripts/quickstart")
[[ -n $quickstart_targets ]] || fail "scripts/quickstart: no targets=(...) line"
for target in $quickstart_targets; do
  file=${target_files[$target]:-}
  if [[ -z $file ]]; then
    # ddp_logreg exists only with MPI; the blocks that need it are skipped below.
    echo "NOTE scripts/quickstart target $target is not part of this build"
    continue
  fi
  rel=${file#"$build"/}
  [[ $rel != "$file" ]] || { fail "$target: $file is not under $build"; continue; }
  mkdir -p "$root/build/dev/$(dirname "$rel")"
  ln -s "$file" "$root/build/dev/$rel"
done

# covered_by BLOCK: the CTest test that runs what BLOCK shows (1.b), or `skip: <why>` (1.c), or
# nothing.
covered_by() {
  local text
  text=$(grep -vE '^[[:space:]]*(#|$)' "$1")
  case $text in
    *"./scripts/quickstart"* | *"./scripts/test-all"*)
      echo "skip: the README's own commands (.ci/run runs ./scripts/test-all on a fresh clone)" ;;
    *"go test ./..."* | *"go build -buildmode=c-shared"*) echo bindings.go ;;
    *"go run ."*) echo bindings.go.consumer ;;
    *"cargo test"*) echo bindings.rust ;;
    *"cargo run"*) echo bindings.rust.consumer ;;
    *"cmake --install"* | *"pkg-config --cflags --libs"*) echo package.install_and_consume ;;
    *"conan "*) echo package.conan_create ;;
    *"vcpkg install"*)
      echo "skip: vcpkg is not installed here; packaging.versions checks the port's version and package.install_and_consume its layout" ;;
    *"cmake --preset tsan"*) echo "skip: a ThreadSanitizer build folder of its own (build/tsan)" ;;
    *"build/dev/bench/render/bench_render"*) echo bench.render ;;
    *"build/dev/bench/local/bench_local"*) echo bench.local ;;
    *"build/dev/bench/startup/bench_startup"*) echo bench.startup ;;
  esac
}
registered_tests=$(ctest --test-dir "$build" -N 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: //p')

# blocks FILE: writes each ```sh block of FILE to $tmp/blocks/N.sh.
blocks() {
  rm -rf "$tmp/blocks" && mkdir -p "$tmp/blocks"
  awk -v dir="$tmp/blocks" '
    /^```sh[[:space:]]*$/ { inside = 1; text = ""; line = NR; next }
    inside && /^```/ {
      inside = 0
      n++; f = sprintf("%s/%03d-line%d.sh", dir, n, line); printf "%s", text > f; close(f)
      next
    }
    inside { text = text $0 "\n" }
  ' "$1"
}

# The kubeconfig cluster snippets use: the shared test server's, in a namespace of their own.
cluster_kubeconfig=""
apiserver=${TRAINER_TEST_APISERVER_DIR:-}
if [[ -n ${TRAINER_KUBE_TEST_ENV:-} && -n $apiserver && -f $apiserver/kubeconfig ]]; then
  ns=readme-$$-$RANDOM
  if curl -sf --max-time 30 --cacert "$apiserver/ca.crt" -H "Authorization: Bearer $(cat "$apiserver/token")" \
    -H 'Content-Type: application/json' -X POST "$(cat "$apiserver/url")/api/v1/namespaces" \
    -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" >/dev/null; then
    sed "s/^    namespace: default$/    namespace: $ns/" "$apiserver/kubeconfig" >"$tmp/kubeconfig"
    cluster_kubeconfig=$tmp/kubeconfig
  else
    fail "cannot create namespace $ns on the test API server"
  fi
fi

snippets=0
for doc in "$src"/README.md "$src"/docs/*.md "$src"/examples/*/README.md; do
  [[ -f $doc ]] || continue
  blocks "$doc"
  for block in "$tmp"/blocks/*.sh; do
    [[ -f $block ]] || continue
    name="${doc#"$src"/}:$(basename "$block" .sh | sed 's/^[0-9]*-//')"
    if grep -vqE '^[[:space:]]*(#|$|trainerctl |export PATH=)' "$block"; then
      covered=$(covered_by "$block")
      case $covered in
        "") fail "$name: a block that neither only calls trainerctl nor is run by a CTest test (covered_by in $0)"
            sed 's/^/  | /' "$block" ;;
        skip:*) echo "SKIP $name: ${covered#skip: }" ;;
        *) if grep -qxF "$covered" <<<"$registered_tests"; then
             echo "COVERED $name: CTest $covered runs it"
           else
             echo "SKIP $name: CTest $covered, which runs it, is not registered in this build (toolchain absent, or a sanitized tree)"
           fi ;;
      esac
      continue
    fi
    # The main job needs the data-parallel example, which is built only with MPI.
    if grep -q "examples/ddp" "$block"; then
      if [[ ! -x $build/examples/ddp/ddp_logreg ]]; then
        echo "SKIP $name: examples/ddp was not built (no MPI)"
        continue
      fi
      # As local.mpi: mpirun reaches the node pod by its hostname, which needs the pod
      # namespaces (root); under ASan the ranks run in pods without ASAN_OPTIONS, where
      # LeakSanitizer cannot work (local.mpi runs the same job with the options it needs).
      if [[ $(id -u) -ne 0 || -n ${ASAN_OPTIONS:-} ]]; then
        echo "SKIP $name: the main job needs root and an uninstrumented build (local.mpi)"
        continue
      fi
    fi
    kubeconfig=/nonexistent
    if grep -qE '^[[:space:]]*trainerctl (apply|get|describe|wait|delete) ' "$block"; then
      if [[ -z $cluster_kubeconfig ]]; then
        echo "SKIP $name: needs the test API server (TRAINER_KUBE_TEST_ENV, ctest fixture kube_apiserver)"
        continue
      fi
      kubeconfig=$cluster_kubeconfig
    fi
    snippets=$((snippets + 1))
    (cd "$root" && KUBECONFIG=$kubeconfig timeout -k 5 180 bash -euo pipefail "$block") >"$tmp/out" 2>&1 </dev/null
    rc=$?
    if [[ $rc -ne 0 ]]; then
      fail "$name: exit $rc"
      sed 's/^/  | /' "$block"
      tail -20 "$tmp/out" | sed 's/^/  > /'
    fi
  done
done
# Transcripts: a plain ``` block whose first line is `$ trainerctl ...` shows that command's
# output (stderr and stdout, whatever its exit status); it must be the output of this build.
transcripts=0
for doc in "$src"/README.md "$src"/docs/*.md "$src"/examples/*/README.md; do
  [[ -f $doc ]] || continue
  rm -rf "$tmp/tx" && mkdir -p "$tmp/tx"
  awk -v dir="$tmp/tx" '
    /^```/ && inside { inside = 0; next }
    /^```/ { inside = 1; plain = ($0 ~ /^```[[:space:]]*$/); first = 1; n++; line = NR; f = ""; next }
    inside && first && plain { first = 0; if ($0 ~ /^\$ trainerctl /) { f = sprintf("%s/%03d-line%d", dir, n, line); print substr($0, 3) > (f ".cmd") } else f = ""; next }
    inside && f != "" { print > (f ".want") }
  ' "$doc"
  for cmd in "$tmp"/tx/*.cmd; do
    [[ -f $cmd ]] || continue
    name="${doc#"$src"/}:$(basename "$cmd" .cmd | sed 's/^[0-9]*-//')"
    transcripts=$((transcripts + 1))
    (cd "$root" && export PATH=$root/build/dev/bin:$PATH &&
      timeout -k 5 60 bash -c "$(cat "$cmd")") >"$tmp/got" 2>&1 </dev/null
    if ! diff -u "${cmd%.cmd}.want" "$tmp/got" >"$tmp/diff"; then
      fail "$name: the transcript of \`$(cat "$cmd")\` differs from its output"
      sed 's/^/  /' "$tmp/diff"
    fi
  done
done

# The README's main job is among them (when it could run).
if ! grep -q "trainerctl run -f examples/ddp/trainjob.yaml" "$src/README.md"; then
  fail "README.md: the main-job command is gone"
fi
((snippets > 0)) || fail "no trainerctl snippet found"

# --- 3. README synopses against --help. ---
readme_synopses() {
  awk '
    /^## trainerctl/ { section = 1; next }
    section && /^```/ { if (inside) exit; inside = 1; next }
    inside && /^trainerctl / { if (cmd != "") print cmd; cmd = $0; next }
    inside && /^[[:space:]]+/ { cmd = cmd " " $0; next }
    END { if (cmd != "") print cmd }
  ' "$src/README.md" | tr -s ' \t' ' '
}
help_synopsis() {
  "$ctl" "$1" --help | awk 'NR == 1 { sub(/^usage: /, "") } /^$/ { exit } { print }' | tr '\n' ' ' |
    tr -s ' \t' ' ' | sed 's/ $//'
}
readme_synopses >"$tmp/readme"
mapfile -t commands < <("$ctl" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
((${#commands[@]} >= 8)) || fail "trainerctl --help lists ${#commands[@]} commands"
for cmd in "${commands[@]}"; do
  want=$(help_synopsis "$cmd")
  got=$(grep -E "^trainerctl $cmd( |$)" "$tmp/readme" | sed 's/ $//')
  [[ $got == "$want" ]] || fail "README synopsis of $cmd: [$got], --help says [$want]"
done
[[ $(wc -l <"$tmp/readme") -eq ${#commands[@]} ]] || fail "README lists $(wc -l <"$tmp/readme") commands, trainerctl ${#commands[@]}"

if ((failures)); then echo "readme_test: $failures failure(s)"; exit 1; fi
echo "readme_test: all passed ($snippets snippets, $transcripts transcripts)"
