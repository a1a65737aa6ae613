#!/usr/bin/env bash
# Start a Toxiproxy server (github.com/Shopify/toxiproxy/v2, pinned in testenv/tools/go.mod) on
# 127.0.0.1, and print its env (also written to testenv/.run/toxiproxy/env):
#
#   TOXIPROXY_URL=http://127.0.0.1:PORT
#   TOXIPROXY_PORT=…  TOXIPROXY_PID=…  TOXIPROXY_RUN_DIR=…  TOXIPROXY_VERSION=…
#
# The server binary is built once into testenv/.cache/toxiproxy/ (again when testenv/tools/go.mod,
# go.sum or the Go version change). Tests create proxies through its API (testenv/toxienv).
#
# Idempotent: a healthy server of ours is left alone (its proxies too). The port is TOXIPROXY_PORT
# when set, else the recorded one when free, else a free one. TOXIPROXY_START_TIMEOUT (s, default
# 30) bounds the wait for GET /version after the start (not the build); TOXIPROXY_LOG_LEVEL
# (default info; debug logs every API request) goes to testenv/.run/toxiproxy/toxiproxy.log.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v curl >/dev/null || die "curl not found; run testenv/install-deps.sh"
ensure_binary

with_lock

write_env() {
  cat >"$TOXI_ENV_FILE.tmp" <<ENV
TOXIPROXY_URL=http://127.0.0.1:$PORT
TOXIPROXY_PORT=$PORT
TOXIPROXY_PID=$(running_pid || true)
TOXIPROXY_RUN_DIR=$TOXI_RUN_DIR
TOXIPROXY_VERSION=$(curl -sf --max-time 2 "http://127.0.0.1:$PORT/version" || true)
ENV
  mv "$TOXI_ENV_FILE.tmp" "$TOXI_ENV_FILE"
  cat "$TOXI_ENV_FILE"
}

wait_ready() {
  local deadline=$(($(date +%s) + ${TOXIPROXY_START_TIMEOUT:-30}))
  until ours "$PORT"; do
    if ! running_pid >/dev/null; then
      tail_log
      die "toxiproxy-server exited during start-up"
    fi
    if (($(date +%s) >= deadline)); then
      tail_log
      die "not ready after ${TOXIPROXY_START_TIMEOUT:-30}s (http://127.0.0.1:$PORT/version)"
    fi
    sleep 0.1
  done
}

PORT=""
[[ -f "$TOXI_PORT_FILE" ]] && PORT="$(cat "$TOXI_PORT_FILE")"

if pid="$(running_pid)"; then
  if ours "$PORT"; then
    log "already running (pid $pid, http://127.0.0.1:$PORT)"
    write_env
    exit 0
  fi
  die "toxiproxy-server pid $pid is ours but does not answer on port $PORT; run testenv/toxiproxy/stop.sh"
fi

if [[ -n "${TOXIPROXY_PORT:-}" ]]; then
  PORT="$TOXIPROXY_PORT"
  [[ "$PORT" =~ ^[0-9]+$ ]] || die "TOXIPROXY_PORT=$PORT is not a port number"
  port_free "$PORT" || die "port $PORT (TOXIPROXY_PORT) is in use on 127.0.0.1"
elif [[ -z "$PORT" ]] || ! port_free "$PORT"; then
  PORT="$(free_port)"
fi
echo "$PORT" >"$TOXI_PORT_FILE"
rm -f "$TOXI_ENV_FILE"

(
  close_lock_fds
  LOG_LEVEL="${TOXIPROXY_LOG_LEVEL:-info}" exec setsid nohup "$TOXI_BIN" -host 127.0.0.1 -port "$PORT" >>"$TOXI_LOG" 2>&1 </dev/null
) &
echo $! >"$TOXI_PID_FILE"
for _ in $(seq 50); do running_pid >/dev/null && break; sleep 0.1; done
log "started (pid $(cat "$TOXI_PID_FILE"), http://127.0.0.1:$PORT)"
wait_ready
write_env
