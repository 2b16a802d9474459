#!/usr/bin/env bash
# trainerctl's cluster commands against a real kube-apiserver (../shared/kube-test-env): one
# CTest per case, each in a namespace of its own on the shared server of the ctest run
# (TRAINER_TEST_APISERVER_DIR, fixture kube_apiserver), or on a private server when run by hand.
# Nothing reconciles there: a case plays the controller by patching the TrainJob's status.
# Usage: cluster_test.sh <trainerctl> <source-dir> <case>; exit 77 (skipped) without
# TRAINER_KUBE_TEST_ENV.
set -uo pipefail
ctl=$1 src=$2 case=$3
data=$src/tests/cli/data/cluster
if [[ -z ${TRAINER_KUBE_TEST_ENV:-} ]]; then
  echo "SKIPPED: TRAINER_KUBE_TEST_ENV is not set (no kube-apiserver bundle)"
  exit 77
fi
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  if [[ -n ${private:-} ]]; then "$src/tests/kube/support/apiserver_fixture.sh" stop "$private" >/dev/null 2>&1; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
server=${TRAINER_TEST_APISERVER_DIR:-}
if [[ -z $server || ! -f $server/env ]]; then
  private=$tmp/apiserver server=$private
  "$src/tests/kube/support/apiserver_fixture.sh" start "$server" >/dev/null || exit 1
fi
# shellcheck disable=SC1091
. "$server/env"  # KUBECONFIG, APISERVER_URL, APISERVER_TOKEN, APISERVER_CA
export KUBECONFIG
failures=0

# run <expected-exit> <name> -- args...: runs trainerctl (bounded), keeps stdout/stderr in $out/$err.
run() {
  local want=$1 name=$2
  shift 3
  timeout 60 "$ctl" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, want $want"; echo "stdout: $out"; echo "stderr: $err"
    failures=$((failures + 1))
    return 1
  fi
  return 0
}
has() {
  if ! grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: missing [$3] in:"; echo "$2"; failures=$((failures + 1))
  fi
}
lacks() {
  if grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: unexpected [$3] in:"; echo "$2"; failures=$((failures + 1))
  fi
}
same() {
  if [[ $2 != "$3" ]]; then
    echo "FAIL $1: got"; echo "$2"; echo "want"; echo "$3"; failures=$((failures + 1))
  fi
}
# api METHOD PATH [BODY [CONTENT-TYPE]]: the API server with the admin token; prints the body,
# returns non-zero on an HTTP error.
api() {
  curl -sS --fail-with-body --max-time 20 --cacert "$APISERVER_CA" \
    -H "Authorization: Bearer $APISERVER_TOKEN" -X "$1" \
    -H "Content-Type: ${4:-application/json}" ${3:+--data "$3"} "$APISERVER_URL$2"
}
trainjob_path() { echo "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs/$1"; }
# set_conditions NAME JSON-ARRAY [EXTRA-STATUS-FIELDS]: what the controller would write.
set_conditions() {
  api PATCH "$(trainjob_path "$1")/status" "{\"status\":{\"conditions\":$2${3:+,$3}}}" \
    application/merge-patch+json >/dev/null
}
condition() {  # condition TYPE REASON MESSAGE
  echo "{\"type\":\"$1\",\"status\":\"True\",\"reason\":\"$2\",\"message\":\"$3\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}"
}
resource_version() {
  api GET "$(trainjob_path "$1")" | sed -n 's/.*"resourceVersion":"\([0-9]*\)".*/\1/p' | head -1
}
# wait_for FILE TEXT: until FILE contains TEXT, at most 20 s.
wait_for() {
  for _ in $(seq 100); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done
  echo "FAIL: [$2] never appeared in $1:"; cat "$1"; failures=$((failures + 1)); return 1
}

# jobset_json: the JobSet the controller would have made for the TrainJob "mnist".
jobset_json() {
  echo '{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"mnist"},"spec":{"replicatedJobs":[{"name":"node","template":{"spec":{"template":{"spec":{"containers":[{"name":"node","image":"x"}],"restartPolicy":"Never"}}}}}]}}'
}
uid_of() { sed -n 's/.*"uid": *"\([^"]*\)".*/\1/p' | head -1; }
# event NAME KIND OBJECT UID TYPE REASON MESSAGE FIRST LAST COUNT: a core/v1 Event as recorders
# write them (times in days ago, so that the ages printed are whole days).
event() {
  local first last
  first=$(date -u -d "-$8 days" +%Y-%m-%dT%H:%M:%SZ) last=$(date -u -d "-$9 days" +%Y-%m-%dT%H:%M:%SZ)
  api POST "/api/v1/namespaces/$ns/events" "{\"metadata\":{\"name\":\"$1\"},\"involvedObject\":{\"kind\":\"$2\",\"name\":\"$3\",\"namespace\":\"$ns\",\"uid\":\"$4\"},\"type\":\"$5\",\"reason\":\"$6\",\"message\":\"$7\",\"source\":{\"component\":\"test\"},\"firstTimestamp\":\"$first\",\"lastTimestamp\":\"$last\",\"count\":${10}}" >/dev/null
}

