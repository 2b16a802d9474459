#!/usr/bin/env bash
# `trainerctl controller` against a real kube-apiserver (../shared/kube-test-env): one CTest per
# case, each in a namespace of its own (the controller is always given -n, so it never touches
# the other tests' TrainJobs) on the shared server of the ctest run (TRAINER_TEST_APISERVER_DIR,
# fixture kube_apiserver), or on a private server when run by hand. The case `flags` needs no
# server. Usage: controller_test.sh <trainerctl> <source-dir> <case> [<plugin .so>]; exit 77
# (skipped) without TRAINER_KUBE_TEST_ENV. The case `plugin` takes the example Paddle plugin.
set -uo pipefail
ctl=$1 src=$2 case=$3 plugin=${4:-}
. "$src/tests/cli/memory_bounds.sh"
data=$src/tests/cli/data/cluster
tmp=$(mktemp -d)
pids=()
failures=0
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  if [[ -n ${private:-} ]]; then "$src/tests/kube/support/apiserver_fixture.sh" stop "$private" >/dev/null 2>&1; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

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
  if ! grep -qE -- "$3" <<<"$2"; then
    echo "FAIL $1: missing /$3/ in:"; echo "$2"; failures=$((failures + 1))
  fi
}
finish() {
  if [[ -n ${ns:-} ]]; then api DELETE "/api/v1/namespaces/$ns" >/dev/null 2>&1; fi
  if [[ $failures -ne 0 ]]; then echo "$failures failure(s)"; exit 1; fi
  echo "controller $case: ok"
  exit 0
}

# Usage errors come before any configuration is read: no server needed.
if [[ $case == flags ]]; then
  export KUBECONFIG=/nonexistent
  run 2 workers-zero -- controller --workers 0 && has workers-zero "$err" 'invalid --workers "0"'
  run 2 workers-word -- controller --workers many
  run 2 qps-word -- controller --kube-api-qps fast && has qps-word "$err" 'invalid --kube-api-qps "fast"'
  run 2 burst-zero -- controller --kube-api-burst 0 && has burst-zero "$err" 'invalid --kube-api-burst "0"'
  run 2 metrics-public -- controller --metrics-addr 0.0.0.0:9090 &&
    has metrics-public "$err" 'only a loopback address'
  run 2 metrics-host -- controller --metrics-addr example.com:9090
  run 2 metrics-no-port -- controller --metrics-addr 127.0.0.1
  run 2 metrics-big-port -- controller --metrics-addr 127.0.0.1:70000
  run 2 feature-gates -- controller --feature-gates Bogus=true && has feature-gates "$err" 'Bogus'
  run 2 webhook-big-port -- controller --webhook-port 70000 &&
    has webhook-big-port "$err" 'invalid --webhook-port "70000": a port from 0 .off. to 65535'
  run 2 webhook-word-port -- controller --webhook-port https
  run 2 webhook-no-address -- controller --webhook-port 9443 --webhook-bind-address '' &&
    has webhook-no-address "$err" '--webhook-bind-address must not be empty'
  run 2 cert-hosts -- controller --webhook-cert-hosts 'a b' && has cert-hosts "$err" 'invalid --webhook-cert-hosts'
  run 2 secret-name -- controller --webhook-secret-name '' && has secret-name "$err" '--webhook-secret-name must not be empty'
  run 2 unknown-flag -- controller --onse && has unknown-flag "$err" 'once'
  run 2 positional -- controller extra
  run 0 help -- controller --help && has help "$out" 'usage: trainerctl controller' &&
    has help-qps "$out" 'kube-api-qps QPS +requests per second to the API server \(0: no limit\)' &&
    has help-burst "$out" 'kube-api-burst N +requests allowed at once above --kube-api-qps'
  # A configuration that cannot be loaded: exit 1, kubectl's text.
  run 1 no-kubeconfig -- controller --kubeconfig /nonexistent/kubeconfig --once
  finish
fi

if [[ -z ${TRAINER_KUBE_TEST_ENV:-} ]]; then
  echo "SKIPPED: TRAINER_KUBE_TEST_ENV is not set (no kube-apiserver bundle)"
  exit 77
fi
server=${TRAINER_TEST_APISERVER_DIR:-}
if [[ -z $server || ! -f $server/env ]]; then
  private=$tmp/apiserver server=$private
  "$src/tests/kube/support/apiserver_fixture.sh" start "$server" >/dev/null || exit 1
