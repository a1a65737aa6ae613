#!/usr/bin/env bash
# Stop the server start.sh started: only the pid in testenv/.run/toxiproxy/pid, and only if it
# still is our toxiproxy-server (our cached binary, our -host/-port). TERM, wait, then KILL.
# Its proxies go with it; the binary in testenv/.cache/toxiproxy is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock
if pid="$(running_pid)"; then
  log "stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < ${TOXIPROXY_STOP_TIMEOUT:-10} * 10; i++)); do
    [[ -d "/proc/$pid" ]] || break
    sleep 0.1
  done
  if [[ -d "/proc/$pid" ]]; then
    log "pid $pid ignored TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    while [[ -d "/proc/$pid" ]]; do sleep 0.1; done
  fi
fi
rm -f "$TOXI_PID_FILE" "$TOXI_ENV_FILE"
log "stopped"
