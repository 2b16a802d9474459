# SPDX-License-Identifier: Apache-2.0
# Sourced by the CLI tests that bound a program's memory. AddressSanitizer reserves terabytes of
# address space for its shadow memory and keeps freed blocks in quarantine, so an instrumented
# program cannot start under an address-space cap (`ulimit -v`), and its peak RSS measures the
# sanitizer, not libtrainer. Those bounds are checked in the uninstrumented (dev) build; the
# instrumented build runs the same steps uncapped, for what the sanitizers find.

# instrumented PROGRAM: true when PROGRAM runs with a sanitizer runtime. (Not `ldd | grep -q`:
# grep's early exit makes ldd die of SIGPIPE, which `set -o pipefail` reads as a failure.)
instrumented() {
  local libs
  libs=$(ldd "$1" 2>/dev/null)
  [[ $libs == *libasan.so* || $libs == *libtsan.so* ]]
}

# address_cap PROGRAM KIB: what `ulimit -v` gets for PROGRAM: KIB, or `unlimited` when it is
# instrumented.
address_cap() {
  if instrumented "$1"; then echo unlimited; else echo "$2"; fi
}

# rss_within PROGRAM PEAK_KIB LIMIT_KIB: true when PEAK_KIB is below LIMIT_KIB, or when PROGRAM is
# instrumented (the peak is printed either way by the caller).
rss_within() {
  instrumented "$1" && { echo "(peak RSS not bounded for an instrumented build)"; return 0; }
  [[ -n $2 && $2 -gt 0 && $2 -lt $3 ]]
}
