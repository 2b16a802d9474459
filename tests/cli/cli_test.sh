#!/usr/bin/env bash
# trainerctl's command-line contract: exit codes, stdout/stderr contents, warnings, error lines.
# Usage: cli_test.sh <trainerctl> <source-dir> [<trainer-pod>]
set -uo pipefail
ctl=$1 src=$2 pod_helper=${3:-}
ex=$src/examples/torch-distributed
data=$src/tests/cli/data
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
failures=0

# run <expected-exit> <name> -- args...: runs trainerctl, keeps stdout/stderr in $out/$err.
run() {
  local want=$1 name=$2
  shift 3
  "$ctl" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  out=$(cat "$tmp/out") err=$(cat "$tmp/err")
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, want $want"; echo "stdout: $out"; echo "stderr: $err"
    failures=$((failures + 1))
    return 1
  fi
  return 0
}
# has <name> <haystack> <needle>: fixed-string containment.
has() {
  if ! grep -qF -- "$3" <<<"$2"; then
    echo "FAIL $1: missing [$3] in:"; echo "$2"; failures=$((failures + 1))
  fi
}
empty() {
  if [[ -n $2 ]]; then echo "FAIL $1: expected nothing, got: $2"; failures=$((failures + 1)); fi
}

run 0 version -- version && has version "$out" "trainerctl 0.1.0 (libtrainer 0.1.0"
# cobra's --version: what `version` prints.
run 0 dash-version -- --version && [[ $out == "$("$ctl" version)" ]] ||
  { echo "FAIL dash-version: [$out]"; failures=$((failures + 1)); }
run 2 no-command -- && has no-command "$err" "usage: trainerctl"
run 2 unknown-command -- frobnicate && has unknown-command "$err" 'unknown command "frobnicate"'
run 2 version-extra -- version extra

run 0 valid -- validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" && empty valid-out "$out" && empty valid-err "$err"
run 0 valid-reversed -- validate -f "$ex/trainjob.yaml" -f "$ex/runtime.yaml"
run 0 valid-yaml -- validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o yaml && {
  has valid-yaml "$out" "kind: TrainJob"
  has valid-yaml "$out" "managedBy: trainer.kubeflow.org/trainjob-controller"
  has valid-yaml "$out" "kind: ClusterTrainingRuntime"
  has valid-yaml "$out" "---"
}
run 0 valid-json -- validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o json && {
  has valid-json "$out" '"kind": "List"'
  has valid-json "$out" '"suspend": false'
}
# The JSON List printed above is itself valid input.
"$ctl" validate -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o json >"$tmp/list.json"
run 0 list-roundtrip -- validate -f "$tmp/list.json"
run 0 stdin -- validate -f - <"$ex/trainjob.yaml" &&
  has stdin-unchecked "$err" 'Warning: TrainJob default/mnist-ddp references ClusterTrainingRuntime "torch-distributed", which is not among the inputs: the TrainJob was not checked against it'
# A TrainingRuntime of that name only in another namespace: refused, as the API server would.
elsewhere=$src/tests/golden/cases/64-invalid-runtime-in-other-namespace
run 1 runtime-elsewhere -- validate -f "$elsewhere/runtime.yaml" -f "$elsewhere/trainjob.yaml" && {
  has runtime-elsewhere "$err" 'spec.runtimeRef: Invalid value: {"name":"plain","apiGroup":"trainer.kubeflow.org","kind":"TrainingRuntime"}: trainingruntimes.trainer.kubeflow.org "plain" not found'
  has runtime-elsewhere-hint "$err" 'Warning: TrainJob team-a/lost references TrainingRuntime "plain" in namespace "team-a", which is not among the inputs (a TrainingRuntime of that name is in namespace "team-b"'
}

run 2 no-files -- validate && has no-files "$err" "at least one -f FILE"
run 2 bad-flag -- validate -f "$ex/trainjob.yaml" --bogus && has bad-flag "$err" 'unknown flag: --bogus'
run 2 bad-output -- validate -f "$ex/trainjob.yaml" -o xml && has bad-output "$err" 'invalid argument "xml" for "-o, --output" flag: must be yaml or json'
run 1 missing-file -- validate -f "$tmp/nope.yaml" && has missing-file "$err" "nope.yaml: cannot open"
run 1 broken-yaml -- validate -f "$data/broken.yaml" && has broken-yaml "$err" "broken.yaml"

