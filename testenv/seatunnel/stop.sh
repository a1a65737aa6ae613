#!/usr/bin/env bash
# Stop the node start.sh started: only the pid recorded in testenv/.run/seatunnel/node.pid, and
# only if it still is our JVM; waits until it has exited.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$SEATUNNEL_RUN_DIR/.lock"
if pid="$(running_pid)"; then
  stop_pid "$pid" "${SEATUNNEL_STOP_TIMEOUT:-30}" node
fi
rm -f "$SEATUNNEL_PID_FILE" "$SEATUNNEL_ENV_FILE"
log "stopped"
