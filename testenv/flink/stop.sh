#!/usr/bin/env bash
# Stop the cluster start.sh started: only the pids recorded in testenv/.run/flink/*.pid (and only
# if they still are our JVMs), TaskManager first; waits until they have exited.
#
# Usage: testenv/flink/stop.sh [jobmanager|taskmanager]...   (default: both)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_lock "$FLINK_RUN_DIR/.lock"
comps=("$@")
[[ ${#comps[@]} -gt 0 ]] || comps=(taskmanager jobmanager)
for c in "${comps[@]}"; do
  case "$c" in
    jobmanager | taskmanager) stop_component "$c" ;;
    *) die "unknown component $c (want jobmanager or taskmanager)" ;;
  esac
done
rm -f "$FLINK_ENV_FILE"
log "stopped: ${comps[*]}"
