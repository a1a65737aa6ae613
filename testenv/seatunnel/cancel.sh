#!/usr/bin/env bash
# Cancel a job on the node (default: the last one submit.sh submitted). With -s, stop it with a
# savepoint instead.
#
# Usage: testenv/seatunnel/cancel.sh [-s] [JOB_ID]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

savepoint=false
if [[ "${1:-}" == -s ]]; then savepoint=true; shift; fi
id="${1:-}"
if [[ -z "$id" && -f "$SEATUNNEL_ENV_FILE" ]]; then
  id="$(sed -n 's/^SEATUNNEL_JOB_ID=//p' "$SEATUNNEL_ENV_FILE")"
fi
[[ "$id" =~ ^[0-9]+$ ]] || die "no job id given and none recorded in $SEATUNNEL_ENV_FILE"
url="$(rest_url)"
resp="$(curl -sS --max-time 30 -X POST -H 'Content-Type: application/json' \
  --data "{\"jobId\": $id, \"isStopWithSavePoint\": $savepoint}" "$url/stop-job")" ||
  die "POST $url/stop-job failed"
log "stop-job $id (savepoint=$savepoint): $resp"
