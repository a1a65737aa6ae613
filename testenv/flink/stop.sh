#!/usr/bin/env bash
# Stop the cluster start.sh started: only the pids recorded in testenv/.run/flink/*.pid (and only
# if they still are our JVMs), TaskManager first; waits until they have exited.
#
# Without FLINK_RUN_DIR and FLINK_VERSION it also stops the shared clusters of other versions
# (testenv/.run/flink-<version>/, started by FLINK_VERSION=… start.sh or flinkenv.EnsureVersion),
# the version matrix's (testenv/.run/flink-matrix-<version>/, matrix.sh) and the named shared ones
# (testenv/.run/flink-shared-<name>/, flinkenv.EnsureNamed), so
# testenv/stop-all.sh leaves no Flink running.
#
# Usage: testenv/flink/stop.sh [jobmanager|taskmanager]...   (default: both)
all_versions=false
[[ -z "${FLINK_RUN_DIR:-}" && -z "${FLINK_VERSION:-}" ]] && all_versions=true
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if $all_versions; then
  for d in "$TESTENV_DIR"/.run/flink-*; do
    # Each version's shared cluster (flink-<version>), its matrix cluster (flink-matrix-<version>)
    # and the named shared clusters (flink-shared-<name>).
    [[ -f "$d/version" ]] || continue
    [[ "$(basename "$d")" == "flink-$(cat "$d/version")" || "$(basename "$d")" == "flink-matrix-$(cat "$d/version")" \
      || "$(basename "$d")" == flink-shared-* ]] || continue
    FLINK_RUN_DIR="$d" FLINK_VERSION="$(cat "$d/version")" "$0" "$@"
  done
fi

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
