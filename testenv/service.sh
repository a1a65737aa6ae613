# shellcheck shell=bash
# What the testenv services that run as one server process of ours (jaeger, toxiproxy,
# prometheus) share: the run dir's layout and lock, the log, a cached binary built from a pinned
# Go module, starting the server detached, waiting for it, its env file and stopping it. Sourced
# by their lib.sh, never run; the lib then calls service (and service_binary for a server built
# here) and defines running_pid, which prints the server's pid if the recorded one is ours.

set -euo pipefail

TESTENV_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# service NAME RUN_DIR LOCK_TIMEOUT names the service (in log lines and messages) and its run
# dir, which holds NAME.log, pid, env and the .lock that serialises start and stop (waited for
# up to LOCK_TIMEOUT seconds).
service() {
  SVC_NAME="$1" SVC_RUN_DIR="$2" SVC_LOCK_TIMEOUT="$3"
  SVC_LOG="$SVC_RUN_DIR/$1.log" SVC_PID_FILE="$SVC_RUN_DIR/pid" SVC_ENV_FILE="$SVC_RUN_DIR/env"
}

# service_binary CACHE_DIR NAME: the server is CACHE_DIR/NAME, built here (ensure_go_binary),
# with the key it was built from in CACHE_DIR/NAME.key and builds serialised by CACHE_DIR/.build.lock.
service_binary() {
  SVC_CACHE_DIR="$1" SVC_BIN="$1/$2" SVC_BIN_KEY="$1/$2.key"
}

log() { printf '[%s %s] %s\n' "$SVC_NAME" "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=proc.sh
source "$TESTENV_DIR/proc.sh"

# with_lock [FILE] takes an exclusive lock on FILE (default the run dir's .lock) for the rest of
# the script, so concurrent test binaries do not start two servers (or build the binary twice).
with_lock() {
  local file="${1:-$SVC_RUN_DIR/.lock}" fd
  mkdir -p "$(dirname "$file")"
  exec {fd}>"$file"
  flock -w "$SVC_LOCK_TIMEOUT" "$fd" ||
    die "timed out waiting for $file (another start/stop or build still running?)"
}

# close_lock_fds closes our lock descriptors in the daemon, or the next start.sh would wait for
# the daemon to exit.
close_lock_fds() {
  local f target
  for f in /proc/"$BASHPID"/fd/*; do
    target="$(readlink "$f" 2>/dev/null || true)"
    case "$target" in
    "$SVC_RUN_DIR/.lock" | "${SVC_CACHE_DIR:-$SVC_RUN_DIR}/.build.lock") eval "exec ${f##*/}>&-" ;;
    esac
  done
  return 0
}

tail_log() { tail_file "$SVC_LOG" "${1:-30}"; }

# go_pinned_version DIR MOD prints the version of module MOD that DIR/go.mod pins (e.g. v2.5.0).
go_pinned_version() {
  (cd "$1" && GOWORK=off GOFLAGS= go list -m -f '{{.Version}}' "$2")
}

# ensure_go_binary DIR MOD PKG NOTE [FLAG...] builds package PKG of module MOD, pinned in
# DIR/go.mod, into $SVC_BIN unless the one there was built from the same go.mod, go.sum and Go
# version. {version} in a FLAG stands for the pinned version; NOTE ends the progress line.
ensure_go_binary() {
  local dir="$1" mod="$2" pkg="$3" note="$4" key version tmp start flag
  local -a flags=()
  shift 4
  command -v go >/dev/null || die "go not found on PATH"
  key="$({ cat "$dir/go.mod" "$dir/go.sum"; go version; } | sha256sum | cut -c1-16)"
  [[ -x "$SVC_BIN" && -f "$SVC_BIN_KEY" && "$(cat "$SVC_BIN_KEY")" == "$key" ]] && return 0
  with_lock "$SVC_CACHE_DIR/.build.lock"
  [[ -x "$SVC_BIN" && -f "$SVC_BIN_KEY" && "$(cat "$SVC_BIN_KEY")" == "$key" ]] && return 0
  version="$(go_pinned_version "$dir" "$mod")" || die "cannot read the $mod version from $dir/go.mod"
  for flag in "$@"; do flags+=("${flag//\{version\}/$version}"); done
  tmp="$SVC_BIN.tmp.$$"
  start=$(date +%s)
  log "building ${SVC_BIN##*/} $version (testenv/${dir#"$TESTENV_DIR/"}/go.mod) into $SVC_CACHE_DIR$note"
  (cd "$dir" && GOWORK=off GOFLAGS= go build -trimpath -o "$tmp" "${flags[@]}" "$pkg") ||
    { rm -f "$tmp"; die "go build of $pkg failed"; }
  mv -f "$tmp" "$SVC_BIN"
  echo "$key" >"$SVC_BIN_KEY"
  log "built in $(($(date +%s) - start))s"
}

# launch CMD... starts the server detached (a session of its own, output appended to the log, no
# lock descriptors), records its pid and gives running_pid up to 5 s to recognise it.
launch() {
  (
    close_lock_fds
    exec setsid nohup "$@" >>"$SVC_LOG" 2>&1 </dev/null
  ) &
  echo $! >"$SVC_PID_FILE"
  for _ in $(seq 50); do running_pid >/dev/null && break; sleep 0.1; done
}

# wait_ready SECONDS WHAT CHECK... runs CHECK until it succeeds; when the server exits first, or
# SECONDS pass (WHAT says what was waited for), it dies with the end of the log.
wait_ready() {
  local secs="$1" what="$2" deadline
  shift 2
  deadline=$(($(date +%s) + secs))
  until "$@"; do
    if ! running_pid >/dev/null; then
      tail_log
      die "$SVC_NAME exited during start-up"
    fi
    if (($(date +%s) >= deadline)); then
      tail_log
      die "not ready after ${secs}s ($what)"
    fi
    sleep 0.2
  done
}

# publish_env writes its stdin (KEY=VALUE lines) to the env file at once and prints it.
publish_env() {
  cat >"$SVC_ENV_FILE.tmp"
  mv "$SVC_ENV_FILE.tmp" "$SVC_ENV_FILE"
  cat "$SVC_ENV_FILE"
}

# print_env WHAT DIR prints the running server's env as export lines (what DIR/env.sh does).
print_env() {
  [[ -f "$SVC_ENV_FILE" ]] && running_pid >/dev/null ||
    die "no test $1 running; run testenv/$2/start.sh"
  sed 's/^/export /' "$SVC_ENV_FILE"
}

# stop_service SECONDS stops the server start.sh started, if it still is ours (TERM, SECONDS,
# then KILL), and removes its pid and env files.
stop_service() {
  local pid
  with_lock
  if pid="$(running_pid)"; then
    stop_pid "$pid" "$1" "$SVC_NAME"
  fi
  rm -f "$SVC_PID_FILE" "$SVC_ENV_FILE"
  log "stopped"
}
