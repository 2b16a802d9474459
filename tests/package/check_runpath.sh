#!/usr/bin/env bash
# check_runpath.sh DIR...: every ELF file under DIR must have a run-time search path (RUNPATH or
# RPATH) made of absolute folders or $ORIGIN-relative ones. An empty entry (`a::b`, a leading or
# trailing `:`) or a relative one makes the dynamic loader search the current directory, so a
# program run from a folder holding a planted libmpi.so.40 would load and run it (issue 19).
set -euo pipefail
(($#)) || { echo "usage: $0 DIR..." >&2; exit 2; }
checked=0 bad=0
while IFS= read -r -d '' file; do
  [[ $(head -c 4 "$file" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] || continue
  checked=$((checked + 1))
  while IFS= read -r path; do
    [[ -n $path ]] || continue
    # A path of one empty entry has no colon; `IFS=:` with read drops a trailing empty field,
    # so the empty entries are found by pattern first.
    if [[ $path == :* || $path == *: || $path == *::* ]]; then
      echo "$file: run-time search path '$path' has an empty entry (the current directory)"
      bad=$((bad + 1))
      continue
    fi
    IFS=: read -r -a entries <<<"$path"
    for entry in "${entries[@]}"; do
      # shellcheck disable=SC2016  # a literal $ORIGIN
      if [[ $entry != /* && $entry != '$ORIGIN' && $entry != '$ORIGIN/'* ]]; then
        echo "$file: run-time search path '$path' has the relative entry '$entry'"
        bad=$((bad + 1))
      fi
    done
  done < <(readelf -d "$file" 2>/dev/null | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p')
done < <(find "$@" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -print0)
((checked > 0)) || { echo "no ELF file found under $*" >&2; exit 1; }
echo "check_runpath: $checked ELF files, $bad bad search paths"
((bad == 0))
