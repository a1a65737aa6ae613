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
  publish_env <<ENV
TOXIPROXY_URL=http://127.0.0.1:$PORT
TOXIPROXY_PORT=$PORT
TOXIPROXY_PID=$(running_pid || true)
TOXIPROXY_RUN_DIR=$SVC_RUN_DIR
TOXIPROXY_VERSION=$(curl -sf --max-time 2 "http://127.0.0.1:$PORT/version" || true)
ENV
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

PORT="$(choose_port TOXIPROXY_PORT "$PORT")"
echo "$PORT" >"$TOXI_PORT_FILE"
rm -f "$SVC_ENV_FILE"

launch env LOG_LEVEL="${TOXIPROXY_LOG_LEVEL:-info}" "$SVC_BIN" -host 127.0.0.1 -port "$PORT"
log "started (pid $(cat "$SVC_PID_FILE"), http://127.0.0.1:$PORT)"
wait_ready "${TOXIPROXY_START_TIMEOUT:-30}" "http://127.0.0.1:$PORT/version" ours "$PORT"
write_env
