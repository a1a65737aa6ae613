# shellcheck shell=bash
# Shared by the testenv/prometheus scripts; sourced, never run.
#
# Layout (git-ignored):
#   testenv/.run/prometheus/   prometheus.yml, data/ (TSDB), prometheus.log, pid, port, env

set -euo pipefail

PROM_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TESTENV_DIR="$(cd "$PROM_SCRIPTS_DIR/.." && pwd)"
PROM_RUN_DIR="${PROM_RUN_DIR:-$TESTENV_DIR/.run/prometheus}"
PROM_BIN="${PROM_BIN:-/usr/bin/prometheus}"
PROM_CONFIG="$PROM_RUN_DIR/prometheus.yml"
PROM_DATA="$PROM_RUN_DIR/data"
PROM_LOG="$PROM_RUN_DIR/prometheus.log"
PROM_PID_FILE="$PROM_RUN_DIR/pid"
PROM_PORT_FILE="$PROM_RUN_DIR/port"
PROM_ENV_FILE="$PROM_RUN_DIR/env"

log() { printf '[prometheus %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=../proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../proc.sh"

# with_lock takes an exclusive lock for the rest of the script, so concurrent test binaries do
# not start two servers.
with_lock() {
  mkdir -p "$PROM_RUN_DIR"
  exec {lockfd}>"$PROM_RUN_DIR/.lock"
  flock -w "${PROM_LOCK_TIMEOUT:-300}" "$lockfd" ||
    die "timed out waiting for $PROM_RUN_DIR/.lock (another start/stop still running?)"
}

# close_lock_fds closes our lock descriptor in the daemon, or the next start.sh would wait for
# the daemon to exit.
close_lock_fds() {
  local f target
  for f in /proc/"$BASHPID"/fd/*; do
    target="$(readlink "$f" 2>/dev/null || true)"
    [[ "$target" == "$PROM_RUN_DIR/.lock" ]] && eval "exec ${f##*/}>&-"
  done
  return 0
}

# running_pid prints the pid of our server if the recorded process is alive and really is ours
# (the prometheus binary with our config file on its command line): a recycled pid or a system
# prometheus is never reported, so stop.sh never kills a stranger.
running_pid() {
  local pid cmd
  [[ -f "$PROM_PID_FILE" ]] || return 1
  pid="$(cat "$PROM_PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmd" == *prometheus* && "$cmd" == *"--config.file=$PROM_CONFIG"* ]] || return 1
  echo "$pid"
}

# ours reports whether the server answering on PORT is the one we started: its TSDB path is our
# data dir. A Debian system service or anything else on that port is never taken for ours.
ours() {
  local port="$1" path
  path="$(curl -sf --max-time 2 "http://127.0.0.1:$port/api/v1/status/flags" 2>/dev/null |
    jq -r '.data."storage.tsdb.path" // empty' 2>/dev/null)" || return 1
  [[ "${path%/}" == "${PROM_DATA%/}" ]]
}

tail_log() {
  [[ -s "$PROM_LOG" ]] || return 0
  echo "----- tail -n ${1:-30} $PROM_LOG" >&2
  tail -n "${1:-30}" "$PROM_LOG" >&2
}