# pod_json NAME INDEX: a trainer pod of the JobSet "mnist", labelled as JobSet labels its pods.
pod_json() {
  echo "{\"metadata\":{\"name\":\"$1\",\"labels\":{\"jobset.sigs.k8s.io/jobset-name\":\"mnist\",\"jobset.sigs.k8s.io/replicatedjob-name\":\"node\",\"jobset.sigs.k8s.io/job-index\":\"0\",\"batch.kubernetes.io/job-completion-index\":\"$2\"}},\"spec\":{\"containers\":[{\"name\":\"node\",\"image\":\"x\"}]}}"
}

ns=cli-$case-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
api POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$ns\"}}" >/dev/null || exit 1
apply_job() { run 0 "$1" -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"; }

case $case in
  apply)
    run 0 apply-first -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml" && {
      same apply-first "$out" "trainingruntime.trainer.kubeflow.org/torch-small serverside-applied
trainjob.trainer.kubeflow.org/mnist serverside-applied"
      lacks apply-first-warning "$err" "Warning:"
    }
    before=$(resource_version mnist)
    run 0 apply-again -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    same apply-idempotent "$(resource_version mnist)" "$before"
    # The runtime is read from the cluster: no warning that the TrainJob went unchecked.
    run 0 apply-job-only -- apply -n "$ns" -f "$data/trainjob.yaml" && lacks apply-job-only "$err" "Warning:"
    run 0 apply-dry-run -- apply -n "$ns" --dry-run=server -f "$data/trainjob.yaml" &&
      same apply-dry-run "$out" "trainjob.trainer.kubeflow.org/mnist serverside-applied (server dry run)"
    same apply-dry-run-unchanged "$(resource_version mnist)" "$before"
    # A runtime neither the files nor the cluster hold: applied, with validate's warning.
    sed 's/torch-small/nowhere/; s/name: mnist/name: unchecked/' "$data/trainjob.yaml" >"$tmp/elsewhere.yaml"
    run 0 apply-unknown-runtime -- apply -n "$ns" -f "$tmp/elsewhere.yaml" &&
      has apply-unknown-runtime "$err" 'references TrainingRuntime "nowhere" in namespace "'"$ns"'", which is neither among the inputs nor in the cluster: the TrainJob was not checked against it'
    # A built-in runtime the cluster lacks: the warning says to install it there. (No other
    # test installs xgboost-distributed; ClusterTrainingRuntimes are shared by every test.)
    sed 's/kind: TrainingRuntime/kind: ClusterTrainingRuntime/; s/name: torch-small/name: xgboost-distributed/; s/name: mnist/name: builtin/' \
      "$data/trainjob.yaml" >"$tmp/builtin.yaml"
    run 0 apply-builtin-runtime -- apply -n "$ns" -f "$tmp/builtin.yaml" &&
      has apply-builtin-runtime "$err" 'is a built-in ClusterTrainingRuntime of libtrainer: install it in the cluster first (`trainerctl runtimes xgboost-distributed` prints it)'
    # -n and an object of another namespace: refused before anything is sent.
    sed "s/^  name: mnist/  name: mnist\n  namespace: elsewhere/" "$data/trainjob.yaml" >"$tmp/other-ns.yaml"
    run 1 apply-other-namespace -- apply -n "$ns" -f "$tmp/other-ns.yaml" &&
      has apply-other-namespace "$err" 'does not match the namespace'
    run 2 apply-no-file -- apply -n "$ns"
    # Another field manager's value: a conflict, with kubectl's advice; --force-conflicts takes it.
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  lr: "%s"\n' 1 >"$tmp/one.yaml"
    printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  lr: "%s"\n' 2 >"$tmp/two.yaml"
    run 0 apply-owner -- apply -n "$ns" -f "$tmp/one.yaml"
    run 1 apply-conflict -- apply -n "$ns" --field-manager other -f "$tmp/two.yaml" && {
      has apply-conflict "$err" 'Error from server (Conflict): Apply failed with 1 conflict: conflict with "trainerctl": .data.lr'
      has apply-conflict-advice "$err" "--force-conflicts"
    }
    run 0 apply-force -- apply -n "$ns" --field-manager other --force-conflicts -f "$tmp/two.yaml" &&
      same apply-force "$out" "configmap/shared serverside-applied"
    ;;
  invalid)
    run 1 invalid -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/invalid-after-configmap.yaml" && {
      has invalid "$err" "spec.trainer.numProcPerNode: Invalid value: 0"
      same invalid-stdout "$out" ""
    }
    api GET "/api/v1/namespaces/$ns/configmaps/settings" >/dev/null 2>&1 &&
      { echo "FAIL invalid: the ConfigMap was applied"; failures=$((failures + 1)); }
    api GET "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainingruntimes/torch-small" >/dev/null 2>&1 &&
      { echo "FAIL invalid: the runtime was applied"; failures=$((failures + 1)); }
    # A kind the server does not serve, after a valid object: nothing is applied either.
    printf 'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n' >"$tmp/gadget.yaml"
    run 1 invalid-kind -- apply -n "$ns" -f "$data/runtime.yaml" -f "$tmp/gadget.yaml" &&
      has invalid-kind "$err" 'the server doesn'"'"'t have a resource type "Gadget" in "example.com/v1"'
    api GET "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainingruntimes/torch-small" >/dev/null 2>&1 &&
      { echo "FAIL invalid-kind: the runtime was applied"; failures=$((failures + 1)); }
    run 1 invalid-old -- apply -n "$ns" -f "$src/tests/cli/data/invalid-trainjob.yaml" &&
      has invalid-old "$err" "metadata.name must match RFC 1035 DNS label format"
    ;;
  server422)
    run 1 server422 -- apply -n "$ns" -f "$data/server-invalid.yaml" &&
      has server422 "$err" 'The ConfigMap "bad" is invalid: data[bad key!]: Invalid value: "bad key!"'
    run 1 server404 -- get trainjob missing -n "$ns" &&
      same server404 "$err" 'Error from server (NotFound): trainjobs.trainer.kubeflow.org "missing" not found'
    ;;
  get)
    run 0 get-empty -- get trainjobs -n "$ns" && {
      same get-empty "$err" "No resources found in $ns namespace."
      same get-empty-out "$out" ""
    }
    run 0 get-empty-json -- get trainjobs -n "$ns" -o json && has get-empty-json "$out" '"items": []'
    apply_job get-apply
    set_conditions mnist "[$(condition Complete AllJobsCompleted done)]"
    run 0 get-table -- get trainjobs -n "$ns" && {
      # kubectl's tab-writer: the server's columns, upper-cased, padded to width + 3.
      same get-table "$(sed 's/[0-9][0-9]*s$/AGE/' <<<"$out")" "NAME    STATE      AGE
mnist   Complete   AGE"
    }
    run 0 get-one -- get trainjob mnist -n "$ns" && has get-one "$out" "mnist   Complete"
    run 0 get-name -- get trainjobs -n "$ns" -o name &&
      same get-name "$out" "trainjob.trainer.kubeflow.org/mnist"
    run 0 get-yaml -- get trainjob mnist -n "$ns" -o yaml && {
      has get-yaml "$out" "kind: TrainJob"
      has get-yaml "$out" "numProcPerNode: 2"
      lacks get-yaml "$out" "managedFields"
    }
    run 0 get-list-yaml -- get trainjobs -n "$ns" -o yaml && {
      has get-list-yaml "$out" "kind: List"
      has get-list-yaml "$out" "resourceVersion: \"\""
    }
    run 0 get-json -- get trainjobs.trainer.kubeflow.org -n "$ns" -o json && {
      has get-json "$out" '"kind": "List"'
      lacks get-json "$out" "managedFields"
    }
    run 0 get-all -- get trainjobs -A && {
      has get-all "$(head -1 <<<"$out")" "NAMESPACE"
      has get-all "$out" "$ns"
    }
    run 0 get-runtimes -- get trainingruntimes -n "$ns" && has get-runtimes "$out" "torch-small"
    # kubectl's forms: TYPE/NAME, several TYPE/NAMEs, several types (each name with its kind, a
    # table per kind), --no-headers.
    run 0 get-slash -- get trainjob/mnist -n "$ns" && has get-slash "$out" "mnist   Complete"
    run 0 get-slashes -- get trainjob/mnist trainingruntime/torch-small -n "$ns" -o name &&
      same get-slashes "$out" "trainjob.trainer.kubeflow.org/mnist
