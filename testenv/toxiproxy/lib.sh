# shellcheck shell=bash
# Shared by the testenv/toxiproxy scripts; sourced, never run.
#
# Layout (git-ignored):
#   testenv/.cache/toxiproxy/   toxiproxy-server (built from testenv/tools/go.mod), its build key
#   testenv/.run/toxiproxy/     toxiproxy.log, pid, port, env
#
# TOXIPROXY_RUN_DIR runs a separate instance (the script test in testenv/toxienv does);
# TOXIPROXY_CACHE_DIR another binary cache.

set -euo pipefail

TOXI_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TESTENV_DIR="$(cd "$TOXI_SCRIPTS_DIR/.." && pwd)"
TOOLS_DIR="$TESTENV_DIR/tools"
TOXI_RUN_DIR="${TOXIPROXY_RUN_DIR:-$TESTENV_DIR/.run/toxiproxy}"
TOXI_CACHE_DIR="${TOXIPROXY_CACHE_DIR:-$TESTENV_DIR/.cache/toxiproxy}"
TOXI_PKG="github.com/Shopify/toxiproxy/v2"
TOXI_BIN="$TOXI_CACHE_DIR/toxiproxy-server"
TOXI_BIN_KEY="$TOXI_CACHE_DIR/toxiproxy-server.key"
TOXI_LOG="$TOXI_RUN_DIR/toxiproxy.log"
TOXI_PID_FILE="$TOXI_RUN_DIR/pid"
TOXI_PORT_FILE="$TOXI_RUN_DIR/port"
TOXI_ENV_FILE="$TOXI_RUN_DIR/env"
# What GET /version answers: the pinned version plus this suffix, stamped at build time, so a
# toxiproxy of someone else's is never taken for ours.
TOXI_VERSION_SUFFIX="+checkpoint-explorer"

log() { printf '[toxiproxy %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=../proc.sh
source "$(dirname "${BASH_SOURCE[0]}")/../proc.sh"

# with_lock FILE takes an exclusive lock on FILE for the rest of the script, so concurrent test
# binaries do not start two servers (or build the binary twice).
with_lock() {
  local file="${1:-$TOXI_RUN_DIR/.lock}" fd
  mkdir -p "$(dirname "$file")"
  exec {fd}>"$file"
  flock -w "${TOXIPROXY_LOCK_TIMEOUT:-300}" "$fd" ||
    die "timed out waiting for $file (another start/stop still running?)"
}

# close_lock_fds closes our lock descriptors in the daemon, or the next start.sh would wait for
# the daemon to exit.
close_lock_fds() {
  local f target
  for f in /proc/"$BASHPID"/fd/*; do
    target="$(readlink "$f" 2>/dev/null || true)"
    case "$target" in
    "$TOXI_RUN_DIR/.lock" | "$TOXI_CACHE_DIR/.build.lock") eval "exec ${f##*/}>&-" ;;
    esac
  done
  return 0
}

# pinned_version prints the toxiproxy version testenv/tools/go.mod pins (e.g. v2.5.0).
pinned_version() {
  (cd "$TOOLS_DIR" && GOWORK=off GOFLAGS= go list -m -f '{{.Version}}' "$TOXI_PKG")
}

# build_key is a hash of what the binary is built from: the tools module and the Go toolchain.
build_key() {
  { cat "$TOOLS_DIR/go.mod" "$TOOLS_DIR/go.sum"; go version; } | sha256sum | cut -c1-16
}

# ensure_binary builds toxiproxy-server into the cache unless the one there is from the same
# go.mod, go.sum and Go version.
ensure_binary() {
  command -v go >/dev/null || die "go not found on PATH"
  local key version tmp start
  key="$(build_key)"
  [[ -x "$TOXI_BIN" && -f "$TOXI_BIN_KEY" && "$(cat "$TOXI_BIN_KEY")" == "$key" ]] && return 0
  with_lock "$TOXI_CACHE_DIR/.build.lock"
  [[ -x "$TOXI_BIN" && -f "$TOXI_BIN_KEY" && "$(cat "$TOXI_BIN_KEY")" == "$key" ]] && return 0
  version="$(pinned_version)" || die "cannot read the toxiproxy version from $TOOLS_DIR/go.mod"
  tmp="$TOXI_BIN.tmp.$$"
  start=$(date +%s)
  log "building toxiproxy-server $version (testenv/tools/go.mod) into $TOXI_CACHE_DIR"
  (cd "$TOOLS_DIR" && GOWORK=off GOFLAGS= go build -trimpath -o "$tmp" \
    -ldflags "-X $TOXI_PKG.Version=$version$TOXI_VERSION_SUFFIX" "$TOXI_PKG/cmd/server") ||
    { rm -f "$tmp"; die "go build of $TOXI_PKG/cmd/server failed"; }
  mv -f "$tmp" "$TOXI_BIN"
  echo "$key" >"$TOXI_BIN_KEY"
  log "built in $(($(date +%s) - start))s"
}

# running_pid prints the pid of our server if the recorded process is alive and really is ours
# (our cached toxiproxy-server, with -host 127.0.0.1 -port PORT on its command line): a recycled
# pid or anyone else's toxiproxy is never reported, so stop.sh never kills a stranger.
running_pid() {
  local pid cmd exe port
  [[ -f "$TOXI_PID_FILE" && -f "$TOXI_PORT_FILE" ]] || return 1
  pid="$(cat "$TOXI_PID_FILE")" port="$(cat "$TOXI_PORT_FILE")"
  [[ "$pid" =~ ^[0-9]+$ && -r "/proc/$pid/cmdline" ]] || return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null || true)"
  exe="${exe% (deleted)}" # the binary was rebuilt while this one runs
  [[ "$exe" == "$TOXI_BIN" || "$exe" == "$TOXI_BIN".tmp.* ]] || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmd" == *" -host 127.0.0.1 -port $port "* ]] || return 1
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

# ours reports whether the server answering on PORT is the one we started: our pid holds the
# socket and /version answers with our build stamp.
ours() {
  local port="$1" pid version
  [[ -n "$port" ]] || return 1
  pid="$(running_pid)" || return 1
  listens "$pid" "$port" || return 1
  version="$(curl -sf --max-time 2 "http://127.0.0.1:$port/version" 2>/dev/null)" || return 1
  [[ "$version" == *"$TOXI_VERSION_SUFFIX" ]]
}

tail_log() {
  [[ -s "$TOXI_LOG" ]] || return 0
  echo "----- tail -n ${1:-30} $TOXI_LOG" >&2
  tail -n "${1:-30}" "$TOXI_LOG" >&2
}
