#!/usr/bin/env bash
# Stop and start only the JobManager (same ports), for failover tests. Without HA the JobManager
# forgets its jobs and their checkpoint history; the TaskManager re-registers with the new one.
# To continue a job with its checkpoint ids, resubmit it from its retained checkpoint:
#   testenv/flink/submit.sh --job-id JOBID --restore latest [job args...]
#
# Usage: testenv/flink/restart-jm.sh [--kill]   (--kill: SIGKILL, a crash, instead of SIGTERM)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$FLINK_RUN_DIR/.lock"
if [[ "${1:-}" == --kill ]]; then
  if pid="$(running_pid jobmanager)"; then
    log "killing jobmanager (pid $pid)"
    kill -KILL "$pid"
    while [[ -d "/proc/$pid" ]]; do sleep 0.1; done
    rm -f "$(pid_file jobmanager)"
  fi
else
  stop_component jobmanager
fi
rm -f "$FLINK_ENV_FILE"
exec "$FLINK_SCRIPTS_DIR/start.sh"