trainingruntime.trainer.kubeflow.org/torch-small"
    run 0 get-types -- get trainjobs,trainingruntimes -n "$ns" &&
      same get-types "$(sed 's/[0-9][0-9]*[smhd]$/AGE/' <<<"$out")" "NAME                                  STATE      AGE
trainjob.trainer.kubeflow.org/mnist   Complete   AGE

NAME                                               AGE
trainingruntime.trainer.kubeflow.org/torch-small   AGE"
    run 0 get-no-headers -- get trainjobs -n "$ns" --no-headers &&
      same get-no-headers "$(sed 's/[0-9][0-9]*[smhd]$/AGE/' <<<"$out")" "mnist   Complete   AGE"
    run 0 get-names -- get trainjob mnist mnist -n "$ns" -o name &&
      same get-names "$out" "trainjob.trainer.kubeflow.org/mnist
trainjob.trainer.kubeflow.org/mnist"
    # What can be read is printed, what cannot is reported after it (exit 1), as kubectl does.
    run 1 get-one-missing -- get trainjob mnist nope -n "$ns" -o name && {
      same get-one-missing "$out" "trainjob.trainer.kubeflow.org/mnist"
      same get-one-missing-err "$err" 'Error from server (NotFound): trainjobs.trainer.kubeflow.org "nope" not found'
    }
    run 2 get-mixed -- get trainjob mnist trainjob/mnist -n "$ns" &&
      has get-mixed "$err" "there is no need to specify a resource type as a separate argument"
    run 2 get-slash-selector -- get trainjob/mnist -l a=b -n "$ns" &&
      has get-slash-selector "$err" "selectors and the all flag cannot be used when passing resource/name arguments"
    # The kinds a TrainJob owns, found through discovery: its JobSet and pods.
    api POST "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$ns/jobsets" "$(jobset_json)" >/dev/null
    api POST "/api/v1/namespaces/$ns/pods" "$(pod_json mnist-node-0-0 0)" >/dev/null
    run 0 get-jobsets -- get jobsets -n "$ns" && {
      has get-jobsets "$(head -1 <<<"$out")" "NAME    TERMINALSTATE"
      has get-jobsets "$out" "mnist"
    }
    run 0 get-jobset-pods -- get jobset/mnist pod/mnist-node-0-0 -n "$ns" -o name &&
      same get-jobset-pods "$out" "jobset.jobset.x-k8s.io/mnist
