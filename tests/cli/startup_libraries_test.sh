#!/usr/bin/env bash
# What trainerctl loads when it starts, and libcurl loaded only by a request (lazy_curl.cpp):
#  - libcurl is never a DT_NEEDED entry; with the static link (TRAINER_STATIC_TRAINERCTL) only
#    the C library is;
#  - a request works: against a port where nothing listens the error is curl's connection error;
#  - where libcurl.so.4 cannot be loaded (hidden by a bind mount in a private mount namespace),
#    a cluster command fails with the reason and does not crash, and commands that make no
#    request still work.
# Usage: startup_libraries_test.sh <trainerctl> <source-dir> <static: ON|OFF>
set -uo pipefail
ctl=$1 src=$2 static=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

needed=$(readelf -d "$ctl" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
grep -q '^libcurl' <<<"$needed" && fail "libcurl is a DT_NEEDED entry"
if [[ $static == ON ]]; then
  extra=$(grep -vE '^(libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2)$' <<<"$needed")
  [[ -n $extra ]] && fail "the static link needs more than the C library: $(echo $extra)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/kubeconfig" <<'YAML'
apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "http://127.0.0.1:9"}
users:
- name: nobody
  user: {token: none}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody, namespace: default}
current-context: nowhere
YAML
timeout 30 "$ctl" get trainjobs --kubeconfig "$tmp/kubeconfig" --request-timeout 5s >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -eq 0 || $rc -ge 124 ]] || ! grep -qi 'connect' "$tmp/err"; then
  fail "get against a closed port: exit $rc, stderr: $(cat "$tmp/err")"
fi

curl_so=$(ldconfig -p | sed -n 's/^\s*libcurl\.so\.4 (libc6,x86-64) => //p' | head -1)
if [[ -n $curl_so ]] && unshare -m true 2>/dev/null; then
  real=$(readlink -f "$curl_so")
  timeout 30 unshare -m bash -c "mount --bind /dev/null '$real' && exec '$ctl' get trainjobs --kubeconfig '$tmp/kubeconfig' --request-timeout 5s" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [[ $rc -eq 0 || $rc -ge 124 ]] || ! grep -q 'cannot load libcurl.so.4' "$tmp/err" || ! grep -q 'cannot create a handle' "$tmp/err"; then
    fail "get without libcurl: exit $rc, stderr: $(cat "$tmp/err")"
  fi
  timeout 30 unshare -m bash -c "mount --bind /dev/null '$real' && exec '$ctl' validate -f '$src/examples/ddp/trainjob.yaml' --builtin-runtimes" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [[ $rc -ne 0 ]] && fail "validate without libcurl: exit $rc, stderr: $(cat "$tmp/err")"
else
  echo "note: no private mount namespace here; the missing-libcurl case is not run"
fi

[[ $failures -eq 0 ]] && echo "PASS" || exit 1
