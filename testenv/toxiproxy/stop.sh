#!/usr/bin/env bash
# Stop the server start.sh started: only the pid in testenv/.run/toxiproxy/pid, and only if it
# still is our toxiproxy-server (our cached binary, our -host/-port). TERM, wait, then KILL.
# Its proxies go with it; the binary in testenv/.cache/toxiproxy is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock
if pid="$(running_pid)"; then
  stop_pid "$pid" "${TOXIPROXY_STOP_TIMEOUT:-10}" toxiproxy
fi
rm -f "$TOXI_PID_FILE" "$TOXI_ENV_FILE"
log "stopped"
