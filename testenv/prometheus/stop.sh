#!/usr/bin/env bash
# Stop the server start.sh started: only the pid in testenv/.run/prometheus/pid, and only if it
# still is our prometheus (our config file on its command line). TERM, wait, then KILL.
# The TSDB under testenv/.run/prometheus/data is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock
if pid="$(running_pid)"; then
  log "stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < ${PROMETHEUS_STOP_TIMEOUT:-20} * 10; i++)); do
    [[ -d "/proc/$pid" ]] || break
    sleep 0.1
  done
  if [[ -d "/proc/$pid" ]]; then
    log "pid $pid ignored TERM; sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    while [[ -d "/proc/$pid" ]]; do sleep 0.1; done
  fi
fi
rm -f "$PROM_PID_FILE" "$PROM_ENV_FILE"
log "stopped"
