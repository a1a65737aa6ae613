#!/usr/bin/env bash
# Stop the Jaeger start.sh started: only the pid in testenv/.run/jaeger/pid, and only if it still
# is our jaeger (our cached binary, our config). TERM, wait, then KILL. Its in-memory traces go
# with it; the binary in testenv/.cache/jaeger is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock
if pid="$(running_pid)"; then
  stop_pid "$pid" "${JAEGER_STOP_TIMEOUT:-10}" jaeger
fi
rm -f "$JAEGER_PID_FILE" "$JAEGER_ENV_FILE"
log "stopped"
