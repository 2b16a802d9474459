#!/usr/bin/env bash
# Installs the build tree into a prefix, moves the prefix elsewhere (relocatability), then builds
# and runs the consumer twice: through find_package(libtrainer) and through pkg-config.
# Usage: run_package_test.sh <build-dir> <source-dir> <work-dir>
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/staging" >/dev/null
mv "$work/staging" "$work/prefix"
prefix=$work/prefix

cmake -S "$src/tests/package/consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_RPATH="$prefix/lib" >/dev/null
cmake --build "$work/consumer-build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$work/consumer-build/consumer_c"
LD_LIBRARY_PATH="$prefix/lib" "$work/consumer-build/consumer_cpp"

pcdir=$(dirname "$(find "$prefix" -name libtrainer.pc -print -quit)")
export PKG_CONFIG_PATH=$pcdir
cc -std=c11 -pedantic-errors -Wall -Wextra -Werror "$src/tests/package/consumer/consumer.c" \
  $(pkg-config --cflags --libs libtrainer) -o "$work/consumer_pc"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir libtrainer)" "$work/consumer_pc"
echo "package test: OK ($prefix)"
