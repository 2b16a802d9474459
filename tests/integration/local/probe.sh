#!/bin/sh
# The local executor's probe pod: records what a training process would see.
# PROBE_ROLE=init: an initializer that leaves a marker in the shared volume.
# PROBE_ROLE=trainer: checks the marker, then reports env, hostname, name resolution, mounts.
# PROBE_EXIT: exit status; PROBE_SLEEP: seconds to sleep first.
set -u
[ -n "${PROBE_SLEEP:-}" ] && sleep "$PROBE_SLEEP"
case "${PROBE_ROLE:-trainer}" in
  init)
    echo "initializer $(hostname) writing marker"
    echo done >/workspace/marker-"$(hostname)"
    ;;
  trainer)
    echo "hostname=$(hostname)"
    for v in $(env | grep -E '^(PET_|JAX_|DMLC_|JOB_COMPLETION_INDEX|POD_NAME|POD_NS|MASTER)' | cut -d= -f1 | sort); do
      eval "echo env:$v=\$$v"
    done
    if [ -n "${PET_MASTER_ADDR:-}" ]; then
      echo "resolve:$PET_MASTER_ADDR=$(getent hosts "$PET_MASTER_ADDR" | awk '{print $1}')"
    fi
    echo "self:$(getent hosts "$(hostname)" | awk '{print $1}')"
    ls /workspace 2>/dev/null | sed 's/^/workspace:/'
    ;;
esac
exit "${PROBE_EXIT:-0}"
