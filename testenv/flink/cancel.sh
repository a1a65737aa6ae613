#!/usr/bin/env bash
# Cancel a job (or every non-terminal job with --all), wait until it is CANCELED, and delete its
# retained checkpoints under testenv/.run/flink/checkpoints/ (keep them with --keep).
#
# Usage: testenv/flink/cancel.sh [--keep] JOBID... | --all
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

keep=false
ids=()
url="$(rest_url)"
for a in "$@"; do
  case "$a" in
    --keep) keep=true ;;
    --all) mapfile -t -O "${#ids[@]}" ids < <(curl -sf "$url/jobs/overview" |
      jq -r '.jobs[] | select(.state != "CANCELED" and .state != "FAILED" and .state != "FINISHED") | .jid') ;;
    *) [[ "$a" =~ ^[0-9a-f]{32}$ ]] || die "not a job id: $a"; ids+=("$a") ;;
  esac
done
[[ $# -gt 0 ]] || die "usage: cancel.sh [--keep] JOBID... | --all"

for jid in "${ids[@]}"; do
  code="$(curl -sS -o /dev/null -w '%{http_code}' -X PATCH "$url/jobs/$jid?mode=cancel")" || die "cancel $jid: request failed"
  if [[ "$code" == 409 ]]; then
    # Flink refuses to cancel a job that has ended already (stopped with a savepoint, finished).
    state="$(curl -sf --max-time 2 "$url/jobs/$jid/status" | jq -r .status 2>/dev/null || true)"
    [[ "$state" =~ ^(CANCELED|FAILED|FINISHED)$ ]] || die "cancel $jid: HTTP 409 (state ${state:-unknown})"
  else
    [[ "$code" == 202 || "$code" == 200 ]] || die "cancel $jid: HTTP $code"
  fi
  deadline=$(($(date +%s) + ${FLINK_CANCEL_TIMEOUT:-60}))
  until [[ "$(curl -sf --max-time 2 "$url/jobs/$jid/status" | jq -r .status 2>/dev/null)" =~ ^(CANCELED|FAILED|FINISHED)$ ]]; do
    (($(date +%s) < deadline)) || die "job $jid not cancelled after ${FLINK_CANCEL_TIMEOUT:-60}s"
    sleep 0.2
  done
  if ! $keep && [[ -d "$FLINK_RUN_DIR/checkpoints/$jid" ]]; then
    rm -rf "${FLINK_RUN_DIR:?}/checkpoints/$jid"
  fi
  log "cancelled $jid"
done