run 1 invalid -- validate -f "$data/invalid-trainjob.yaml" && {
  has invalid "$err" "spec.trainer.numProcPerNode: Invalid value: 0: numProcPerNode must be greater than or equal to 1"
  has invalid "$err" "metadata.name must match RFC 1035 DNS label format"
  has invalid "$err" "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set"
  has invalid "$err" "spec.trainer.numNodes"
  empty invalid-out "$out"
  lines=$(grep -c . <<<"$err")
  [[ $lines -ge 4 ]] || { echo "FAIL invalid: want >= 4 error lines, got $lines"; failures=$((failures + 1)); }
}
run 0 unknown-field -- validate -f "$data/unknown-field.yaml" && has unknown-field "$err" 'Warning: unknown field "spec.trainer.numNode"'
run 0 deprecated -- validate -f "$data/deprecated-runtime.yaml" && {
  has deprecated "$err" 'Warning: ClusterTrainingRuntime "old-torch" is deprecated'
  has deprecated "$err" 'Warning: Referenced ClusterTrainingRuntime "old-torch" is deprecated'
}
run 1 unsupported-runtime -- validate -f "$data/unsupported-runtime.yaml" && has unsupported-runtime "$err" "unsupported runtime: MyRuntime.example.com"

# render: the objects the controller would create, or nothing on stdout when rejected.
uid=0c4fd9c2-1111-4222-8333-944455556666
run 0 render -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" --uid "$uid" && {
  has render "$out" "kind: JobSet"
  has render "$out" "name: mnist-ddp-runtime-snapshot"
  has render "$out" "uid: $uid"
  has render "$out" "PET_NPROC_PER_NODE"
  empty render-err "$err"
}
run 0 render-json -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -o json && {
  has render-json "$out" '"kind": "List"'
  has render-json "$out" '"kind": "JobSet"'
}
run 0 render-namespace -- render -f "$ex/runtime.yaml" -f - --namespace team-a < <(sed '/namespace: default/d' "$ex/trainjob.yaml") && has render-namespace "$out" "namespace: team-a"
run 1 render-invalid -- render -f "$ex/runtime.yaml" -f "$data/invalid-trainjob.yaml" && {
  empty render-invalid-out "$out"
  has render-invalid "$err" "spec.trainer.numProcPerNode: Invalid value: 0"
}
run 1 render-no-runtime -- render -f "$ex/trainjob.yaml" && {
  empty render-no-runtime-out "$out"
  # Upstream's webhook error first, then what was looked for and the flag that finds it.
  has render-no-runtime "$err" 'spec.RuntimeRef: Invalid value: {"name":"torch-distributed","apiGroup":"trainer.kubeflow.org","kind":"ClusterTrainingRuntime"}: clustertrainingruntimes.trainer.kubeflow.org "torch-distributed" not found'
  has render-no-runtime "$err" 'error: clustertrainingruntimes.trainer.kubeflow.org "torch-distributed" not found: TrainJob default/mnist-ddp references'
  has render-no-runtime "$err" '"torch-distributed" is a built-in ClusterTrainingRuntime of libtrainer: add --builtin-runtimes'
}
run 0 validate-no-runtime -- validate -f "$ex/trainjob.yaml" && has validate-no-runtime "$err" '"torch-distributed" is a built-in ClusterTrainingRuntime of libtrainer: add --builtin-runtimes'
run 1 render-own-runtime-missing -- render -f - < <(sed 's/name: torch-distributed/name: my-runtime/' "$ex/trainjob.yaml") && {
  has render-own-runtime-missing "$err" 'clustertrainingruntimes.trainer.kubeflow.org "my-runtime" not found'
  [[ $err != *built-in* ]] || { echo "FAIL render-own-runtime-missing: hint for a runtime that is not built in: $err"; failures=$((failures + 1)); }
}
run 1 render-two-jobs -- render -f "$ex/runtime.yaml" -f "$ex/trainjob.yaml" -f "$data/unknown-field.yaml" && empty render-two-jobs-out "$out"
run 0 render-managed-elsewhere -- render -f "$ex/runtime.yaml" -f "$data/multikueue.yaml" && {
  empty render-managed-out "$out"
  has render-managed-elsewhere "$err" "kueue.x-k8s.io/multikueue"
}
# Built-in ClusterTrainingRuntimes: listed, printed, and used by render/validate on request.
run 0 runtimes -- runtimes && {
  has runtimes "$out" "torch-distributed"
  has runtimes "$out" "deepspeed-distributed"
}
run 0 runtimes-one -- runtimes deepspeed-distributed && has runtimes-one "$out" "kind: ClusterTrainingRuntime"
run 1 runtimes-unknown -- runtimes no-such && has runtimes-unknown "$err" 'no built-in runtime "no-such"'
run 2 runtimes-two -- runtimes a b
run 0 render-builtin -- render -f "$ex/trainjob.yaml" --builtin-runtimes && {
  has render-builtin "$out" "kind: JobSet"
  has render-builtin "$out" "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"
}
run 0 validate-builtin -- validate -f "$ex/trainjob.yaml" --builtin-runtimes && empty validate-builtin-err "$err"
# keygen: a key pair render --ssh-private-key accepts; never overwrites.
run 0 keygen -- keygen -o "$tmp/keys" && {
  [[ $(stat -c %a "$tmp/keys/ssh-privatekey") == 600 ]] || { echo "FAIL keygen: private key mode"; failures=$((failures + 1)); }
  has keygen "$(cat "$tmp/keys/ssh-publickey")" "ecdsa-sha2-nistp521 "
}
run 1 keygen-exists -- keygen -o "$tmp/keys"
run 0 render-with-key -- render -f "$src/examples/ddp/trainjob.yaml" --builtin-runtimes --ssh-private-key "$tmp/keys/ssh-privatekey" -o json && {
  has render-with-key "$out" "$(base64 -w0 <"$tmp/keys/ssh-publickey")"
}
run 2 render-no-files -- render
run 2 render-bad-output -- render -f "$ex/trainjob.yaml" -o table
# --feature-gates: upstream's syntax; TrainJobStatus wires the status server into the pods.
gate_case="$src/tests/golden/cases/79-trainjobstatus-gate-on"
run 0 render-gate-on -- render -f "$gate_case/preconditions.yaml" -f "$gate_case/runtime.yaml" -f "$gate_case/trainjob.yaml" --feature-gates TrainJobStatus=true && {
  has render-gate-on "$out" "KUBEFLOW_TRAINER_SERVER_URL"
  has render-gate-on "$out" "name: test-job-tls-config"
}
run 0 render-gate-off -- render -f "$gate_case/preconditions.yaml" -f "$gate_case/runtime.yaml" -f "$gate_case/trainjob.yaml" && {
  [[ $out != *KUBEFLOW_TRAINER_SERVER_URL* ]] || { echo "FAIL render-gate-off: status server env without the gate"; failures=$((failures + 1)); }
}
run 2 render-bad-gate -- render -f "$ex/trainjob.yaml" --feature-gates Nope=true && has render-bad-gate "$err" 'unrecognized feature gate "Nope"'

