#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `conan create` of conan/ as docs/bindings.md shows it for offline use: the Debian 12 system
# packages stand in for every dependency ([platform_requires] profile), no remote is contacted,
# and test_package builds and runs a C consumer (libtrainer::trainer) and a C++ consumer of
# trainer.hpp (libtrainer::trainer_hpp). CONAN_HOME is private to the build folder, so the user's
# Conan configuration and cache are never read or written; the default profile it includes is
# detected there.
# Usage: run_conan_test.sh <conan> <source-dir> <work-dir>
set -euo pipefail
conan=$1 src=$2 work=$3
export CONAN_HOME=$work/conan-home
mkdir -p "$CONAN_HOME"
"$conan" profile detect --exist-ok >/dev/null 2>&1
# test_package builds under the work folder, and no CMakeUserPresets.json lands in the sources.
"$conan" create "$src/conan" -nr -pr:a "$src/conan/profiles/debian12" --build=missing \
  -c "tools.cmake.cmake_layout:test_folder=$work/test_package" \
  -c "tools.cmake.cmaketoolchain:user_presets=" \
  >"$work/conan-create.log" 2>&1 || { tail -n 80 "$work/conan-create.log"; exit 1; }
# The recipe revision follows the exported sources: unchanged sources reuse the package, and
# the packages of older revisions are dropped.
"$conan" remove 'libtrainer/*#!latest' --confirm >/dev/null 2>&1 || true
grep -E "^test_package_(c|cpp): |test_package-pod-ran" "$work/conan-create.log"
for program in test_package_c test_package_cpp; do
  grep -q "^$program: libtrainer " "$work/conan-create.log" || { echo "FAIL: $program did not run"; exit 1; }
done
# The packaged trainerctl ran a pod through the packaged trainer-pod.
grep -qF "[node-0-0] test_package-pod-ran" "$work/conan-create.log" ||
  { echo "FAIL: the packaged trainerctl did not run the tiny job"; exit 1; }
echo "conan test: OK"