fi
# shellcheck disable=SC1091
. "$server/env"  # KUBECONFIG, APISERVER_URL, APISERVER_TOKEN, APISERVER_CA
export KUBECONFIG

# api METHOD PATH [BODY [CONTENT-TYPE]]: the API server with the admin token; prints the body,
# returns non-zero on an HTTP error.
api() {
  curl -sS --fail-with-body --max-time 20 --cacert "$APISERVER_CA" \
    -H "Authorization: Bearer $APISERVER_TOKEN" -X "$1" \
    -H "Content-Type: ${4:-application/json}" ${3:+--data "$3"} "$APISERVER_URL$2"
}
jobset_path() { echo "/apis/jobset.x-k8s.io/v1alpha2/namespaces/$ns/jobsets/$1"; }
# wait_jobset NAME: until the JobSet exists, at most 30 s.
wait_jobset() {
  for _ in $(seq 150); do api GET "$(jobset_path "$1")" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "FAIL: JobSet $ns/$1 never appeared"; failures=$((failures + 1)); return 1
}
# wait_for FILE REGEX: until FILE matches, at most 30 s.
wait_for() {
  for _ in $(seq 150); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done
  echo "FAIL: /$2/ never appeared in $1:"; cat "$1"; failures=$((failures + 1)); return 1
}
# stop_within PID SECONDS: SIGTERM, then the exit status ($stopped_rc) within the bound.
stop_within() {
  kill -TERM "$1"
  for _ in $(seq $(($2 * 10))); do
    if ! kill -0 "$1" 2>/dev/null; then wait "$1"; stopped_rc=$?; return 0; fi
    sleep 0.1
  done
  echo "FAIL: the controller did not stop within $2 s of SIGTERM"; failures=$((failures + 1))
  stopped_rc=-1
  return 1
}

ns=ctl-$case-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
api POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$ns\"}}" >/dev/null || exit 1
line_re() { echo "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z trainjob=$ns/$1 "; }