pod/mnist-node-0-0"
    run 0 get-pods-wide -- get pods -n "$ns" -o wide && has get-pods-wide "$(head -1 <<<"$out")" "NOMINATED NODE"
    run 0 get-selector -- get trainjobs -n "$ns" -l app=none && has get-selector "$err" "No resources found"
    run 1 get-bad-type -- get frobs -n "$ns" &&
      same get-bad-type "$err" 'error: the server doesn'"'"'t have a resource type "frobs"'
    run 2 get-bad-output -- get trainjobs -o xml
    ;;
  watch)
    apply_job watch-apply
    timeout 20 "$ctl" get trainjobs -n "$ns" -w >"$tmp/watch" 2>&1 &
    pids+=($!)
    # One object (TYPE/NAME), in custom columns: the header once, each change a row under it.
    timeout 20 "$ctl" get trainjob/mnist -n "$ns" -w \
      -o 'custom-columns=NAME:.metadata.name,STATE:.status.conditions[0].type' >"$tmp/watch-columns" 2>&1 &
    pids+=($!)
    wait_for "$tmp/watch" "mnist" && wait_for "$tmp/watch-columns" "mnist" &&
      set_conditions mnist "[$(condition Complete AllJobsCompleted done)]" &&
      wait_for "$tmp/watch" "Complete" && wait_for "$tmp/watch-columns" "Complete" &&
      same watch-columns "$(cat "$tmp/watch-columns")" "NAME    STATE