# --- The argument parser (tools/trainerctl/flags.hpp): kubectl's (pflag's) syntax everywhere. ---
both=(-f "$ex/runtime.yaml" -f "$ex/trainjob.yaml")
# --flag=value and the shorthand forms, on every command that takes a value flag.
run 0 eq-validate -- validate --filename="$ex/runtime.yaml" -f="$ex/trainjob.yaml" --output=json && has eq-validate "$out" '"kind": "List"'
run 0 eq-validate-fvalue -- validate "-f$ex/runtime.yaml" -f "$ex/trainjob.yaml" -oyaml && has eq-validate-fvalue "$out" "kind: TrainJob"
run 0 eq-validate-o -- validate "${both[@]}" -o=json && has eq-validate-o "$out" '"kind": "List"'
run 0 comma-list -- validate --filename="$ex/runtime.yaml,$ex/trainjob.yaml" -o json && {
  has comma-list "$out" '"kind": "ClusterTrainingRuntime"'
  has comma-list "$out" '"kind": "TrainJob"'
}
run 0 eq-render -- render --filename="$ex/runtime.yaml" --filename "$ex/trainjob.yaml" --uid="$uid" --output=json && {
  has eq-render "$out" "\"uid\": \"$uid\""
  has eq-render "$out" '"kind": "JobSet"'
}
run 0 eq-render-namespace -- render -f "$ex/runtime.yaml" -f - --namespace=team-b < <(sed '/namespace: default/d' "$ex/trainjob.yaml") && has eq-render-namespace "$out" "namespace: team-b"
run 0 eq-render-n -- render -f "$ex/runtime.yaml" -f - -n=team-c < <(sed '/namespace: default/d' "$ex/trainjob.yaml") && has eq-render-n "$out" "namespace: team-c"
run 0 eq-render-key -- render -f "$src/examples/ddp/trainjob.yaml" --builtin-runtimes --ssh-private-key="$tmp/keys/ssh-privatekey" -o json && {
  has eq-render-key "$out" "$(base64 -w0 <"$tmp/keys/ssh-publickey")"
}
run 0 eq-render-gates -- render -f "$gate_case/preconditions.yaml" -f "$gate_case/runtime.yaml" -f "$gate_case/trainjob.yaml" --feature-gates=TrainJobStatus=true && has eq-render-gates "$out" "KUBEFLOW_TRAINER_SERVER_URL"
run 0 repeated-gates -- render -f "$gate_case/preconditions.yaml" -f "$gate_case/runtime.yaml" -f "$gate_case/trainjob.yaml" --feature-gates TrainJobStatus=false --feature-gates=TrainJobStatus=true && has repeated-gates "$out" "KUBEFLOW_TRAINER_SERVER_URL"
run 0 eq-keygen -- keygen --output-dir="$tmp/keys2" && [[ -s $tmp/keys2/ssh-privatekey ]] || { echo "FAIL eq-keygen: no key in $tmp/keys2"; failures=$((failures + 1)); }
run 0 eq-keygen-o -- keygen -o="$tmp/keys3" && [[ -s $tmp/keys3/ssh-publickey ]] || { echo "FAIL eq-keygen-o: no key in $tmp/keys3"; failures=$((failures + 1)); }
run 2 keygen-empty -- keygen --output-dir= && has keygen-empty "$err" "-o needs a directory"
run 2 eq-run-isolation -- run -f "$data/echo-job.yaml" --isolation=bogus && has eq-run-isolation "$err" 'invalid argument "bogus" for "--isolation" flag: must be auto, namespaces or host'
run 1 eq-run-helper -- run -f "$data/echo-job.yaml" --isolation=host --run-dir="$tmp/run-nohelper" --pod-helper="$tmp/no-such-helper" && has eq-run-helper "$err" "$tmp/no-such-helper"
mkdir -p "$tmp/run-exists" && touch "$tmp/run-exists/state.json"
run 1 eq-run-dir -- run -f "$data/echo-job.yaml" --isolation=host --run-dir="$tmp/run-exists" && has eq-run-dir "$err" "$tmp/run-exists"
if [[ -n $pod_helper ]]; then
  # A real local run with every value flag in its = form; status and logs read it back.
  if run 0 eq-run -- run --filename="$data/echo-job.yaml" --namespace=team-cli --isolation=host --run-dir="$tmp/run" --uid="$uid" --pod-helper="$pod_helper"; then
    has eq-run "$out" "[node-0-0] hello-from-echo"
    run 0 eq-status -- status "$tmp/run" --output=json && {
      has eq-status "$out" '"namespace":"team-cli"'
      has eq-status "$out" '"phase":"Complete"'
    }
    run 0 eq-status-o -- status -o=json "$tmp/run" && has eq-status-o "$out" '"phase":"Complete"'
    run 2 status-bad-output -- status "$tmp/run" --output=yaml && has status-bad-output "$err" 'must be json'
    run 0 logs-dashdash -- logs -- "$tmp/run" node-0-0 && has logs-dashdash "$out" "hello-from-echo"
  fi
