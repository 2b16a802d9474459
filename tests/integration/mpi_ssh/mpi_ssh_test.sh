#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# MPI over SSH with what libtrainer renders, against real OpenSSH and Open MPI, on loopback only.
#
#   mpi_ssh_test.sh CASE FIXTURE TRAINERCTL [MPI_HELLO]
#
#   keys      `trainerctl keygen` files: modes, ssh-keygen -y / -l agree with them; no overwrite;
#             the MPI plugin's Secret built from `--ssh-private-key` carries the same key pair
#   sshd      sshd (own host key and config, our public key as authorized_keys) accepts the
#             rendered Secret's private key and refuses another key
#   mpirun    mpirun with the rendered hostfile and launcher env starts every rank over SSH on
#             distinct loopback hosts 127.0.1.N (never 127.0.0.1, which Open MPI treats as local)
#   mpirun-launcher-as-node   same with runLauncherAsNode: the launcher's own line (127.0.0.1)
#             runs locally, the node's over SSH
#
# Every process started here is stopped on exit, also on failure; every wait is bounded.
set -euo pipefail

case_name=$1
fixture=$2
trainerctl=$3
mpi_hello=${4:-}

fail() { echo "FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || [[ -x $1 ]] || fail "$1 not found (scripts/setup installs openssh-server, openssh-client, openmpi-bin)"; }

SSHD=/usr/sbin/sshd
need "$SSHD"
need ssh
need ssh-keygen

tmp=$(mktemp -d /tmp/trainer-mpi-ssh.XXXXXX)
sshd_pid=
cleanup() {
  local rc=$?
  if [[ -n $sshd_pid ]] && kill -0 "$sshd_pid" 2>/dev/null; then
    kill "$sshd_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$sshd_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$sshd_pid" 2>/dev/null || true
  fi
  if [[ $rc -ne 0 && -f $tmp/sshd.log ]]; then
    echo "--- sshd log" >&2; tail -n 40 "$tmp/sshd.log" >&2 || true
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- helpers -------------------------------------------------------------------------------

keygen() { "$trainerctl" keygen -o "$1" >"$1/keygen.out"; }

# render OUT_DIR KEY SLOTS NODES [LAUNCHER_IP]
render() {
  local extra=()
  [[ -n ${5:-} ]] && extra=(--launcher-as-node "$5")
  "$fixture" render --ssh-private-key "$2" --out "$1" --slots "$3" --nodes "$4" "${extra[@]}"
}

# start_sshd AUTHORIZED_KEYS ADDR...: sshd -D on a free port of every ADDR; sets $port.
start_sshd() {
  local authorized=$1; shift
  ssh-keygen -q -t ed25519 -N '' -C '' -f "$tmp/host_ed25519"
  port=$("$fixture" free-port "$@")
  {
    echo "Port $port"
    for a in "$@"; do echo "ListenAddress $a"; done
    echo "HostKey $tmp/host_ed25519"
    echo "AuthorizedKeysFile $authorized"
    echo "PidFile $tmp/sshd.pid"
    echo "StrictModes no"
    echo "UsePAM no"
    echo "PermitRootLogin prohibit-password"
    echo "PubkeyAuthentication yes"
    echo "PasswordAuthentication no"
    echo "KbdInteractiveAuthentication no"
    echo "AllowTcpForwarding no"
    echo "X11Forwarding no"
    echo "PrintMotd no"
    echo "LogLevel VERBOSE"
  } >"$tmp/sshd_config"
  # sshd running as root needs its privilege separation directory (created by the Debian
  # package's service, which does not run in containers). Left in place: it is the standard one.
  if [[ $(id -u) -eq 0 && ! -d /run/sshd ]]; then mkdir -p -m 0755 /run/sshd; fi
  "$SSHD" -t -f "$tmp/sshd_config" || fail "sshd rejects the test configuration"
  "$SSHD" -D -e -f "$tmp/sshd_config" 2>"$tmp/sshd.log" &
  sshd_pid=$!
  local listening=0
  for _ in $(seq 100); do
    kill -0 "$sshd_pid" 2>/dev/null || fail "sshd exited: $(cat "$tmp/sshd.log")"
    listening=$(grep -c "Server listening on" "$tmp/sshd.log" || true)
    [[ $listening -ge $# ]] && return 0
    sleep 0.1
  done
  fail "sshd did not listen on $* within 10 s"
}

ssh_opts() {  # options shared by ssh and Open MPI's rsh launcher
  echo "-F /dev/null -p $port -i $1 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null" \
       "-o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none -o ConnectTimeout=10" \
       "-o LogLevel=ERROR"
}

# --- cases ---------------------------------------------------------------------------------

case_keys() {
  mkdir "$tmp/k"
  keygen "$tmp/k"
  local priv=$tmp/k/ssh-privatekey pub=$tmp/k/ssh-publickey
  [[ $(stat -c %a "$priv") == 600 ]] || fail "ssh-privatekey mode $(stat -c %a "$priv"), want 600"
  [[ $(stat -c %a "$pub") == 644 ]] || fail "ssh-publickey mode $(stat -c %a "$pub"), want 644"
  head -1 "$priv" | grep -qx -- '-----BEGIN EC PRIVATE KEY-----' || fail "private key is not SEC 1 PEM"
  [[ $(wc -l <"$pub") -eq 1 ]] || fail "public key is not one line"
  grep -qE '^ecdsa-sha2-nistp521 [A-Za-z0-9+/]+=*$' "$pub" || fail "public key line format"
  # OpenSSH derives the same public key from our private key...
  [[ $(ssh-keygen -y -f "$priv") == "$(cat "$pub")" ]] || fail "ssh-keygen -y differs from ssh-publickey"
  # ...and fingerprints both halves identically, as a 521-bit ECDSA key, matching ours.
  local fp_priv fp_pub ours
  fp_priv=$(ssh-keygen -l -f "$priv") || fail "ssh-keygen -l rejects the private key"
  fp_pub=$(ssh-keygen -l -f "$pub") || fail "ssh-keygen -l rejects the public key"
  [[ ${fp_priv%% no comment*} == "${fp_pub%% no comment*}" ]] || fail "fingerprints differ: $fp_priv / $fp_pub"
  [[ $fp_pub == "521 SHA256:"*"(ECDSA)" ]] || fail "unexpected ssh-keygen -l output: $fp_pub"
  ours=$(sed -n 's/^fingerprint: \(SHA256:[^ ]*\).*/\1/p' "$tmp/k/keygen.out")
  [[ $fp_pub == "521 $ours "* ]] || fail "keygen printed $ours, ssh-keygen says $fp_pub"
  # Never overwrite: a second keygen into the same directory fails and changes nothing.
  local before; before=$(sha256sum "$priv" "$pub")
  if "$trainerctl" keygen -o "$tmp/k" >"$tmp/k/again.out" 2>"$tmp/k/again.err"; then
    fail "keygen overwrote existing files"
  fi
  [[ $(sha256sum "$priv" "$pub") == "$before" ]] || fail "keygen changed existing files"
  grep -q "File exists" "$tmp/k/again.err" || fail "unexpected error: $(cat "$tmp/k/again.err")"
  # An existing public key alone also stops it before the private key is written.
  mkdir "$tmp/k2" && touch "$tmp/k2/ssh-publickey"
  if "$trainerctl" keygen -o "$tmp/k2" >/dev/null 2>&1; then fail "keygen overwrote ssh-publickey"; fi
  [[ ! -e $tmp/k2/ssh-privatekey ]] || fail "keygen left a private key behind after an error"
  # No key material in anything printed.
  local body; body=$(sed -n '2p' "$priv")
  if grep -qF -- "${body:0:24}" "$tmp/k/keygen.out" "$tmp/k/again.out" "$tmp/k/again.err"; then
    fail "key material printed"
  fi
  # --ssh-private-key: the plugin's Secret carries exactly this key pair.
  mkdir "$tmp/r"
  render "$tmp/r" "$priv" 1 127.0.1.2
  cmp -s "$tmp/r/id_rsa" "$priv" || fail "Secret ssh-privatekey differs from the given key"
  cmp -s "$tmp/r/authorized_keys" "$pub" || fail "Secret ssh-publickey differs from ssh-publickey"
  echo "keys: ok ($fp_pub)"
}

case_sshd() {
  mkdir "$tmp/k" "$tmp/r" "$tmp/other"
  keygen "$tmp/k"
  render "$tmp/r" "$tmp/k/ssh-privatekey" 1 127.0.1.2
  start_sshd "$tmp/r/authorized_keys" 127.0.0.1
  local out
  # shellcheck disable=SC2046
  out=$(timeout 30 ssh $(ssh_opts "$tmp/r/id_rsa") 127.0.0.1 'echo "login-ok $(id -un)"') ||
    fail "ssh with the rendered key failed"
  [[ $out == "login-ok $(id -un)" ]] || fail "unexpected remote output: $out"
  grep -q "Accepted publickey for $(id -un) from 127.0.0.1" "$tmp/sshd.log" || fail "sshd did not log the login"
  grep -q "ECDSA SHA256:" "$tmp/sshd.log" || fail "sshd did not log an ECDSA key"
  # Another key pair is refused: authorized_keys is what grants access.
  keygen "$tmp/other"
  # shellcheck disable=SC2046
  if timeout 30 ssh $(ssh_opts "$tmp/other/ssh-privatekey") 127.0.0.1 true 2>/dev/null; then
    fail "sshd accepted a key that is not in authorized_keys"
  fi
  echo "sshd: ok (port $port)"
}

# run_mpirun SLOTS NODES [LAUNCHER_IP]: renders, starts sshd on every node address, runs
# mpi_hello under the rendered env; leaves the report in $tmp/mpirun.out.
run_mpirun() {
  local slots=$1 nodes=$2 launcher=${3:-}
  [[ -x $mpi_hello ]] || fail "MPI test program missing"
  need mpirun
  mkdir "$tmp/k" "$tmp/r"
  keygen "$tmp/k"
  render "$tmp/r" "$tmp/k/ssh-privatekey" "$slots" "$nodes" "$launcher"
  # shellcheck disable=SC2086
  start_sshd "$tmp/r/authorized_keys" ${nodes//,/ }

  # The launcher container's env as rendered; the hostfile is where the ConfigMap would be
  # mounted (/etc/mpi/hostfile in a pod, the temp dir here) and the rsh args gain the test's
  # port and key (in a pod: port 22 and the key mounted at sshAuthMountPath).
  local env_args=() name value
  while IFS='=' read -r name value; do
    case $name in
      OMPI_MCA_orte_default_hostfile)
        [[ $value == /etc/mpi/hostfile ]] || fail "rendered hostfile path $value"
        value=$tmp/r/hostfile ;;
      OMPI_MCA_plm_rsh_args) value="$value $(ssh_opts "$tmp/r/id_rsa")" ;;
    esac
    env_args+=("$name=$value")
  done <"$tmp/r/launcher.env"
  [[ ${#env_args[@]} -eq 4 ]] || fail "expected the four OMPI_MCA_* variables, got ${#env_args[@]}"
  local prefix; prefix=$(dirname "$(dirname "$(command -v orted || command -v mpirun)")")
  local root_flag=(); [[ $(id -u) -eq 0 ]] && root_flag=(--allow-run-as-root)
  # ssh does not carry the environment: the sanitizer settings of an ASan test run reach the
  # remote ranks through mpirun -x.
  local forward=() var
  for var in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS OMPI_MCA_mca_base_component_disable_dlclose; do
    [[ -n ${!var:-} ]] && forward+=(-x "$var")
  done
  echo "hostfile:"; cat "$tmp/r/hostfile"
  # Transport between ranks: TCP on loopback only. The shared-memory BTL (vader) is left out:
  # the "hosts" share one kernel, and vader's per-node segments crash when two orteds on one
  # machine each believe they are a separate node.
  env "${env_args[@]}" OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo \
      OMPI_MCA_btl=self,tcp OMPI_MCA_plm_rsh_no_tree_spawn=1 \
    timeout 120 mpirun "${root_flag[@]}" "${forward[@]}" --oversubscribe --prefix "$prefix" \
      "$mpi_hello" >"$tmp/mpirun.out" 2>"$tmp/mpirun.err" ||
    fail "mpirun failed: $(cat "$tmp/mpirun.out" "$tmp/mpirun.err")"
  cat "$tmp/mpirun.out"
}

# expect_rank RANK SIZE VIA
expect_rank() {
  grep -qE "^rank=$1 size=$2 host=[^ ]+ ssh=$3\$" "$tmp/mpirun.out" ||
    fail "rank $1 did not report in via $3: $(cat "$tmp/mpirun.out")"
}

case_mpirun() {
  run_mpirun 2 127.0.1.2,127.0.1.3
  [[ $(cat "$tmp/r/hostfile") == $'127.0.1.2 slots=2\n127.0.1.3 slots=2' ]] || fail "rendered hostfile"
  [[ $(grep -c '^rank=' "$tmp/mpirun.out") -eq 4 ]] || fail "expected 4 ranks (2 hosts x 2 slots)"
  expect_rank 0 4 "127.0.1.2:$port"
  expect_rank 1 4 "127.0.1.2:$port"
  expect_rank 2 4 "127.0.1.3:$port"
  expect_rank 3 4 "127.0.1.3:$port"
  grep -qx "allreduce rank_sum=6 expected=6" "$tmp/mpirun.out" || fail "all-reduce"
  [[ $(grep -c "Accepted publickey" "$tmp/sshd.log") -ge 2 ]] || fail "sshd saw fewer than 2 logins"
  echo "mpirun: ok"
}

case_mpirun_launcher_as_node() {
  run_mpirun 1 127.0.1.2 127.0.0.1
  [[ $(cat "$tmp/r/hostfile") == $'127.0.1.2 slots=1\n127.0.0.1 slots=1' ]] || fail "rendered hostfile"
  [[ $(grep -c '^rank=' "$tmp/mpirun.out") -eq 2 ]] || fail "expected 2 ranks"
  grep -qE "^rank=[01] size=2 host=[^ ]+ ssh=127.0.1.2:$port\$" "$tmp/mpirun.out" || fail "no rank over SSH"
  grep -qE "^rank=[01] size=2 host=[^ ]+ ssh=local\$" "$tmp/mpirun.out" || fail "no local (launcher) rank"
  grep -qx "allreduce rank_sum=1 expected=1" "$tmp/mpirun.out" || fail "all-reduce"
  echo "mpirun-launcher-as-node: ok"
}

case $case_name in
  keys) case_keys ;;
  sshd) case_sshd ;;
  mpirun) case_mpirun ;;
  mpirun-launcher-as-node) case_mpirun_launcher_as_node ;;
  *) fail "unknown case $case_name" ;;
esac