mnist   <none>
mnist   Complete"
    lines=$(grep -c mnist "$tmp/watch")
    [[ $lines -ge 2 ]] || { echo "FAIL watch: want >= 2 lines of mnist"; cat "$tmp/watch"; failures=$((failures + 1)); }
    has watch-header "$(head -1 "$tmp/watch")" "NAME"
    ;;
  describe)
    apply_job describe-apply
    set_conditions mnist "[$(condition Complete AllJobsCompleted "jobset completed successfully")]" \
      '"jobsStatus":[{"name":"node","ready":0,"succeeded":1,"failed":0,"active":0,"suspended":0}]'
    # A pod as JobSet labels it (no kubelet runs it: it stays Pending).
    api POST "/api/v1/namespaces/$ns/pods" "$(pod_json mnist-node-0-0 0)" >/dev/null
    run 0 describe-no-jobset -- describe trainjob mnist -n "$ns" && has describe-no-jobset "$out" "JobSet:
  <none>"
    # The JobSet the controller would have made, with the status the JobSet controller writes.
    api POST "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$ns/jobsets" "$(jobset_json)" >/dev/null
    api PATCH "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$ns/jobsets/mnist/status" \
      '{"status":{"replicatedJobsStatus":[{"name":"node","ready":1,"succeeded":0,"failed":0,"active":1,"suspended":0}]}}' \
      application/merge-patch+json >/dev/null
    run 0 describe -- describe trainjob mnist -n "$ns" && {
      has describe-no-events "$out" "Events:               <none>"
      has describe-jobset "$out" "JobSet:
  Name:               mnist"
      has describe-jobset "$out" "  node             1        1       0           0"
      has describe "$out" "  mnist-node-0-0   node             0       Pending"
      has describe "$out" "Name:                 mnist"
      has describe "$out" "Namespace:            $ns"
      has describe "$out" "Runtime:              TrainingRuntime torch-small"
      has describe "$out" "Nodes:                2"
      has describe "$out" "  Complete   True     AllJobsCompleted   2026-01-01T00:00:00Z   jobset completed successfully"
      has describe "$out" "jobset completed successfully"
      has describe "$out" "  node   0        0       1           0        0"
      has describe "$out" "JobSet:"
      has describe "$out" "Pods:"
    }
    run 1 describe-missing -- describe trainjob nope -n "$ns" &&
      has describe-missing "$err" '"nope" not found'
    # Events: the TrainJob's, its JobSet's and its pods', oldest first, as kubectl describe lists
    # them; an event of another object of the same name and kind (another uid) is not shown.
    job_uid=$(api GET "$(trainjob_path mnist)" | uid_of)
    jobset_uid=$(api GET "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$ns/jobsets/mnist" | uid_of)
    pod_uid=$(api GET "/api/v1/namespaces/$ns/pods/mnist-node-0-0" | uid_of)
    event e1 TrainJob mnist "$job_uid" Warning TrainJobResourcesCreationFailed \
      'TrainJob resources reconciliation failed: ClusterTrainingRuntime.trainer.kubeflow.org \"torch-distributd\" not found' 5 3 3
    event e2 JobSet mnist "$jobset_uid" Normal SuccessfulCreate "Created job mnist-node-0" 4 4 1
    event e3 Pod mnist-node-0-0 "$pod_uid" Warning FailedScheduling "0/1 nodes are available" 2 2 1
    event e4 TrainJob mnist 00000000-0000-0000-0000-000000000000 Normal Other "an older TrainJob mnist" 1 1 1
    run 0 describe-events -- describe trainjob/mnist -n "$ns" &&
      same describe-events "$(sed -n '/^Events:/,$p' <<<"$out")" 'Events:
  Type     Reason                           Age              From  Message
  ----     ------                           ----             ----  -------
  Normal   SuccessfulCreate                 4d               test  jobset/mnist: Created job mnist-node-0
  Warning  TrainJobResourcesCreationFailed  3d (x3 over 5d)  test  TrainJob resources reconciliation failed: ClusterTrainingRuntime.trainer.kubeflow.org "torch-distributd" not found
  Warning  FailedScheduling                 2d               test  pod/mnist-node-0-0: 0/1 nodes are available'
    run 0 describe-no-show-events -- describe trainjob mnist -n "$ns" --show-events=false &&
      lacks describe-no-show-events "$out" "Events:"
    # Every TrainJob of the namespace (or of -l), separated as kubectl separates them.
    sed 's/name: mnist/name: second/' "$data/trainjob.yaml" >"$tmp/second.yaml"
    run 0 describe-apply-second -- apply -n "$ns" -f "$tmp/second.yaml"
    run 0 describe-all -- describe trainjobs -n "$ns" && {
      has describe-all "$out" "Name:                 mnist"
      has describe-all "$out" "Name:                 second"
      has describe-all "$out" "$(printf '\n\n\nName:                 second')"
    }
    run 0 describe-selector -- describe trainjobs -l team=none -n "$ns" &&
      same describe-selector "$err" "No resources found in $ns namespace."
    run 2 describe-other-kind -- describe jobset/mnist -n "$ns" &&
      has describe-other-kind "$err" "describe shows TrainJobs"
    ;;
  wait)
    apply_job wait-apply
    run 1 wait-once -- wait trainjob/mnist -n "$ns" --for=condition=Complete --timeout=0 &&
      same wait-once "$err" "error: condition not met for trainjobs/mnist"
    run 1 wait-timeout -- wait trainjob/mnist -n "$ns" --for=condition=Complete --timeout=1s &&
      same wait-timeout "$err" "error: timed out waiting for the condition on trainjobs/mnist"
    # The controller, played by a background patch, completes the TrainJob meanwhile.
    (sleep 1 && set_conditions mnist "[$(condition Complete AllJobsCompleted done)]") &
    pids+=($!)
    run 0 wait-complete -- wait trainjob/mnist -n "$ns" --for=condition=complete --timeout=30s &&
      same wait-complete "$out" "trainjob.trainer.kubeflow.org/mnist condition met"
    run 0 wait-met -- wait trainjob mnist -n "$ns" --for=condition=Complete=true --timeout=0
    run 2 wait-bad-for -- wait trainjob/mnist -n "$ns" --for=ready
    run 1 wait-missing -- wait trainjob/nope -n "$ns" --for=condition=Complete &&
      has wait-missing "$err" '"nope" not found'
    # --for=delete: nothing to wait for when the object is gone; else until it is deleted.
    run 0 wait-delete-gone -- wait trainjob/nope -n "$ns" --for=delete && same wait-delete-gone "$out" ""
    run 1 wait-delete-once -- wait trainjob/mnist -n "$ns" --for=delete --timeout=0 &&
      same wait-delete-once "$err" "error: condition not met for trainjobs/mnist"
    run 1 wait-delete-timeout -- wait trainjob/mnist -n "$ns" --for=delete --timeout=1s &&
      same wait-delete-timeout "$err" "error: timed out waiting for the condition on trainjobs/mnist"
    (sleep 1 && api DELETE "$(trainjob_path mnist)" >/dev/null) &
    pids+=($!)
    run 0 wait-delete -- wait trainjob/mnist -n "$ns" --for=delete --timeout=30s &&
      same wait-delete "$out" "trainjob.trainer.kubeflow.org/mnist condition met"
    run 2 wait-delete-type -- wait trainjobs -n "$ns" --for=delete &&
      has wait-delete-type "$err" "resource(s) were provided, but no name was specified"
    ;;
  waitfailed)
    apply_job waitfailed-apply
    (sleep 1 && set_conditions mnist "[$(condition Failed FailedJobs "jobset failed due to one or more job failures")]") &
    pids+=($!)
    run 1 wait-failed -- wait trainjob/mnist -n "$ns" --for=condition=Complete --timeout=30s &&
      same wait-failed "$err" "error: TrainJob $ns/mnist failed: FailedJobs: jobset failed due to one or more job failures"
    run 0 wait-for-failed -- wait trainjob/mnist -n "$ns" --for=condition=Failed --timeout=5s
    ;;
  delete)
    apply_job delete-apply
    run 0 delete -- delete trainjob mnist -n "$ns" &&
      same delete "$out" "trainjob.trainer.kubeflow.org \"mnist\" deleted from $ns namespace"
    run 1 delete-gone -- get trainjob mnist -n "$ns" && has delete-gone "$err" "NotFound"
    run 1 delete-again -- delete trainjob mnist -n "$ns" &&
      has delete-again "$err" 'Error from server (NotFound): trainjobs.trainer.kubeflow.org "mnist" not found'
    apply_job delete-reapply
    # -n and a file naming another namespace: refused before anything is deleted (kubectl).
    sed "s/^  name: mnist/  name: mnist\n  namespace: elsewhere/" "$data/trainjob.yaml" >"$tmp/other-ns.yaml"
    run 1 delete-other-namespace -- delete -n "$ns" -f "$data/runtime.yaml" -f "$tmp/other-ns.yaml" &&
      same delete-other-namespace "$err" "error: the namespace from the provided object \"elsewhere\" does not match the namespace \"$ns\". You must pass '--namespace=elsewhere' to perform this operation."
    run 0 delete-files -- delete -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml" &&
      same delete-files "$out" "trainingruntime.trainer.kubeflow.org \"torch-small\" deleted from $ns namespace