fi
# Boolean flags: --x, --x=true|false (Go's ParseBool spellings), never a separate value word.
run 0 bool-true -- render -f "$ex/trainjob.yaml" --builtin-runtimes=true && has bool-true "$out" "kind: JobSet"
run 0 bool-True -- render -f "$ex/trainjob.yaml" --builtin-runtimes=True && has bool-True "$out" "kind: JobSet"
run 0 bool-1 -- render -f "$ex/trainjob.yaml" --builtin-runtimes=1 && has bool-1 "$out" "kind: JobSet"
run 1 bool-false -- render -f "$ex/trainjob.yaml" --builtin-runtimes=false && empty bool-false-out "$out"
run 1 bool-last-wins -- render -f "$ex/trainjob.yaml" --builtin-runtimes --builtin-runtimes=false
run 2 bool-bad -- render -f "$ex/trainjob.yaml" --builtin-runtimes=yes && has bool-bad "$err" 'invalid argument "yes" for "--builtin-runtimes" flag: must be true or false'
run 2 bool-no-word -- render -f "$ex/trainjob.yaml" --builtin-runtimes false && has bool-no-word "$err" 'unexpected argument "false"'
# Flags may follow or precede positional arguments; `--` ends the flags; a lone - is stdin.
run 0 interspersed -- runtimes torch-distributed && has interspersed "$out" "name: torch-distributed"
run 1 dashdash -- runtimes -- --help && has dashdash "$err" 'no built-in runtime "--help"'
run 0 stdin-eq -- validate --filename=- <"$ex/trainjob.yaml"
run 2 dashdash-validate -- validate -- -f "$ex/trainjob.yaml" && has dashdash-validate "$err" 'at least one -f FILE is required'
# Missing values, unknown flags and extra arguments: exit 2 with the reason.
run 2 missing-value -- render -f && has missing-value "$err" "flag needs an argument: 'f' in -f"
run 2 missing-value-long -- render -f "$ex/trainjob.yaml" --uid && has missing-value-long "$err" "flag needs an argument: --uid"
run 2 missing-value-run -- run -f "$data/echo-job.yaml" --run-dir && has missing-value-run "$err" "flag needs an argument: --run-dir"
run 2 unknown-short -- render -f "$ex/trainjob.yaml" -x && has unknown-short "$err" "unknown shorthand flag: 'x' in -x"
run 2 extra-positional -- validate -f "$ex/trainjob.yaml" extra.yaml && has extra-positional "$err" 'unexpected argument "extra.yaml"'
run 2 status-no-dir -- status && has status-no-dir "$err" "RUN_DIR is required"
run 2 logs-three -- logs a b c && has logs-three "$err" 'unexpected argument "c"'
run 2 bad-syntax -- validate ---f x && has bad-syntax "$err" "bad flag syntax: ---f"
has usage-hint "$err" "See 'trainerctl validate --help' for usage."
# Typos: cobra's suggestion for commands (distance <= 2 or a prefix), the same for flags.
run 2 typo-command -- rendr -f x && {
  has typo-command "$err" 'error: unknown command "rendr" for "trainerctl"'
  has typo-command "$err" "$(printf 'Did you mean this?\n\trender\n')"
}
run 2 prefix-command -- val && has prefix-command "$err" "$(printf '\tvalidate')"
run 2 typo-none -- frobnicate && [[ $err != *"Did you mean"* ]] || { echo "FAIL typo-none: suggested for frobnicate: $err"; failures=$((failures + 1)); }
# Only close names: `edit` is two edits from `wait` (cobra would offer it); a swap is one edit.
run 2 typo-far -- edit && [[ $err != *"Did you mean"* ]] || { echo "FAIL typo-far: suggested for edit: $err"; failures=$((failures + 1)); }
run 2 typo-swap -- gte && has typo-swap "$err" "$(printf 'Did you mean this?\n\tget\n')"
run 2 typo-flag -- render -f "$ex/trainjob.yaml" --buitin-runtimes && {
  has typo-flag "$err" "unknown flag: --buitin-runtimes"
  has typo-flag "$err" "$(printf 'Did you mean this?\n\t--builtin-runtimes')"
}
run 2 prefix-flag -- validate --file "$ex/trainjob.yaml" && has prefix-flag "$err" "$(printf '\t--filename')"
run 2 single-dash-long -- render -f "$ex/trainjob.yaml" -uid x && {
  has single-dash-long "$err" "unknown shorthand flag: 'u' in -uid"
  has single-dash-long "$err" "$(printf '\t--uid')"
}
# Per-command --help (and -h, and `help COMMAND`), generated from the same flag table.
for cmd in version validate render run status logs runtimes keygen; do
  run 0 "help-$cmd" -- "$cmd" --help && {
    has "help-$cmd" "$out" "usage: trainerctl $cmd"
    has "help-$cmd" "$out" "-h, --help"
    empty "help-$cmd-err" "$err"
  }
  run 0 "h-$cmd" -- "$cmd" -h && has "h-$cmd" "$out" "usage: trainerctl $cmd"
