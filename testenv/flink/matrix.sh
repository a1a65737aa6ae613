#!/usr/bin/env bash
# The version matrix: one small Flink cluster per version of testenv/flink/versions.txt, side by
# side, each in testenv/.run/flink-matrix-<version>/ on free ports (1 JobManager of 768 MB, 1
# TaskManager of 1 GB with 4 slots unless FLINK_JM_MEMORY, FLINK_TM_MEMORY, FLINK_TM_SLOTS say
# otherwise). flinkenv.StartMatrix and backend/source/flink's TestVersionSmoke use it.
#
# FLINK_MATRIX_TRACES_OTLP_ENDPOINT (http://127.0.0.1:PORT, a loopback OTLP/gRPC receiver such as
# testenv/jaeger's) starts every cluster with its OpenTelemetry trace reporter on (start.sh's
# FLINK_TRACES_OTLP_ENDPOINT; 1.19/1.20 borrow flink-metrics-otel 2.0.0), service name
# flink-matrix-<version>. Unset, no cluster has a trace reporter. A running cluster is only reused
# with the endpoint it was started with (stop it first to change it).
#
# Usage: testenv/flink/matrix.sh list                 the versions (FLINK_MATRIX=1.19.3,2.3.0 narrows)
#        testenv/flink/matrix.sh start [VERSION...]   start them at once (default: all), wait until
#                                                     healthy; prints each one's env (start.sh's),
#                                                     a "# flink-matrix <version>" line before it,
#                                                     and on stderr the time and RSS each took
#        testenv/flink/matrix.sh rss [VERSION...]     RSS of each running JobManager and TaskManager
#        testenv/flink/matrix.sh stop [VERSION...]    stop them (testenv/flink/stop.sh does too)
#        testenv/flink/matrix.sh rundir VERSION       the run dir of VERSION's matrix cluster
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_root="$(cd "$here/.." && pwd)/.run"

versions() {
  if [[ -n "${FLINK_MATRIX:-}" ]]; then
    tr ', ' '\n\n' <<<"$FLINK_MATRIX" | grep -v '^$'
  else
    sed 's/#.*//; s/[[:space:]]//g' "$here/versions.txt" | grep -v '^$'
  fi
}

rundir() { echo "$run_root/flink-matrix-$1"; }

check() {
  [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "matrix.sh: $1 is not a version like 1.19.3" >&2; exit 2; }
}

# rss_of PID: resident set size in MB, "-" when gone.
rss_of() {
  local kb
  kb="$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null || true)"
  [[ -n "$kb" ]] && echo "$((kb / 1024))" || echo "-"
}

rss_line() {
  local v="$1" env jm tm
  env="$(rundir "$v")/env"
  [[ -f "$env" ]] || { printf '%-8s not running\n' "$v"; return; }
  jm="$(sed -n 's/^FLINK_JM_PID=//p' "$env")"
  tm="$(sed -n 's/^FLINK_TM_PID=//p' "$env")"
  printf '%-8s JobManager %5s MB  TaskManager %5s MB  %s\n' "$v" "$(rss_of "${jm:-0}")" "$(rss_of "${tm:-0}")" \
    "$(sed -n 's/^FLINK_REST_URL=//p' "$env")"
}

cmd="${1:-}"
[[ $# -gt 0 ]] && shift
want=("$@")
if [[ ${#want[@]} -eq 0 && "$cmd" != rundir ]]; then
  mapfile -t want < <(versions)
fi
for v in "${want[@]}"; do check "$v"; done
traces="${FLINK_MATRIX_TRACES_OTLP_ENDPOINT:-}"
if [[ -n "$traces" && ! "$traces" =~ ^http://(127\.[0-9]+\.[0-9]+\.[0-9]+|localhost|\[::1\]):[0-9]+/?$ ]]; then
  echo "matrix.sh: FLINK_MATRIX_TRACES_OTLP_ENDPOINT=$traces: want http://127.0.0.1:PORT (a loopback OTLP/gRPC receiver)" >&2
  exit 2
fi

case "$cmd" in
  list) printf '%s\n' "${want[@]}" ;;
  rundir)
    [[ ${#want[@]} -eq 1 ]] || { echo "usage: matrix.sh rundir VERSION" >&2; exit 2; }
    rundir "${want[0]}"
    ;;
  start)
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    t0=$(date +%s.%N)
    pids=()
    for v in "${want[@]}"; do
      (
        s=$(date +%s.%N)
        rc=0
        FLINK_VERSION="$v" FLINK_RUN_DIR="$(rundir "$v")" FLINK_REST_URL= FLINK_REST_PORT= FLINK_JM_RPC_PORT= \
          FLINK_JM_PROM_PORT= FLINK_TM_PROM_PORT= FLINK_TRACES_OTLP_ENDPOINT="$traces" \
          FLINK_TRACES_SERVICE_NAME="flink-matrix-$v" \
          FLINK_JM_MEMORY="${FLINK_JM_MEMORY:-768m}" FLINK_TM_MEMORY="${FLINK_TM_MEMORY:-1024m}" \
          FLINK_TM_SLOTS="${FLINK_TM_SLOTS:-4}" \
          "$here/start.sh" >"$tmp/$v.env" 2>"$tmp/$v.err" || rc=$?
        python3 -c "print(round($(date +%s.%N) - $s, 1))" >"$tmp/$v.secs"
        exit "$rc"
      ) &
      pids+=($!)
    done
    failed=0
    for i in "${!want[@]}"; do
      v="${want[$i]}"
      if wait "${pids[$i]}"; then
        echo "# flink-matrix $v"
        cat "$tmp/$v.env"
      else
        failed=$((failed + 1))
        echo "matrix.sh: Flink $v did not start:" >&2
        tail -n 40 "$tmp/$v.err" >&2
      fi
    done
    total="$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")"
    {
      echo "matrix.sh: ${#want[@]} clusters side by side in ${total}s"
      for v in "${want[@]}"; do
        printf '  %6ss  ' "$(cat "$tmp/$v.secs")"
        rss_line "$v"
      done
    } >&2
    [[ $failed -eq 0 ]] || exit 1
    ;;
  rss)
    for v in "${want[@]}"; do rss_line "$v"; done
    ;;
  stop)
    pids=()
    for v in "${want[@]}"; do
      [[ -d "$(rundir "$v")" ]] || continue
      FLINK_VERSION="$v" FLINK_RUN_DIR="$(rundir "$v")" "$here/stop.sh" &
      pids+=($!)
    done
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    exit $rc
    ;;
  *)
    sed -n '2,20p' "$0" >&2
    exit 2
    ;;
esac