case $case in
  webhooks)
    # trainerctl controller --webhook-port: the admission webhooks over HTTPS with the managed
    # certificate; a review of a TrainJob with a reserved env var is refused with upstream's text.
    run 0 apply -- apply -n "$ns" -f "$data/runtime.yaml"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$ctl" controller -n "$ns" --operator-namespace "$ns" --webhook-secret-name wh-cert \
      --webhook-cert-hosts 127.0.0.1 --webhook-bind-address 127.0.0.1 --webhook-port "$port" \
      >"$tmp/ctl.out" 2>"$tmp/ctl.err" &
    pid=$!
    if wait_for "$tmp/ctl.err" "serving webhooks on port $port\$"; then
      api GET "/api/v1/namespaces/$ns/secrets/wh-cert" | tr -d ' \n' |
        sed -n 's/.*"ca.crt":"\([^"]*\)".*/\1/p' | base64 -d >"$tmp/ca.crt"
      review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
        "kind":{"group":"trainer.kubeflow.org","version":"v1alpha1","kind":"TrainJob"},
        "namespace":"'"$ns"'","name":"bad","operation":"CREATE","object":{
        "apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"bad",
        "namespace":"'"$ns"'"},"spec":{"runtimeRef":{"name":"torch-small","kind":"TrainingRuntime"},
        "trainer":{"numNodes":2,"env":[{"name":"PET_NODE_RANK","value":"1"}]}}}}}'
      answer=$(curl -sS --cacert "$tmp/ca.crt" -H 'Content-Type: application/json' --data "$review" \
        "https://127.0.0.1:$port/validate-trainer-kubeflow-org-v1alpha1-trainjob" 2>&1)
      has webhook-uid "$answer" '"uid":"u-1"'
      has webhook-denied "$answer" '"allowed":false'
      has webhook-message "$answer" 'spec.trainer.env: Invalid value: .*must not have reserved envs, invalid envs configured: \[PET_NODE_RANK\]'
      # Not an AdmissionReview: a 400 answer, the server goes on.
      answer=$(curl -sS --cacert "$tmp/ca.crt" -H 'Content-Type: application/json' --data '{}' \
        "https://127.0.0.1:$port/mutate-trainer-kubeflow-org-v1alpha1-trainjob" 2>&1)
      has webhook-malformed "$answer" '"code":400'
    fi
    stop_within "$pid" 20 && [[ $stopped_rc -eq 0 ]] ||
      { echo "FAIL webhooks-stop: rc=$stopped_rc"; cat "$tmp/ctl.err"; failures=$((failures + 1)); }
    ;;
  certs)
    # The status server is served (TrainJobStatus on): the certificates are managed at start,
    # in the operator namespace given, with the extra host in the serving certificate.
    run 0 certs -- controller -n "$ns" --once --feature-gates TrainJobStatus=true \
      --operator-namespace "$ns" --webhook-secret-name test-cert --webhook-cert-hosts 127.0.0.1 &&
      has certs-log "$err" "created Secret $ns/test-cert"
    secret=$(api GET "/api/v1/namespaces/$ns/secrets/test-cert" | tr -d ' \n') ||
      { echo "FAIL certs-secret: no Secret"; failures=$((failures + 1)); }
    for key in ca.crt ca.key tls.crt tls.key; do has "certs-$key" "$secret" "\"$key\":\"[A-Za-z0-9+/=]+\""; done
    sans=$(sed -n 's/.*"tls.crt":"\([^"]*\)".*/\1/p' <<<"$secret" | base64 -d | openssl x509 -noout -ext subjectAltName 2>&1)
    has certs-dns "$sans" "DNS:kubeflow-trainer-controller-manager.$ns.svc"
    has certs-ip "$sans" 'IP Address:127.0.0.1'
    # With the gate on, a TrainJob's reconcile reads the CA from that Secret (upstream fails
    # every reconcile until its Secret exists): the pods get the CA through <job>-tls-config.
    run 0 certs-apply -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    run 0 certs-reconcile -- controller -n "$ns" --once --feature-gates TrainJobStatus=true \
      --operator-namespace "$ns" --webhook-secret-name test-cert &&
      has certs-tls-config "$err" "$(line_re mnist)applied=[^ ]*configmap/mnist-tls-config"
    ca=$(api GET "/api/v1/namespaces/$ns/configmaps/mnist-tls-config" | tr -d ' \n' | sed -n 's/.*"ca.crt":"\([^"]*\)".*/\1/p')
    [[ -n $ca ]] || { echo "FAIL certs-ca: mnist-tls-config has no ca.crt"; failures=$((failures + 1)); }
    # A second start reuses it.
    run 0 certs-again -- controller -n "$ns" --once --feature-gates TrainJobStatus=true \
      --operator-namespace "$ns" --webhook-secret-name test-cert &&
      { if grep -q "Secret $ns/test-cert" <<<"$err"; then echo "FAIL certs-reuse: $err"; failures=$((failures + 1)); fi; }
    # A Secret that cannot be written (no such namespace): the controller does not start.
    run 1 certs-denied -- controller -n "$ns" --once --feature-gates TrainJobStatus=true \
      --operator-namespace "no-such-ns-$ns" && has certs-denied "$err" 'webhook certificates'
    ;;
  progress)
    # The TrainJobStatus progress endpoint: a pod of the TrainJob posts with the SDK's own
    # update_trainjob_status(), holding a token the TokenRequest API bound to that pod.
    run 0 progress-apply -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    sed 's/name: mnist$/name: other/' "$data/trainjob.yaml" >"$tmp/other.yaml"
    run 0 progress-apply-other -- apply -n "$ns" -f "$tmp/other.yaml"
    api POST "/api/v1/namespaces/$ns/serviceaccounts" '{"metadata":{"name":"trainer"}}' >/dev/null
    pod() {  # pod NAME JOBSET: a Pod object of that JobSet (no kubelet runs it); prints its uid
      api POST "/api/v1/namespaces/$ns/pods" "{\"metadata\":{\"name\":\"$1\",\"labels\":{\"jobset.sigs.k8s.io/jobset-name\":\"$2\"}},
        \"spec\":{\"serviceAccountName\":\"trainer\",\"containers\":[{\"name\":\"node\",\"image\":\"x\"}]}}" |
        tr -d ' \n' | sed -n 's/.*"uid":"\([^"]*\)".*/\1/p' | head -1
    }
    token() {  # token POD UID AUDIENCE-JOB: a token bound to that pod for that TrainJob's audience
      api POST "/api/v1/namespaces/$ns/serviceaccounts/trainer/token" "{\"spec\":{\"audiences\":
        [\"trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs/$3/status\"],\"expirationSeconds\":3600,
        \"boundObjectRef\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"name\":\"$1\",\"uid\":\"$2\"}}}" |
        tr -d ' \n' | sed -n 's/.*"token":"\([^"]*\)".*/\1/p'
    }
    uid=$(pod mnist-node-0-0-abcde mnist)
    other_uid=$(pod other-node-0-0-abcde other)
    good=$(token mnist-node-0-0-abcde "$uid" mnist)
    foreign=$(token other-node-0-0-abcde "$other_uid" mnist)   # a pod outside the TrainJob
    wrong_aud=$(token mnist-node-0-0-abcde "$uid" other)        # the audience of another TrainJob
    [[ -n $good && -n $foreign && -n $wrong_aud ]] || { echo "FAIL progress-tokens: TokenRequest"; failures=$((failures + 1)); }
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$ctl" controller -n "$ns" --feature-gates TrainJobStatus=true --status-server-port "$port" \
      --status-server-bind-address 127.0.0.1 --operator-namespace "$ns" --webhook-cert-hosts 127.0.0.1 \
      >"$tmp/ctl.out" 2>"$tmp/ctl.err" &
    pid=$! pids+=("$pid")
    wait_for "$tmp/ctl.err" "serving trainer status on port $port"
    api GET "/api/v1/namespaces/$ns/secrets/kubeflow-trainer-webhook-cert" | tr -d ' \n' |
      sed -n 's/.*"ca.crt":"\([^"]*\)".*/\1/p' | base64 -d >"$tmp/ca.crt"
    url=https://127.0.0.1:$port/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs/mnist/status
    post() {  # post TOKEN BODY: prints the HTTP code
      curl -s -o "$tmp/post.out" -w '%{http_code}' --max-time 20 --cacert "$tmp/ca.crt" -X POST \
        -H "Authorization: Bearer $1" -H 'Content-Type: application/json' --data-binary "$2" "$url"
    }
    body='{"trainerStatus":{"progressPercentage":10,"lastUpdatedTime":"2026-11-28T10:00:00Z"}}'
    [[ $(post "" "$body") == 403 ]] || { echo "FAIL progress-no-token: $(cat "$tmp/post.out")"; failures=$((failures + 1)); }
    [[ $(post garbage "$body") == 403 ]] || { echo "FAIL progress-bad-token"; failures=$((failures + 1)); }
    [[ $(post "$foreign" "$body") == 403 ]] || { echo "FAIL progress-foreign-pod: $(cat "$tmp/post.out")"; failures=$((failures + 1)); }
    [[ $(post "$wrong_aud" "$body") == 403 ]] || { echo "FAIL progress-audience: $(cat "$tmp/post.out")"; failures=$((failures + 1)); }
    [[ $(post "$good" '{"trainerStatus":') == 422 ]] || { echo "FAIL progress-malformed"; failures=$((failures + 1)); }
    has progress-422-body "$(cat "$tmp/post.out")" '"message":"Invalid payload","reason":"Invalid","code":422'
    # A declared body over 64 KiB is answered 413 before it is read (the client sends the head).
    big=$(python3 - "$port" "$tmp/ca.crt" "$ns" "$good" <<'PY'
import socket, ssl, sys
port, ca, ns, token = sys.argv[1:]
ctx = ssl.create_default_context(cafile=ca)
with socket.create_connection(("127.0.0.1", int(port)), timeout=20) as raw:
    with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        tls.sendall((f"POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs/mnist/status HTTP/1.1\r\n"
                     f"Host: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 70000\r\n\r\n").encode())
        print(tls.recv(65536).decode(errors="replace"))
PY
)
    has progress-oversized "$big" '^HTTP/1.1 413'
    has progress-oversized-body "$big" '"message":"Payload too large","reason":"RequestEntityTooLarge","code":413'
    # Another path of the server: upstream's 404.
    code=$(curl -s -o "$tmp/post.out" -w '%{http_code}' --max-time 20 --cacert "$tmp/ca.crt" -X POST "https://127.0.0.1:$port/healthz")
    [[ $code == 404 ]] || { echo "FAIL progress-404: $code"; failures=$((failures + 1)); }
    [[ $(post "$good" '{"trainerStatus":{"progressPercentage":150,"lastUpdatedTime":"2026-11-28T10:00:00Z"}}') == 422 ]] ||
      { echo "FAIL progress-bounds: $(cat "$tmp/post.out")"; failures=$((failures + 1)); }
    # The SDK's own client, in a process given the pod's env.
    if [[ -n ${TRAINER_SDK_PYTHON:-} ]]; then
      printf '%s' "$good" >"$tmp/token"
      sent=$(KUBEFLOW_TRAINER_SERVER_URL=$url KUBEFLOW_TRAINER_SERVER_CA_CERT=$tmp/ca.crt \
        KUBEFLOW_TRAINER_SERVER_TOKEN=$tmp/token "$TRAINER_SDK_PYTHON" -c '
from kubeflow.trainer import update_trainjob_status
print(update_trainjob_status(progress_percent=42, estimated_remaining_seconds=120, metrics={"loss": 0.123}))')
      [[ $sent == True ]] || { echo "FAIL progress-sdk: update_trainjob_status returned $sent"; failures=$((failures + 1)); }
      job=$(api GET "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs/mnist" | tr -d ' \n')
      has progress-percent "$job" '"trainerStatus":\{.*"progressPercentage":42'
      has progress-eta "$job" '"estimatedRemainingSeconds":120'
      has progress-metric "$job" '"metrics":\[\{"name":"loss","value":"0.123"\}\]'
      has progress-manager "$job" '"fieldsV1":\{"f:status":\{"f:trainerStatus":[^]]*"manager":"trainer-status","operation":"Apply","subresource":"status"'
    else
      echo "note: TRAINER_SDK_PYTHON is not set: the SDK's update_trainjob_status() did not run"
    fi
    stop_within "$pid" 30
    ;;
  once)
    run 0 apply -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    run 0 once -- controller -n "$ns" --once && {
      has once-line "$err" "$(line_re mnist)applied=[^ ]*jobset.jobset.x-k8s.io/mnist"
      has once-stopped "$err" 'controller stopped'
    }
    # The JobSet is the server's, owned by the TrainJob and applied by the field manager trainer.
    jobset=$(api GET "$(jobset_path mnist)" | tr -d ' \n') || { echo "FAIL once-jobset: no JobSet"; failures=$((failures + 1)); }
    uid=$(api GET "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs/mnist" | tr -d ' \n' |
      sed -n 's/.*"uid":"\([^"]*\)".*/\1/p' | head -1)
    has once-owner "$jobset" "\"kind\":\"TrainJob\",\"name\":\"mnist\",\"uid\":\"$uid\""
    has once-manager "$jobset" '"manager":"trainer","operation":"Apply"'
    # An empty namespace: nothing to reconcile, success.
    api POST /api/v1/namespaces "{\"metadata\":{\"name\":\"$ns-empty\"}}" >/dev/null
    run 0 once-empty -- controller -n "$ns-empty" --once
    api DELETE "/api/v1/namespaces/$ns-empty" >/dev/null 2>&1
    ;;
  optimization)
    # An OptimizationJob (issue 14): apply admits it with its template's runtime read from the
    # cluster; --once creates parallelTrials trial TrainJobs and their JobSets; the test plays
    # the trainer (status Complete with trainerStatus.metrics); the third trial follows, then
    # status.result is the lowest loss and the job is Complete.
    cat >"$tmp/opt.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: OptimizationJob
