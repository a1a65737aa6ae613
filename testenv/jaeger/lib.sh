# shellcheck shell=bash
# Shared by the testenv/jaeger scripts; sourced, never run.
#
# Layout (git-ignored):
#   testenv/.cache/jaeger/   jaeger (built from testenv/tools/jaeger/go.mod), its build key
#   testenv/.run/jaeger/     config.yaml, jaeger.log, pid, ports, env
#
# JAEGER_RUN_DIR runs a separate instance; JAEGER_CACHE_DIR another binary cache.

set -euo pipefail

JAEGER_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TESTENV_DIR="$(cd "$JAEGER_SCRIPTS_DIR/.." && pwd)"
JAEGER_TOOLS_DIR="$TESTENV_DIR/tools/jaeger"
JAEGER_RUN_DIR="${JAEGER_RUN_DIR:-$TESTENV_DIR/.run/jaeger}"
JAEGER_CACHE_DIR="${JAEGER_CACHE_DIR:-$TESTENV_DIR/.cache/jaeger}"
JAEGER_MOD="github.com/jaegertracing/jaeger"
JAEGER_BIN="$JAEGER_CACHE_DIR/jaeger"
JAEGER_BIN_KEY="$JAEGER_CACHE_DIR/jaeger.key"
JAEGER_CONF="$JAEGER_RUN_DIR/config.yaml"
JAEGER_LOG="$JAEGER_RUN_DIR/jaeger.log"
JAEGER_PID_FILE="$JAEGER_RUN_DIR/pid"
JAEGER_PORTS_FILE="$JAEGER_RUN_DIR/ports"
JAEGER_ENV_FILE="$JAEGER_RUN_DIR/env"

log() { printf '[jaeger %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=../proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../proc.sh"

# with_lock FILE takes an exclusive lock on FILE for the rest of the script, so concurrent test
# binaries do not start two servers (or build the binary twice).
with_lock() {
  local file="${1:-$JAEGER_RUN_DIR/.lock}" fd
  mkdir -p "$(dirname "$file")"
  exec {fd}>"$file"
  flock -w "${JAEGER_LOCK_TIMEOUT:-1800}" "$fd" ||
    die "timed out waiting for $file (another start/stop or build still running?)"
}

# close_lock_fds closes our lock descriptors in the daemon, or the next start.sh would wait for
# the daemon to exit.
close_lock_fds() {
  local f target
  for f in /proc/"$BASHPID"/fd/*; do
    target="$(readlink "$f" 2>/dev/null || true)"
    case "$target" in
    "$JAEGER_RUN_DIR/.lock" | "$JAEGER_CACHE_DIR/.build.lock") eval "exec ${f##*/}>&-" ;;
    esac
  done
  return 0
}

# pinned_version prints the Jaeger version testenv/tools/jaeger/go.mod pins (e.g. v1.76.0).
pinned_version() {
  (cd "$JAEGER_TOOLS_DIR" && GOWORK=off GOFLAGS= go list -m -f '{{.Version}}' "$JAEGER_MOD")
}

# build_key is a hash of what the binary is built from: the tools module and the Go toolchain.
build_key() {
  { cat "$JAEGER_TOOLS_DIR/go.mod" "$JAEGER_TOOLS_DIR/go.sum"; go version; } | sha256sum | cut -c1-16
}

# ensure_binary builds jaeger (cmd/jaeger: the all-in-one collector + query, Jaeger v2 on the
# OpenTelemetry Collector) into the cache unless the one there is from the same go.mod, go.sum
# and Go version. The first build takes several minutes on 2 cores.
ensure_binary() {
  command -v go >/dev/null || die "go not found on PATH"
  local key version tmp start
  key="$(build_key)"
  [[ -x "$JAEGER_BIN" && -f "$JAEGER_BIN_KEY" && "$(cat "$JAEGER_BIN_KEY")" == "$key" ]] && return 0
  with_lock "$JAEGER_CACHE_DIR/.build.lock"
  [[ -x "$JAEGER_BIN" && -f "$JAEGER_BIN_KEY" && "$(cat "$JAEGER_BIN_KEY")" == "$key" ]] && return 0
  version="$(pinned_version)" || die "cannot read the Jaeger version from $JAEGER_TOOLS_DIR/go.mod"
  tmp="$JAEGER_BIN.tmp.$$"
  start=$(date +%s)
  log "building jaeger $version (testenv/tools/jaeger/go.mod) into $JAEGER_CACHE_DIR; the first build takes minutes"
  (cd "$JAEGER_TOOLS_DIR" && GOWORK=off GOFLAGS= go build -trimpath -o "$tmp" "$JAEGER_MOD/cmd/jaeger") ||
    { rm -f "$tmp"; die "go build of $JAEGER_MOD/cmd/jaeger failed"; }
  mv -f "$tmp" "$JAEGER_BIN"
  echo "$key" >"$JAEGER_BIN_KEY"
  log "built in $(($(date +%s) - start))s"
}

# running_pid prints the pid of our server if the recorded process is alive and really is ours
# (our cached binary, with our run dir's config on its command line): a recycled pid or anyone
# else's Jaeger is never reported, so stop.sh never kills a stranger.
running_pid() {
  local pid cmd exe
  [[ -f "$JAEGER_PID_FILE" ]] || return 1
  pid="$(cat "$JAEGER_PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null || true)"
  exe="${exe% (deleted)}" # the binary was rebuilt while this one runs
  [[ "$exe" == "$JAEGER_BIN" || "$exe" == "$JAEGER_BIN".tmp.* ]] || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmd" == *" --config $JAEGER_CONF "* ]] || return 1
  echo "$pid"
}

# listens reports whether PID holds the listening socket of 127.0.0.1:PORT.
listens() {
  local pid="$1" port="$2" hexport inode
  hexport="$(printf '%04X' "$port")"
  inode="$(awk -v a="0100007F:$hexport" '$2 == a && $4 == "0A" {print $10; exit}' /proc/net/tcp)"
  [[ -n "$inode" ]] || return 1
  ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "socket:\[$inode\]"
}

# ours reports whether our pid holds the query and OTLP sockets and the query API answers.
ours() {
  local pid p
  pid="$(running_pid)" || return 1
  for p in "$QUERY_PORT" "$OTLP_GRPC_PORT" "$OTLP_HTTP_PORT"; do
    [[ -n "$p" ]] && listens "$pid" "$p" || return 1
  done
  curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$QUERY_PORT/api/services"
}

tail_log() {
  [[ -s "$JAEGER_LOG" ]] || return 0
  echo "----- tail -n ${1:-30} $JAEGER_LOG" >&2
  tail -n "${1:-30}" "$JAEGER_LOG" >&2
}