trainjob.trainer.kubeflow.org \"mnist\" deleted from $ns namespace"
    run 0 delete-empty -- get trainingruntimes -n "$ns" && has delete-empty "$err" "No resources found"
    run 2 delete-usage -- delete -n "$ns"
    # kubectl's forms: TYPE/NAME, -l, --all.
    apply_job delete-forms-apply
    run 0 delete-slash -- delete trainjob/mnist -n "$ns" &&
      same delete-slash "$out" "trainjob.trainer.kubeflow.org \"mnist\" deleted from $ns namespace"
    for team in a b; do
      sed "s/^  name: mnist/  name: $team\n  labels:\n    team: $team/" "$data/trainjob.yaml" >"$tmp/$team.yaml"
      run 0 "delete-apply-$team" -- apply -n "$ns" -f "$data/runtime.yaml" -f "$tmp/$team.yaml"
    done
    run 0 delete-selector -- delete trainjobs -l team=a -n "$ns" &&
      same delete-selector "$out" "trainjob.trainer.kubeflow.org \"a\" deleted from $ns namespace"
    run 0 delete-all -- delete trainjobs --all -n "$ns" &&
      same delete-all "$out" "trainjob.trainer.kubeflow.org \"b\" deleted from $ns namespace"
    run 0 delete-all-none -- delete trainjobs --all -n "$ns" && same delete-all-none "$out" "No resources found"
    run 2 delete-no-name -- delete trainjobs -n "$ns" &&
      has delete-no-name "$err" "resource(s) were provided, but no name was specified"
    run 2 delete-name-and-all -- delete trainjob x --all -n "$ns" &&
      has delete-name-and-all "$err" "name cannot be provided when a selector is specified"
    run 2 delete-all-and-selector -- delete trainjobs --all -l a=b -n "$ns" &&
      has delete-all-and-selector "$err" "setting 'all' parameter but found a non empty selector."
    ;;
  flags)
    run 0 flags-timeout -- get trainjobs -n "$ns" --request-timeout 5 && has flags-timeout "$err" "No resources found"
    run 0 flags-timeout-unit -- get trainjobs -n "$ns" --request-timeout=2m
    run 1 flags-bad-timeout -- get trainjobs -n "$ns" --request-timeout=soon &&
      has flags-bad-timeout "$err" 'error: invalid --request-timeout "soon"'
    run 1 flags-context -- get trainjobs -n "$ns" --context nope &&
      same flags-context "$err" 'error: context "nope" does not exist'
    run 1 flags-kubeconfig -- get trainjobs --kubeconfig "$tmp/missing" && has flags-kubeconfig "$err" "missing"
    # --kubeconfig wins over $KUBECONFIG; the context's namespace is the default one.
    sed "s/^\(  *\)namespace: .*/\1namespace: $ns/" "$KUBECONFIG" >"$tmp/kubeconfig"
    grep -q "namespace: $ns" "$tmp/kubeconfig" || { echo "FAIL flags: no context namespace in the copy"; failures=$((failures + 1)); }
    apply_job flags-apply
    KUBECONFIG=/nonexistent run 0 flags-context-namespace -- get trainjobs --kubeconfig "$tmp/kubeconfig" -o name &&
      same flags-context-namespace "$out" "trainjob.trainer.kubeflow.org/mnist"
    run 0 flags-help -- get --help && has flags-help "$out" "--request-timeout DURATION"
    ;;
  logs)
    run 1 logs-none -- logs mnist -n "$ns" && same logs-none "$err" "error: TrainJob $ns/mnist has no pod"
    # trainjob/NAME is the same TrainJob (not a label value the server refuses).
    run 1 logs-slash -- logs trainjob/mnist -n "$ns" && same logs-slash "$err" "error: TrainJob $ns/mnist has no pod"
    run 2 logs-slash-other -- logs trainingruntime/torch-small -n "$ns" &&
      has logs-slash-other "$err" "logs reads a TrainJob's pods: trainjob/NAME or NAME, not trainingruntimes"
    apply_job logs-apply
    api POST "/api/v1/namespaces/$ns/pods" "$(pod_json mnist-node-0-0 0)" >/dev/null
    run 1 logs-node -- logs mnist -n "$ns" --node 1 &&
      same logs-node "$err" "error: TrainJob $ns/mnist has no pod of replicated job \"node\" for node 1"
    # The pod exists but no kubelet runs it: the server has no log for it, and says so or
    # answers nothing; either way the pod was found by its labels (no "has no pod" error).
    timeout 60 "$ctl" logs mnist -n "$ns" --node 0 >"$tmp/out" 2>"$tmp/err"
    lacks logs-found "$(cat "$tmp/err")" "has no pod"
    run 2 logs-bad-node -- logs mnist -n "$ns" --node x
    run 2 logs-pod-arg -- logs mnist extra -n "$ns"
    ;;
  output)
    # -o jsonpath=... and -o custom-columns=... with kubectl's syntax (tests/unit/trainerctl has
    # the template language itself).
    apply_job output-apply
    set_conditions mnist "[$(condition Complete AllJobsCompleted done)]"
    run 0 jsonpath-one -- get trainjob/mnist -n "$ns" \
      -o 'jsonpath={.metadata.name} {.spec.trainer.numNodes} {.status.conditions[?(@.type=="Complete")].reason}' &&
      same jsonpath-one "$out" "mnist 2 AllJobsCompleted"
    run 0 jsonpath-list -- get trainjobs -n "$ns" -o 'jsonpath={range .items[*]}{.metadata.name}:{.spec.trainer.command}{"\n"}{end}' &&
      same jsonpath-list "$out" 'mnist:["torchrun","train.py"]'
    run 0 jsonpath-kinds -- get trainjobs,trainingruntimes -n "$ns" -o 'jsonpath={.items[*].kind}' &&
      same jsonpath-kinds "$out" "TrainJob TrainingRuntime"
    run 0 custom-columns -- get trainjobs -n "$ns" \
      -o custom-columns=NAME:.metadata.name,NODES:.spec.trainer.numNodes,COMMAND:.spec.trainer.command,NONE:.status.nothing &&
      same custom-columns "$out" "NAME    NODES   COMMAND               NONE
