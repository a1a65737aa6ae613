# shellcheck shell=bash
# Shared by the testenv/seatunnel scripts; sourced, never run.
#
# Layout (all git-ignored):
#   testenv/.cache/seatunnel/lib-<version>-<pomhash>/   the node's jars, resolved by Maven (kept across runs)
#   testenv/.run/seatunnel/                             one node: home/ (config, log), node.pid, ports, env, jobs/

set -euo pipefail

SEATUNNEL_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TESTENV_DIR="$(cd "$SEATUNNEL_SCRIPTS_DIR/.." && pwd)"
SEATUNNEL_POM="$SEATUNNEL_SCRIPTS_DIR/pom.xml"
# The version is pinned in pom.xml; read it so there is one place to change it.
SEATUNNEL_VERSION="$(sed -n 's:.*<seatunnel.version>\(.*\)</seatunnel.version>.*:\1:p' "$SEATUNNEL_POM")"
SEATUNNEL_CACHE_DIR="${SEATUNNEL_CACHE_DIR:-$TESTENV_DIR/.cache/seatunnel}"
SEATUNNEL_RUN_DIR="${SEATUNNEL_RUN_DIR:-$TESTENV_DIR/.run/seatunnel}"
SEATUNNEL_HOME_DIR="$SEATUNNEL_RUN_DIR/home"
SEATUNNEL_LOG="$SEATUNNEL_HOME_DIR/logs"
SEATUNNEL_ENV_FILE="$SEATUNNEL_RUN_DIR/env"
SEATUNNEL_PORTS_FILE="$SEATUNNEL_RUN_DIR/ports"
SEATUNNEL_PID_FILE="$SEATUNNEL_RUN_DIR/node.pid"
SEATUNNEL_MAIN=org.apache.seatunnel.engine.server.SeaTunnelServerStarter

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="${JAVA:-java}"
fi

log() { printf '[seatunnel %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=../proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../proc.sh"

# lib_dir prints the directory holding the jars for the current pom.xml (its hash in the name, so
# editing the pom fetches again instead of mixing versions).
lib_dir() {
  echo "$SEATUNNEL_CACHE_DIR/lib-$SEATUNNEL_VERSION-$(sha256sum "$SEATUNNEL_POM" | cut -c1-12)"
}

# with_lock takes an exclusive lock on FILE for the rest of the script; children inherit it.
with_lock() {
  local file="$1" var="_CE_LOCK_$(basename "$1" | tr -c 'A-Za-z0-9\n' '_')"
  if [[ -n "${!var:-}" ]]; then return 0; fi
  mkdir -p "$(dirname "$file")"
  exec {lockfd}>"$file"
  if ! flock -w "${SEATUNNEL_LOCK_TIMEOUT:-600}" "$lockfd"; then
    die "timed out waiting for lock $file (another start/stop still running?)"
  fi
  export "$var=1"
  CE_LOCK_FDS="${CE_LOCK_FDS:-} $lockfd"
}

close_lock_fds() {
  local fd
  for fd in ${CE_LOCK_FDS:-}; do eval "exec $fd>&-"; done
}

# running_pid prints the node's pid if the recorded process is alive and really is ours (main
# class and our home dir on its command line): a recycled pid is never reported, so stop.sh can
# never kill a stranger.
running_pid() {
  local pid cmd
  [[ -f "$SEATUNNEL_PID_FILE" ]] || return 1
  pid="$(cat "$SEATUNNEL_PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmd" == *"$SEATUNNEL_MAIN"* && "$cmd" == *"-DSEATUNNEL_HOME=$SEATUNNEL_HOME_DIR"* ]] || return 1
  echo "$pid"
}

# rest_url prints the REST base URL: $SEATUNNEL_REST_URL if set, else the running node's.
rest_url() {
  if [[ -n "${SEATUNNEL_REST_URL:-}" ]]; then
    echo "${SEATUNNEL_REST_URL%/}"
    return
  fi
  [[ -f "$SEATUNNEL_ENV_FILE" ]] || die "no SeaTunnel node: $SEATUNNEL_ENV_FILE missing; run testenv/seatunnel/start.sh (or set SEATUNNEL_REST_URL)"
  local url
  url="$(sed -n 's/^SEATUNNEL_REST_URL=//p' "$SEATUNNEL_ENV_FILE")"
  [[ -n "$url" ]] || die "SEATUNNEL_REST_URL missing in $SEATUNNEL_ENV_FILE"
  echo "$url"
}

tail_logs() {
  local f
  for f in "$SEATUNNEL_LOG"/*.log "$SEATUNNEL_LOG"/*.out; do
    [[ -s "$f" ]] || continue
    echo "----- tail -n ${1:-40} $f" >&2
    tail -n "${1:-40}" "$f" >&2
  done
}