metadata:
  name: tune
spec:
  objectives: [{metric: loss, direction: Minimize}]
  searchAlgorithm: {grid: {}}
  parameters:
    - name: lr
      searchSpace: {categorical: {choices: ["0.1", "0.2", "0.3"]}}
  numTrials: 3
  parallelTrials: 2
  trainJobTemplate:
    spec:
      runtimeRef: {name: torch-small, kind: TrainingRuntime}
YAML
    tj=/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs
    complete() {  # complete NAME LOSS
      api PATCH "$tj/$1/status" "{\"status\":{\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\",\"reason\":\"Test\",\"message\":\"test\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}],\"trainerStatus\":{\"metrics\":[{\"name\":\"loss\",\"value\":\"$2\"}],\"lastUpdatedTime\":\"2026-01-01T00:00:00Z\"}}}" \
        application/merge-patch+json >/dev/null || { echo "FAIL complete $1"; failures=$((failures + 1)); }
    }
    run 0 opt-runtime -- apply -n "$ns" -f "$data/runtime.yaml"
    run 0 opt-apply -- apply -n "$ns" -f "$tmp/opt.yaml" && {
      has opt-apply "$out" 'optimizationjob.trainer.kubeflow.org/tune'
      if grep -q warning <<<"$err"; then echo "FAIL opt-apply: $err"; failures=$((failures + 1)); fi
    }
    run 0 opt-get -- get optimizationjobs -n "$ns" && has opt-get "$out" '^tune'
    run 0 opt-once1 -- controller -n "$ns" --once && {
      has opt-line "$err" "optimizationjob=$ns/tune applied=trainjob.trainer.kubeflow.org/tune-trial-0,trainjob.trainer.kubeflow.org/tune-trial-1 "
      has opt-trial-line "$err" "$(line_re tune-trial-1)applied=[^ ]*jobset.jobset.x-k8s.io/tune-trial-1"
    }
    trial=$(api GET "$tj/tune-trial-0" | tr -d ' \n')
    has opt-env "$trial" '"name":"KUBEFLOW_TRAINER_OPT_LR","value":"0.1"'
    has opt-owner "$trial" '"kind":"OptimizationJob","name":"tune"'
    api GET "$(jobset_path tune-trial-0)" >/dev/null || { echo "FAIL opt-jobset"; failures=$((failures + 1)); }
    complete tune-trial-0 0.5
    complete tune-trial-1 0.25
    run 0 opt-once2 -- controller -n "$ns" --once &&
      has opt-third "$err" "optimizationjob=$ns/tune applied=trainjob.trainer.kubeflow.org/tune-trial-2 "
    complete tune-trial-2 0.75
    run 0 opt-once3 -- controller -n "$ns" --once
    run 0 opt-yaml -- get optimizationjob tune -n "$ns" -o yaml && {
      has opt-result "$out" 'trainJobName: tune-trial-1'
      has opt-complete "$out" 'reason: OptimizationJobCompleted'
    }
    ;;
  plugin)
    # --plugin: the reconcile renders with the Paddle plugin (examples/plugins/paddle), so the
    # server's JobSet carries the env and the port the plugin injected.
    run 0 apply -- apply -n "$ns" -f "$src/tests/cli/data/paddle/run.yaml"
    run 0 plugin-once -- controller -n "$ns" --once --plugin "$plugin" &&
      has plugin-line "$err" "$(line_re paddle-env)applied=[^ ]*jobset.jobset.x-k8s.io/paddle-env"
    jobset=$(api GET "$(jobset_path paddle-env)" | tr -d ' \n') || { echo "FAIL plugin-jobset: no JobSet"; failures=$((failures + 1)); }
    has plugin-master "$jobset" '\{"name":"PADDLE_MASTER","value":"paddle-env-node-0-0.paddle-env:36543"\}'
    has plugin-nnodes "$jobset" '\{"name":"PADDLE_NNODES","value":"2"\}'
    has plugin-port "$jobset" '"ports":\[\{"containerPort":36543,"name":"master"'
    ;;
  oversize)
    # A TrainJob of 2147483647 nodes, which the API server accepts (no webhook here) and which
    # once crash-looped the controller out of memory: under a 4 GiB address-space cap, --once
    # marks it Failed with the reason, the admission error and an Event, and still gives the
    # normal TrainJob its JobSet.
    run 0 apply -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    api POST "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs" \
      '{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob","metadata":{"name":"huge"},"spec":{"runtimeRef":{"name":"torch-small","kind":"TrainingRuntime"},"trainer":{"numNodes":2147483647}}}' \
      >/dev/null || { echo "FAIL oversize-create"; failures=$((failures + 1)); }
    capped_once() {  # capped_once NAME: controller --once under the cap; $err is its stderr
      (ulimit -v "$(address_cap "$ctl" 4194304)" && exec timeout 60 "$ctl" controller -n "$ns" --once) >"$tmp/out" 2>"$tmp/err"
      local rc=$?
      err=$(cat "$tmp/err")
      if [[ $rc -ne 0 ]]; then echo "FAIL $1: exit $rc"; echo "$err" | head -c 2000; failures=$((failures + 1)); fi
    }
    capped_once oversize-once
    has oversize-normal "$err" "$(line_re mnist)applied=[^ ]*jobset.jobset.x-k8s.io/mnist"
    api GET "$(jobset_path mnist)" >/dev/null || { echo "FAIL oversize-jobset: no JobSet for mnist"; failures=$((failures + 1)); }
    if api GET "$(jobset_path huge)" >/dev/null 2>&1; then echo "FAIL oversize: a JobSet for huge"; failures=$((failures + 1)); fi
    huge=$(api GET "/apis/trainer.kubeflow.org/v1alpha1/namespaces/$ns/trainjobs/huge" | tr -d '\n')
    has oversize-failed "$huge" '"status": *"True", *"type": *"Failed"'
    has oversize-reason "$huge" '"reason": *"TrainJobValidationFailed"'
    has oversize-message "$huge" 'spec.trainer.numNodes: Invalid value: 2147483647: must be no more than 100000'
    events=$(api GET "/apis/events.k8s.io/v1/namespaces/$ns/events" | tr -d '\n')
    has oversize-event "$events" '"reason": *"TrainJobValidationFailed"'
    has oversize-event-note "$events" 'TrainJob refused by admission: spec.trainer.numNodes: Invalid value: 2147483647'
    # Terminal: a second pass leaves it Failed and succeeds.
    capped_once oversize-again
    ;;
  oncefail)
    # The TrainJob's runtime exists nowhere: its reconcile fails, --once exits 1 and says why.
    run 0 apply -- apply -n "$ns" -f "$data/trainjob.yaml"
    run 1 oncefail -- controller -n "$ns" --once && {
      has oncefail-line "$err" "$(line_re mnist)applied=- .*error: .*torch-small.* not found"
    }
    if api GET "$(jobset_path mnist)" >/dev/null 2>&1; then
      echo "FAIL oncefail: a JobSet was created"; failures=$((failures + 1))
    fi
    ;;
  run)
    # The long-running mode: a TrainJob applied while it runs gets its JobSet; SIGTERM stops it.
    run 0 apply-runtime -- apply -n "$ns" -f "$data/runtime.yaml"
    "$ctl" controller -n "$ns" --workers 2 >"$tmp/ctl.out" 2>"$tmp/ctl.err" &
    pid=$! pids+=("$pid")
    wait_for "$tmp/ctl.err" 'controller started: TrainJobs in namespace'
    has run-rate "$(cat "$tmp/ctl.err")" 'controller started: .*, 2 workers, no request limit'
    run 0 apply-job -- apply -n "$ns" -f "$data/trainjob.yaml"
    wait_jobset mnist
    wait_for "$tmp/ctl.err" "$(line_re mnist)applied=[^ ]*jobset.jobset.x-k8s.io/mnist"
    stop_within "$pid" 30 && [[ $stopped_rc -ne 0 ]] && {
      echo "FAIL run-stop: exit $stopped_rc after SIGTERM, want 0"; cat "$tmp/ctl.err"; failures=$((failures + 1))
    }
    has run-signal "$(cat "$tmp/ctl.err")" 'received SIGTERM: stopping'
    has run-stopped "$(cat "$tmp/ctl.err")" 'controller stopped$'
    # SIGINT (Ctrl-C) stops it the same way.
    "$ctl" controller -n "$ns" --kube-api-qps 50 >"$tmp/ctl2.out" 2>"$tmp/ctl2.err" &
    pid=$! pids+=("$pid")
    wait_for "$tmp/ctl2.err" 'controller started: .*, 50 requests/s, burst 100'
    kill -INT "$pid"
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "FAIL run-sigint: still running 30 s after SIGINT"; failures=$((failures + 1))
    else
      wait "$pid"; rc=$?
      [[ $rc -eq 0 ]] || { echo "FAIL run-sigint: exit $rc"; cat "$tmp/ctl2.err"; failures=$((failures + 1)); }
    fi
    ;;
  metrics)
    run 0 apply -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    "$ctl" controller -n "$ns" --metrics-addr 127.0.0.1:0 >"$tmp/ctl.out" 2>"$tmp/ctl.err" &
    pid=$! pids+=("$pid")
    wait_for "$tmp/ctl.err" 'serving metrics on port [0-9]+'
    port=$(sed -n 's/.* serving metrics on port \([0-9]*\)$/\1/p' "$tmp/ctl.err")
    wait_for "$tmp/ctl.err" "$(line_re mnist)"
    metrics=$(curl -sS -i --max-time 10 "http://127.0.0.1:$port/metrics")
    has metrics-status "$metrics" '^HTTP/1.1 200 OK'
    has metrics-type "$metrics" '^Content-Type: text/plain; version=0.0.4'
    has metrics-reconciles "$metrics" '^trainer_reconcile_total [1-9][0-9]*'
    has metrics-errors "$metrics" '^trainer_reconcile_errors_total 0'
    has metrics-queue "$metrics" '^trainer_workqueue_depth [0-9]+'
    has metrics-latency "$metrics" '^trainer_reconcile_duration_seconds_count [1-9]'
    has metrics-leader "$metrics" '^trainer_leader 1'
    code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/other")
    [[ $code == 404 ]] || { echo "FAIL metrics-404: $code"; failures=$((failures + 1)); }
    code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -X POST "http://127.0.0.1:$port/metrics")
    [[ $code == 405 ]] || { echo "FAIL metrics-post: $code"; failures=$((failures + 1)); }
    # A request larger than a scrape (8 KiB of headers) is answered 431, as Go's net/http does,
    # and the connection closes (lib/serving's HttpsServer).
    big=$(head -c 9000 /dev/zero | tr '\0' a)
    code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -H "X-Big: $big" "http://127.0.0.1:$port/metrics" 2>/dev/null)
    [[ $code == 431 ]] || { echo "FAIL metrics-big-request: $code, want 431"; failures=$((failures + 1)); }
    # A client that connects and sends nothing holds nothing: the next scrape is answered.
    exec 3<>"/dev/tcp/127.0.0.1/$port"
    code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/metrics")
    [[ $code == 200 ]] || { echo "FAIL metrics-idle-client: $code"; failures=$((failures + 1)); }
    # ... and is closed by the server once the read bound (5 s) has passed: EOF, not our timeout.
    started=$SECONDS
    timeout 15 cat <&3 >/dev/null
    rc=$?
    [[ $rc -eq 0 && $((SECONDS - started)) -le 10 ]] ||
      { echo "FAIL metrics-read-bound: exit $rc after $((SECONDS - started)) s"; failures=$((failures + 1)); }
    exec 3>&-
    stop_within "$pid" 30 && [[ $stopped_rc -ne 0 ]] && {
      echo "FAIL metrics-stop: exit $stopped_rc"; failures=$((failures + 1))
    }
    # The port is closed with the controller.
    if curl -s -o /dev/null --max-time 5 "http://127.0.0.1:$port/metrics"; then
      echo "FAIL metrics-closed: still served after exit"; failures=$((failures + 1))
    fi
    ;;
  leader)
    # Two controllers with --leader-elect on one Lease (in the test's namespace): one writes;
    # when it stops it releases the Lease and the other takes over.
    # start_elected NAME: a background controller; its pid and metrics port in $started_pid and
    # $started_port.
    start_elected() {
      "$ctl" controller -n "$ns" --leader-elect --leader-election-namespace "$ns" \
        --leader-election-id "test-lease" --metrics-addr 127.0.0.1:0 >"$tmp/$1.out" 2>"$tmp/$1.err" &
      started_pid=$!
      pids+=("$started_pid")
      wait_for "$tmp/$1.err" 'serving metrics on port [0-9]+'
      started_port=$(sed -n 's/.* serving metrics on port \([0-9]*\)$/\1/p' "$tmp/$1.err")
    }
    leader_of() { curl -sS --max-time 10 "http://127.0.0.1:$1/metrics" | sed -n 's/^trainer_leader //p'; }
    # wait_leader PORT VALUE: until trainer_leader is VALUE, at most 40 s (a lease is 15 s).
    wait_leader() {
      for _ in $(seq 200); do [[ $(leader_of "$1") == "$2" ]] && return 0; sleep 0.2; done
      echo "FAIL: trainer_leader of :$1 never became $2"; failures=$((failures + 1)); return 1
    }
    start_elected a
    pid_a=$started_pid port_a=$started_port
    wait_leader "$port_a" 1
    lease=$(api GET "/apis/coordination.k8s.io/v1/namespaces/$ns/leases/test-lease" | tr -d ' \n')
    has leader-lease "$lease" '"holderIdentity":"[^"]+"'
    start_elected b
    pid_b=$started_pid port_b=$started_port
    wait_for "$tmp/b.err" 'controller started'
    sleep 3
    [[ $(leader_of "$port_b") == 0 ]] || { echo "FAIL leader-second: b leads while a holds the Lease"; failures=$((failures + 1)); }
    # The leader writes: a TrainJob gets its JobSet, reconciled by a only.
    run 0 apply -- apply -n "$ns" -f "$data/runtime.yaml" -f "$data/trainjob.yaml"
    wait_jobset mnist
    wait_for "$tmp/a.err" "$(line_re mnist)"
    if grep -qE "$(line_re mnist)" "$tmp/b.err"; then
      echo "FAIL leader-writer: the follower reconciled"; failures=$((failures + 1))
    fi
    stop_within "$pid_a" 30 && [[ $stopped_rc -ne 0 ]] && { echo "FAIL leader-stop-a: exit $stopped_rc"; failures=$((failures + 1)); }
    wait_leader "$port_b" 1
    wait_for "$tmp/b.err" "$(line_re mnist)"
    stop_within "$pid_b" 30 && [[ $stopped_rc -ne 0 ]] && { echo "FAIL leader-stop-b: exit $stopped_rc"; failures=$((failures + 1)); }
    ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
finish
