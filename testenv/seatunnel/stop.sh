#!/usr/bin/env bash
# Stop the node start.sh started: only the pid recorded in testenv/.run/seatunnel/node.pid, and
# only if it still is our JVM; waits until it has exited.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$SEATUNNEL_RUN_DIR/.lock"
if pid="$(running_pid)"; then
  log "stopping node (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < ${SEATUNNEL_STOP_TIMEOUT:-30} * 10; i++)); do
    [[ -d "/proc/$pid" ]] || break
    sleep 0.1
  done
  if [[ -d "/proc/$pid" ]]; then
    log "node (pid $pid) ignored TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    while [[ -d "/proc/$pid" ]]; do sleep 0.1; done
  fi
fi
rm -f "$SEATUNNEL_PID_FILE" "$SEATUNNEL_ENV_FILE"
log "stopped"
