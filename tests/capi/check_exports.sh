#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Checks that a shared library exports exactly the functions declared with TRAINER_API in the
# public C headers: <include_dir>/trainer.h, <include_dir>/trainer/*.h and any extra headers.
# Fails on a missing symbol, an extra symbol, or an exported object that is not a function.
#
# usage: check_exports.sh <libtrainer.so> <include_dir> [extra_header...]
set -eu

if [ "$#" -lt 2 ]; then
  echo "usage: $0 <library> <include_dir> [extra_header...]" >&2
  exit 2
fi
lib=$1
inc=$2
shift 2
NM=${NM:-nm}

[ -f "$lib" ] || { echo "check_exports: no such library: $lib" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

headers="$inc/trainer.h"
for h in "$inc"/trainer/*.h "$@"; do
  [ -f "$h" ] && headers="$headers $h"
done

# Declared: the identifier before the first '(' after each TRAINER_API, comments and
# preprocessor lines removed, declarations joined across lines.
# shellcheck disable=SC2086
cat $headers |
  sed -e 's:/\*.*\*/::g' |
  awk '
    /\/\*/ { incomment = 1; sub(/\/\*.*/, "") ; print; next }
    incomment && /\*\// { incomment = 0; sub(/.*\*\//, ""); print; next }
    incomment { next }
    /^[ \t]*#/ { next }
    { sub(/\/\/.*/, ""); print }' |
  tr '\n' ' ' |
  grep -oE 'TRAINER_API[^;(]*\(' |
  sed -E 's/^.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/' |
  sort -u >"$tmp/declared"

if [ ! -s "$tmp/declared" ]; then
  echo "check_exports: found no TRAINER_API declarations under $inc" >&2
  exit 1
fi

# Exported: dynamic symbols defined by the library, without version suffixes. The version node
# of the linker script (type A) is not a symbol of the API.
"$NM" -D --defined-only "$lib" | awk '$2 != "A" { print $2, $3 }' | sed -E 's/@.*$//' \
  >"$tmp/exported_all"
awk '$1 != "T" && $1 != "W" && $1 != "i" { print $2 }' "$tmp/exported_all" | sort -u \
  >"$tmp/not_functions"
awk '$1 == "T" || $1 == "W" || $1 == "i" { print $2 }' "$tmp/exported_all" | sort -u \
  >"$tmp/exported"

status=0
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
  echo "check_exports: declared with TRAINER_API but not exported by $lib:" >&2
  echo "$missing" | sed 's/^/  /' >&2
  status=1
fi
if [ -n "$extra" ]; then
  echo "check_exports: exported by $lib but not declared with TRAINER_API:" >&2
  echo "$extra" | sed 's/^/  /' >&2
  status=1
fi
if [ -s "$tmp/not_functions" ]; then
  echo "check_exports: $lib exports symbols that are not functions:" >&2
  sed 's/^/  /' "$tmp/not_functions" >&2
  status=1
fi
if [ "$status" -eq 0 ]; then
  echo "check_exports: $(wc -l <"$tmp/exported" | tr -d ' ') functions, exports match the headers"
fi
exit "$status"