done
run 0 help-render-flags -- render --help && {
  for flag in "-f, --filename FILE" "--uid UID" "-n, --namespace NS" "--ssh-private-key FILE" "--builtin-runtimes" "--feature-gates NAME=BOOL,..." "-o, --output yaml|json"; do
    has help-render-flags "$out" "$flag"
  done
}
run 0 help-run-flags -- run --help && {
  for flag in "--run-dir DIR" "--isolation auto|namespaces|host" "--pod-helper PATH" "(default: auto)"; do
    has help-run-flags "$out" "$flag"
  done
}
run 0 help-command -- help status && has help-command "$out" "usage: trainerctl status RUN_DIR [-o json|wide]"
run 0 help-top -- --help && has help-top "$out" "keygen"
run 2 help-unknown -- help rendr && has help-unknown "$err" "$(printf '\trender')"

# Shell completion, generated from the tables --help prints. bash: the script loads and
# completes commands, flags, flag values and positional arguments.
run 0 completion-bash -- completion bash && printf '%s\n' "$out" >"$tmp/completion.bash"
run 2 completion-bad-shell -- completion tcsh && has completion-bad-shell "$err" 'invalid argument "tcsh" for SHELL: must be bash, zsh or fish'
# complete WORDS...: what the bash script offers for the last word.
complete_bash() {
  bash --norc --noprofile -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _trainerctl; printf "%s\n" "${COMPREPLY[@]}"' _ "$tmp/completion.bash" "$@" 2>&1 | sort | tr '\n' ' '
}
same_text() { [[ $2 == "$3" ]] || { echo "FAIL $1: got [$2], want [$3]"; failures=$((failures + 1)); }; }
same_text complete-command "$(complete_bash trainerctl ge)" "get "
same_text complete-commands "$(complete_bash trainerctl de)" "delete describe "
same_text complete-flag "$(complete_bash trainerctl get --no-h)" "--no-headers "
same_text complete-flag-value "$(complete_bash trainerctl get -o j)" "json jsonpath= "
same_text complete-flag-value-eq "$(complete_bash trainerctl get --output = y)" "yaml "
same_text complete-positional "$(complete_bash trainerctl completion '')" "bash fish zsh "
same_text complete-after-value "$(complete_bash trainerctl get -o name trainj)" "trainjobs "
same_text complete-help "$(complete_bash trainerctl help comp)" "completion "
# Every command's flags in --help are what the script completes after `--`, and no others.
mapfile -t all_commands < <("$ctl" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for cmd in "${all_commands[@]}"; do
  want=$("$ctl" "$cmd" --help | awk '/^Flags:/ { on = 1; next } on && /^$/ { exit } on { print }' |
    grep -oE -- '--[a-z0-9-]+' | sort -u | tr '\n' ' ')
  same_text "complete-flags-$cmd" "$(complete_bash trainerctl "$cmd" --)" "$want"
done
# zsh and fish: loaded by the shells themselves where they are installed.
run 0 completion-zsh -- completion zsh && printf '%s\n' "$out" >"$tmp/completion.zsh"
run 0 completion-fish -- completion fish && printf '%s\n' "$out" >"$tmp/completion.fish"
if command -v zsh >/dev/null; then
  zsh -f -c 'autoload -U compinit && compinit -u -d "$2" && source "$1" &&
    (( $+functions[_trainerctl] )) && [[ $_comps[trainerctl] == _trainerctl ]]' _ \
    "$tmp/completion.zsh" "$tmp/zcompdump" || { echo "FAIL completion-zsh: the script does not load"; failures=$((failures + 1)); }
else
  echo "SKIP completion-zsh: zsh is not installed"
fi
if command -v fish >/dev/null; then
  got=$(fish --no-config -c 'source $argv[1]; complete -C "trainerctl get --no-h"; complete -C "trainerctl comp"' "$tmp/completion.fish" 2>&1 | cut -f1 | tr '\n' ' ')
  same_text completion-fish-complete "$got" "--no-headers completion "
else
  echo "SKIP completion-fish: fish is not installed"
fi

if ((failures)); then echo "cli_test: $failures failure(s)"; exit 1; fi
echo "cli_test: all passed"