mnist   2       [torchrun train.py]   <none>"
    run 0 custom-columns-no-headers -- get trainjob mnist -n "$ns" --no-headers \
      -o 'custom-columns=NAME:{.metadata.name},STATE:.status.conditions[0].type' &&
      same custom-columns-no-headers "$out" "mnist   Complete"
    run 2 jsonpath-unclosed -- get trainjobs -n "$ns" -o 'jsonpath={.a' &&
      has jsonpath-unclosed "$err" "error: error parsing jsonpath {.a, unclosed action"
    run 2 jsonpath-empty -- get trainjobs -n "$ns" -o 'jsonpath=' &&
      has jsonpath-empty "$err" "error: template format specified but no template given"
    run 1 jsonpath-index -- get trainjobs -n "$ns" -o 'jsonpath={.items[5]}' &&
      has jsonpath-index "$err" 'error: error executing jsonpath "{.items[5]}": Error executing template: array index out of bounds: index 5, length 1'
    run 2 custom-columns-spec -- get trainjobs -n "$ns" -o custom-columns=NAME &&
      has custom-columns-spec "$err" "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"
    # Where kubectl is installed, it prints the same text for the same templates (those whose
    # order does not depend on Go's random map order: not `*` or `..` over an object).
    if command -v kubectl >/dev/null; then
      for template in '{.metadata}' '{.items[0].spec}' '{.items[*].spec.trainer.command[*]}' \
        '{range .items[*]}[{.metadata.name}]{end}' \
        '{.items[?(@.spec.trainer.numNodes>=2)].metadata.name}' '{.items[0].status.conditions[-1:]}'; do
        want=$(kubectl get trainjobs -n "$ns" -o "jsonpath=$template" 2>&1)
        run 0 "jsonpath-kubectl $template" -- get trainjobs -n "$ns" -o "jsonpath=$template" &&
          same "jsonpath-kubectl $template" "$out" "$want"
      done
      want=$(kubectl get trainjobs -n "$ns" -o custom-columns=N:.metadata.name,T:.spec.trainer,L:.metadata.labels 2>&1)
      run 0 custom-columns-kubectl -- get trainjobs -n "$ns" -o custom-columns=N:.metadata.name,T:.spec.trainer,L:.metadata.labels &&
        same custom-columns-kubectl "$out" "$want"
    else
      echo "SKIP output-kubectl: kubectl is not installed"
    fi
    ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
api DELETE "/api/v1/namespaces/$ns" >/dev/null 2>&1
if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
echo "cluster $case: ok"
