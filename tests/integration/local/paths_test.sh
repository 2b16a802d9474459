#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `trainerctl run` never writes outside its run folder (docs/local.md, "Path safety").
# Usage: paths_test.sh CASE TRAINERCTL
#   refused  a TrainJob whose runtime has a relative mountPath, a subPath climbing out of its
#            volume, a volume name with '/' and an item path with '..': exit 1 with every field
#            path, no run folder, nothing created in the working directory, a sentinel untouched
#   mpikeys  an MPI TrainJob under umask 000: the SSH Secret's files (id_rsa rendered 0640) are
#            0600 on the host and the run folder is 0700
set -euo pipefail
case_name=$1
trainerctl=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }
cd "$tmp"
echo untouched >sentinel

case $case_name in
refused)
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
  mlPolicy: {numNodes: 1, mpi: {numProcPerNode: 1, mpiImplementation: OpenMPI, sshAuthMountPath: /root/.ssh, runLauncherAsNode: true}}
  template:
    spec:
      replicatedJobs:
        - name: node
          replicas: 1
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: unused
                      command: [/bin/true]
                      volumeMounts:
                        - {name: scratch, mountPath: rel/dir}
                        - {name: scratch, mountPath: /mnt/up, subPath: ../../../..}
                        - {name: keys, mountPath: /keys}
                  volumes:
                    - {name: scratch, emptyDir: {}}
                    - {name: ../../../../x, emptyDir: {}}
                    - name: keys
                      secret:
                        secretName: tj-mpi-ssh-auth
                        items: [{key: ssh-privatekey, path: ../../../../../../sentinel}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
YAML
  set +e
  "$trainerctl" run -f job.yaml --run-dir "$tmp/run" >out.txt 2>err.txt
  rc=$?
  set -e
  [[ $rc -eq 1 ]] || fail "exit $rc, want 1: $(cat err.txt)"
  pod=JobSet.spec.replicatedJobs[0].template.spec.template.spec
  for want in \
    "$pod.containers[0].volumeMounts[0].mountPath: Invalid value: \"rel/dir\": must be an absolute path" \
    "$pod.containers[0].volumeMounts[1].subPath: Invalid value: \"../../../..\": must not contain '..'" \
    "$pod.volumes[1].name: Invalid value: \"../../../../x\": a lowercase RFC 1123 label" \
    "$pod.volumes[2].secret.items[0].path: Invalid value: \"../../../../../../sentinel\": must not contain '..'"; do
    grep -qF -- "$want" err.txt || fail "missing: $want; got: $(cat err.txt)"
  done
  [[ ! -e run ]] || fail "the run folder was created"
  [[ ! -e rel ]] || fail "the relative mountPath was created under the working directory"
  [[ $(cat sentinel) == untouched ]] || fail "the sentinel changed"
  [[ $(ls -A | sort | tr '\n' ' ') == "err.txt job.yaml out.txt sentinel " ]] ||
    fail "unexpected files: $(ls -A)"
  ;;
mpikeys)
  cat >job.yaml <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rt, namespace: default}
spec:
  mlPolicy: {numNodes: 1, mpi: {numProcPerNode: 1, mpiImplementation: OpenMPI, sshAuthMountPath: /root/.ssh, runLauncherAsNode: false}}
  template:
    spec:
      successPolicy: {operator: All, targetReplicatedJobs: [launcher]}
      replicatedJobs:
        - name: launcher
          replicas: 1
          template:
            spec:
              template:
                spec:
                  containers: [{name: node, image: unused, command: [/bin/true]}]
        - name: node
          replicas: 1
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                spec:
                  terminationGracePeriodSeconds: 1
                  containers: [{name: node, image: unused, command: [/usr/sbin/sshd, -De]}]
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: default}
spec:
  runtimeRef: {name: rt, kind: TrainingRuntime}
YAML
  # umask 000: the modes must come from the executor, not from the caller's umask.
  (umask 000 && timeout 120 "$trainerctl" run -f job.yaml --run-dir "$tmp/run" --isolation host \
    >out.txt 2>err.txt) || fail "run failed: $(cat err.txt)"
  [[ $(stat -c %a run) == 700 ]] || fail "run folder mode $(stat -c %a run), want 700"
  n=0
  while IFS= read -r f; do
    n=$((n + 1))
    [[ $(stat -c %a "$f") == 600 ]] || fail "$f has mode $(stat -c %a "$f"), want 600"
  done < <(find run/pods -path '*/mpi-ssh-auth/*' -type f)
  [[ $n -eq 6 ]] || fail "found $n SSH files, want 6 (3 per pod)"
  [[ $(stat -c %a run/pods/tj-launcher-0-0-0/spec.json) == 600 ]] || fail "spec.json not 0600"
  [[ $(cat sentinel) == untouched ]] || fail "the sentinel changed"
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "PASS ($case_name)"
