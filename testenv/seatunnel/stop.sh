#!/usr/bin/env bash
# Stop the node start.sh started (SEATUNNEL_VERSION picks which; `all` stops both): only the pids
# recorded in its run dir, and only if they still are ours; waits until they have exited, then
# removes the 2.3.13 node's network namespace.
if [[ "${SEATUNNEL_VERSION:-}" == all || $# -eq 0 && -z "${SEATUNNEL_VERSION:-}" ]]; then
  rc=0
  for v in 2.3.13 2.3.8; do SEATUNNEL_VERSION=$v "$0" one || rc=1; done
  exit $rc
fi
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$SEATUNNEL_RUN_DIR/.lock"
if pid="$(running_pid)"; then
  stop_pid "$pid" "${SEATUNNEL_STOP_TIMEOUT:-30}" "node $SEATUNNEL_VERSION"
fi
if pid="$(forward_pid)"; then
  stop_pid "$pid" 5 forwarder
fi
if [[ "$SEATUNNEL_VERSION" == 2.3.13 ]] && ip netns list 2>/dev/null | grep -qw "$SEATUNNEL_NETNS"; then
  ip netns del "$SEATUNNEL_NETNS" || log "could not remove namespace $SEATUNNEL_NETNS"
fi
rm -f "$SEATUNNEL_PID_FILE" "$SEATUNNEL_FORWARD_PID_FILE" "$SEATUNNEL_ENV_FILE"
log "stopped $SEATUNNEL_VERSION"
