#!/usr/bin/env bash
# Stop and start only the JobManager (same ports), for failover tests. Without HA the JobManager
# forgets its jobs and their checkpoint history; the TaskManager re-registers with the new one.
# To continue a job with its checkpoint ids, resubmit it from its retained checkpoint:
#   testenv/flink/submit.sh --job-id JOBID --restore latest [job args...]
#
# Returns once the TaskManager has also let go of the old JobManager's jobs (it notices only
# when their heartbeat times out): a job resubmitted under the same id before that fails with
# "The library registration references a different set of library BLOBs".
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
"$FLINK_SCRIPTS_DIR/start.sh" >/dev/null
url="$(FLINK_REST_URL='' rest_url)"

# stale_slots prints the ids of jobs holding TaskManager slots that the new JobManager does not know.
stale_slots() {
  local known tm
  known="$(curl -sf --max-time 2 "$url/jobs/overview" | jq -r '.jobs[].jid')" || return 0
  for tm in $(curl -sf --max-time 2 "$url/taskmanagers" | jq -r '.taskmanagers[].id'); do
    curl -sf --max-time 2 "$url/taskmanagers/$tm" | jq -r '.allocatedSlots[]?.jobId' || true
  done | sort -u | grep -vxF -f <(echo "$known") || true
}

deadline=$(($(date +%s) + ${FLINK_START_TIMEOUT:-120}))
while stale="$(stale_slots)" && [[ -n "$stale" ]]; do
  (($(date +%s) < deadline)) || die "the TaskManager still holds slots of jobs from before the restart: $stale"
  sleep 0.5
done
log "TaskManager holds no slots of the old JobManager's jobs"
cat "$FLINK_ENV_FILE"
