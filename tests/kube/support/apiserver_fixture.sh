#!/usr/bin/env bash
# CTest fixture of the shared API server: apiserver_fixture.sh start|stop DIR.
# Without TRAINER_KUBE_TEST_ENV it does nothing (the tests then skip themselves, visibly).
set -euo pipefail
action=$1 dir=$2
if [[ -z ${TRAINER_KUBE_TEST_ENV:-} ]]; then
  echo "SKIPPED: TRAINER_KUBE_TEST_ENV is not set; no API server started"
  exit 0
fi
bundle=$TRAINER_KUBE_TEST_ENV
if [[ -f $bundle ]]; then tarball=$bundle
elif [[ -x $bundle/start-apiserver ]]; then bin=$bundle
elif [[ -x $bundle/kube-test-env/start-apiserver ]]; then bin=$bundle/kube-test-env
else tarball=$bundle/kube-test-env.tar.xz
fi
if [[ -z ${bin:-} ]]; then
  bin=$dir.bundle/kube-test-env
  if [[ ! -x $bin/start-apiserver ]]; then
    rm -rf "$dir.bundle" && mkdir -p "$dir.bundle" && tar -xJf "$tarball" -C "$dir.bundle"
  fi
fi
case $action in
  start)
    "$bin/stop-apiserver" "$dir" --purge >/dev/null 2>&1 || true
    "$bin/start-apiserver" "$dir"
    ;;
  stop) "$bin/stop-apiserver" "$dir" --purge ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
