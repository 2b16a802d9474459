#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package a user meets. Installs the build tree into a prefix, moves the prefix elsewhere
# (relocatability), then, with no LD_LIBRARY_PATH anywhere:
#   1. checks that no installed ELF file searches the current directory for libraries
#      (check_runpath.sh); runs the installed programs: `trainerctl version`, and a tiny
#      `trainerctl run` whose pod helper (trainer-pod) must be found in the moved prefix, not in
#      the build tree;
#   2. lays the programs out as the vcpkg port does (trainerctl and trainer-pod in
#      tools/libtrainer) and runs the tiny job from there; without the helper, the run is
#      refused and the build tree's helper is not used;
#   3. builds and runs CMake consumers: a C project (project(x C)) with every C++ dependency of
#      libtrainer disabled, whose program also runs a pod through the C ABI from outside the
#      prefix (trainer-pod found relative to libtrainer.so); a C++ project (project(x CXX))
#      using trainer.hpp alone, the C++ core and the collectives;
#   4. builds pkg-config consumers: `libtrainer` (C, with nothing but the prefix on the include
#      path) and `libtrainer-hpp` (trainer.hpp).
#   5. builds the example framework plugins (examples/plugins, docs/plugins.md) as their own
#      projects: the C Paddle plugin (a module that must not link libtrainer), which the
#      installed `trainerctl render --plugin` loads, and the in-process C++ variant; both must
#      render exactly tests/golden/plugins/paddle-render.yaml.
# The prefix and the consumers live in a fresh folder outside the build tree (the build tree's
# programs may use its trainer-pod; an installed copy must not), removed when the test passes.
# Usage: run_package_test.sh <build-dir> <source-dir>
set -euo pipefail
build=$1 src=$2
here=$src/tests/package
unset LD_LIBRARY_PATH TRAINER_POD_HELPER
work=$(mktemp -d "${TMPDIR:-/tmp}/libtrainer-package.XXXXXX")
case $(cd "$work" && pwd -P)/ in
  "$(cd "$build" && pwd -P)"/*) echo "FAIL: $work lies inside the build tree" >&2; exit 1 ;;
esac
fail() { echo "FAIL: $* (files kept in $work)" >&2; exit 1; }
trap 'echo "FAIL: line $LINENO (files kept in $work)" >&2' ERR
cmake --install "$build" --prefix "$work/staging" >/dev/null
mv "$work/staging" "$work/prefix"
prefix=$work/prefix

# --- 1. the installed programs ------------------------------------------------------------------
cat >"$work/tiny.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: tiny, namespace: default}
spec:
  mlPolicy: {numNodes: 1}
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 1
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              backoffLimit: 0
              template:
                spec:
                  containers:
                    - name: node
                      image: unused
                      command: [/bin/sh, -c, "echo tiny-job-ran"]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tiny, namespace: default}
spec:
  runtimeRef: {name: tiny, apiGroup: trainer.kubeflow.org, kind: TrainingRuntime}
YAML

# run_tiny TRAINERCTL RUN_DIR: the tiny job must complete and print its line.
run_tiny() {
  local out=$2.out rc=0
  timeout 60 "$1" run -f "$work/tiny.yaml" --run-dir "$2" --isolation host >"$out" 2>&1 || rc=$?
  cat "$out"
  [[ $rc -eq 0 ]] || fail "$1 run exited $rc"
  grep -qF "[node-0-0] tiny-job-ran" "$out" || fail "$1 run: the pod's line is missing"
}

for program in "$prefix/bin/trainerctl" "$prefix/libexec/libtrainer/trainer-pod"; do
  # A statically linked trainer-pod (TRAINER_POD_HELPER_STATIC, lib/local/CMakeLists.txt) loads
  # no shared library: it has no search path to check.
  readelf -d "$program" | grep -qF '(NEEDED)' || continue
  runpath=$(readelf -d "$program" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  # shellcheck disable=SC2016  # a literal $ORIGIN
  [[ $runpath == '$ORIGIN/'* ]] || fail "$program: RUNPATH '$runpath' is not relative to \$ORIGIN"
done
"$here"/check_runpath.sh "$prefix" || fail "an installed file searches the current directory"
"$prefix/bin/trainerctl" version || fail "the installed trainerctl does not start"
run_tiny "$prefix/bin/trainerctl" "$work/run-installed"

# --- 2. the vcpkg port's layout -------------------------------------------------------------------
# ports/libtrainer installs both programs into tools/libtrainer (TRAINER_INSTALL_TOOLSDIR and
# TRAINER_INSTALL_HELPERDIR); its RUNPATH is then $ORIGIN/../../lib (computed by the same rule
# as bin's, checked above), so this copy of the default build's trainerctl gets the library
# through a symbolic link tools/lib -> ../lib.
port=$work/port
cp -a "$prefix" "$port"
mkdir -p "$port/tools/libtrainer"
mv "$port/bin/trainerctl" "$port/libexec/libtrainer/trainer-pod" "$port/tools/libtrainer/"
rm -rf "${port:?}/bin" "${port:?}/libexec"
ln -s ../lib "$port/tools/lib"
run_tiny "$port/tools/libtrainer/trainerctl" "$work/run-port"

# Without its helper an installed trainerctl refuses to run, and never falls back to the build
# tree's trainer-pod (an installed copy must not run programs from the folder it was built in).
nohelper=$work/nohelper
cp -a "$prefix" "$nohelper"
rm -rf "${nohelper:?}/libexec"
rc=0
timeout 60 "$nohelper/bin/trainerctl" run -f "$work/tiny.yaml" --run-dir "$work/run-nohelper" \
  --isolation host >"$work/nohelper.out" 2>&1 || rc=$?
cat "$work/nohelper.out"
[[ $rc -eq 1 ]] || fail "trainerctl without its helper exited $rc, expected 1"
grep -qF "the pod helper trainer-pod was not found" "$work/nohelper.out" ||
  fail "trainerctl without its helper: no 'not found' error"
if grep -qF "$(cd "$build" && pwd -P)" "$work/nohelper.out"; then
  fail "an installed trainerctl looked for trainer-pod in the build tree"
fi

# --- 3. CMake consumers -----------------------------------------------------------------------------
# The C project must not need the C++ dependencies: they are made unfindable.
no_cxx_deps=()
for pkg in Boost tl-expected yaml-cpp OpenSSL MPI Threads CUDAToolkit NCCL; do
  no_cxx_deps+=("-DCMAKE_DISABLE_FIND_PACKAGE_$pkg=ON")
done
for components in "" "trainer"; do
  dir=$work/consumer-c${components:+-$components}
  cmake -S "$here/consumer-c" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" "${no_cxx_deps[@]}" \
    -DLIBTRAINER_COMPONENTS="$components" >"$dir.log" 2>&1 || { cat "$dir.log"; fail "C consumer"; }
  cmake --build "$dir" >"$dir.log" 2>&1 || { cat "$dir.log"; fail "C consumer build"; }
done
"$work/consumer-c/consumer_c"
"$work/consumer-c/consumer_run" "$work/run-capi"

cmake -S "$here/consumer-cxx" -B "$work/consumer-cxx" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/consumer-cxx.log" 2>&1 || { cat "$work/consumer-cxx.log"; fail "C++ consumer"; }
cmake --build "$work/consumer-cxx" >"$work/consumer-cxx.log" 2>&1 ||
  { cat "$work/consumer-cxx.log"; fail "C++ consumer build"; }
for program in consumer_hpp consumer_cpp consumer_collectives; do
  "$work/consumer-cxx/$program"
done

# --- 4. pkg-config consumers --------------------------------------------------------------------
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ -e $PKG_CONFIG_PATH/libtrainer.pc ]] || fail "no libtrainer.pc in $PKG_CONFIG_PATH"
libdir=$(pkg-config --variable=libdir libtrainer)
[[ $(cd "$libdir" && pwd -P) == $(cd "$prefix/lib" && pwd -P) ]] ||
  fail "libtrainer.pc libdir $libdir is not the moved prefix's"
# shellcheck disable=SC2046  # pkg-config output is a list of flags
cc -std=c11 -pedantic-errors -Wall -Wextra -Werror "$here/consumer-c/consumer.c" \
  $(pkg-config --cflags --libs libtrainer) -o "$work/consumer_pc"
"$work/consumer_pc"
# shellcheck disable=SC2046
c++ -std=c++17 -Wall -Wextra -Werror "$here/consumer-cxx/consumer_hpp.cpp" \
  $(pkg-config --cflags --libs libtrainer-hpp) -o "$work/consumer_hpp_pc"
"$work/consumer_hpp_pc"

# --- 5. the example plugins ---------------------------------------------------------------------
paddle=$src/examples/plugins/paddle
golden=$src/tests/golden/plugins/paddle-render.yaml
paddle_uid=7d3c1b2a-5e6f-4a8b-9c0d-1e2f3a4b5c6d
cmake -S "$paddle" -B "$work/paddle" -DCMAKE_PREFIX_PATH="$prefix" "${no_cxx_deps[@]}" \
  >"$work/paddle.log" 2>&1 || { cat "$work/paddle.log"; fail "Paddle plugin"; }
cmake --build "$work/paddle" >"$work/paddle.log" 2>&1 ||
  { cat "$work/paddle.log"; fail "Paddle plugin build"; }
if readelf -d "$work/paddle/libpaddle_plugin.so" | grep -q 'NEEDED.*libtrainer'; then
  fail "the Paddle plugin links libtrainer; it must use the host table only"
fi
"$prefix/bin/trainerctl" render --plugin "$work/paddle/libpaddle_plugin.so" \
  -f "$paddle/runtime.yaml" -f "$paddle/trainjob.yaml" --uid "$paddle_uid" >"$work/paddle.yaml"
diff -u "$golden" "$work/paddle.yaml" || fail "installed trainerctl --plugin: not the golden render"
cmake -S "$src/examples/plugins/paddle_cpp" -B "$work/paddle_cpp" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/paddle_cpp.log" 2>&1 || { cat "$work/paddle_cpp.log"; fail "paddle_cpp"; }
cmake --build "$work/paddle_cpp" >"$work/paddle_cpp.log" 2>&1 ||
  { cat "$work/paddle_cpp.log"; fail "paddle_cpp build"; }
"$work/paddle_cpp/paddle_render" "$paddle/runtime.yaml" "$paddle/trainjob.yaml" \
  --uid "$paddle_uid" >"$work/paddle_cpp.yaml"
diff -u "$golden" "$work/paddle_cpp.yaml" || fail "paddle_render: not the golden render"

rm -rf "${work:?}"
echo "package test: OK"
