# shellcheck shell=bash
# Shared by the testenv/seatunnel scripts; sourced, never run.
#
# Two nodes can run side by side, chosen by SEATUNNEL_VERSION:
#   2.3.13 (default)  REST v2 with the checkpoint API (PR #10065). Its Jetty binds every interface
#                     and has no host setting, so the node runs in a network namespace of its own
#                     (only loopback in it) and testenv/nsforward makes it reachable on
#                     127.0.0.1:PORT here, from nowhere else.
#   2.3.8             REST v1 (the Hazelcast port, bound to 127.0.0.1), kept for the v1 paths.
#
# Layout (all git-ignored):
#   testenv/.cache/seatunnel/lib-<version>-<hash>/   the node's jars (kept across runs)
#   testenv/.run/seatunnel-<version>/                one node: home/ (config, log), node.pid, ports, env, jobs/

set -euo pipefail

SEATUNNEL_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TESTENV_DIR="$(cd "$SEATUNNEL_SCRIPTS_DIR/.." && pwd)"
SEATUNNEL_VERSION="${SEATUNNEL_VERSION:-2.3.13}"
case "$SEATUNNEL_VERSION" in
  2.3.13)
    # What is fetched: one jar per line, each without its dependencies (2.3.13's poms are not served).
    SEATUNNEL_JARS="$SEATUNNEL_SCRIPTS_DIR/jars-2.3.13.txt"
    SEATUNNEL_MAIN=org.apache.seatunnel.core.starter.seatunnel.SeaTunnelServer
    SEATUNNEL_REST_PREFIX=""
    ;;
  2.3.8)
    SEATUNNEL_JARS="$SEATUNNEL_SCRIPTS_DIR/pom-2.3.8.xml"
    SEATUNNEL_MAIN=org.apache.seatunnel.engine.server.SeaTunnelServerStarter
    SEATUNNEL_REST_PREFIX=/hazelcast/rest/maps
    ;;
  *)
    echo "[seatunnel] ERROR: SEATUNNEL_VERSION=$SEATUNNEL_VERSION: testenv runs 2.3.13 (REST v2) or 2.3.8 (REST v1)" >&2
    exit 1
    ;;
esac
SEATUNNEL_CACHE_DIR="${SEATUNNEL_CACHE_DIR:-$TESTENV_DIR/.cache/seatunnel}"
SEATUNNEL_RUN_DIR="${SEATUNNEL_RUN_DIR:-$TESTENV_DIR/.run/seatunnel-$SEATUNNEL_VERSION}"
SEATUNNEL_HOME_DIR="$SEATUNNEL_RUN_DIR/home"
SEATUNNEL_LOG="$SEATUNNEL_HOME_DIR/logs"
SEATUNNEL_ENV_FILE="$SEATUNNEL_RUN_DIR/env"
SEATUNNEL_PORTS_FILE="$SEATUNNEL_RUN_DIR/ports"
SEATUNNEL_PID_FILE="$SEATUNNEL_RUN_DIR/node.pid"
SEATUNNEL_FORWARD_PID_FILE="$SEATUNNEL_RUN_DIR/forward.pid"
# The 2.3.13 node's namespace: named after the run dir, so two checkouts never share one.
SEATUNNEL_NETNS="ce-st-$(printf '%s' "$SEATUNNEL_RUN_DIR" | sha256sum | cut -c1-10)"
# Inside the namespace the node has every port to itself.
SEATUNNEL_NS_HTTP_PORT=8080
SEATUNNEL_NS_HZ_PORT=5801
# Classes the 2.3.8 connectors load that 2.3.13 moved (packed into shim-2.3.8.jar).
SHIM_CLASSES=(
  'org/apache/seatunnel/api/table/catalog/schema/TableSchemaOptions*'
  'org/apache/seatunnel/api/sink/SinkCommonOptions*'
  'org/apache/seatunnel/api/table/event/*'
  'org/apache/seatunnel/common/utils/BufferUtils*'
)

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
else
  JAVA="${JAVA:-java}"
fi

log() { printf '[seatunnel %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=../proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../proc.sh"

# lib_dir prints the directory holding the jars for the current list and shim classes (their hash
# in the name, so editing them fetches again instead of mixing versions; nothing else does, since a
# new lib dir replaces the one a running node uses).
lib_dir() {
  echo "$SEATUNNEL_CACHE_DIR/lib-$SEATUNNEL_VERSION-$({ cat "$SEATUNNEL_JARS"; printf '%s\n' "${SHIM_CLASSES[@]}"; } | sha256sum | cut -c1-12)"
}

# with_lock FILE takes an exclusive lock on FILE for the rest of the script; children inherit it
# (hold_lock).
with_lock() { hold_lock "$1" "${SEATUNNEL_LOCK_TIMEOUT:-600}"; }

# close_lock_fds closes the lock descriptors in a daemon, which must not hold them.
close_lock_fds() {
  local fd
  for fd in ${CE_LOCK_FDS:-}; do eval "exec $fd>&-"; done
}

# running_pid prints the node's pid if the recorded process is alive and really is ours (main
# class and our home dir on its command line): a recycled pid is never reported, so stop.sh can
# never kill a stranger.
running_pid() { recorded_pid "$SEATUNNEL_PID_FILE" "" "$SEATUNNEL_MAIN" "-DSEATUNNEL_HOME=$SEATUNNEL_HOME_DIR"; }

# forward_pid prints the forwarder's pid if it is alive and ours (our binary, our namespace).
forward_pid() { recorded_pid "$SEATUNNEL_FORWARD_PID_FILE" "" nsforward "/run/netns/$SEATUNNEL_NETNS"; }

# rest_url prints the REST base URL: $SEATUNNEL_REST_URL if set, else the running node's.
rest_url() { env_url SEATUNNEL_REST_URL "$SEATUNNEL_ENV_FILE" "SeaTunnel node" seatunnel; }

# tail_logs [N] prints the end of every log, for errors.
tail_logs() { tail_logs_in "$SEATUNNEL_LOG" "${1:-40}"; }
