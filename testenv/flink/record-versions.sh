#!/usr/bin/env bash
# Record one answer of every endpoint the Flink client reads, per version of the matrix
# (testenv/flink/versions.txt), into backend/source/flink/testdata/versions/<version>/, for
# versions_test.go. Starts the matrix clusters that are not running (matrix.sh start), runs two
# knob jobs on each (A: parallelism 2, every third checkpoint declined, growing state; B: a
# saturated "Slow Map" backpressuring its source), waits until A has completed and failed
# checkpoints and B's source is backpressured, saves the answers, cancels the jobs. The versions
# are recorded at the same time; about a minute. Bodies are kept as Flink sent them.
#
# Usage: testenv/flink/record-versions.sh [VERSION...]   (default: every version of the matrix)
#
# Files: overview, config, jobs-overview, job (A), checkpoints (A), checkpoint-completed,
# checkpoint-failed (details), subtasks-completed ("Stateful Counter" in the completed one),
# subtasks-failed ("Snapshot Thrower" in the failed one), checkpoint-config, job-config
# (/jobs/:jid/config), jobmanager-config, job-jobmanager-config, metric-names (B's source,
# no get), metrics (B's source: backPressured/busy/idle, max and avg), backpressure (B's source),
# logs (/jobmanager/logs) .json, jobmanager.log.gz (/jobmanager/log, gzipped) and meta.json (the
# ids used).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
outroot="$root/backend/source/flink/testdata/versions"

if [[ $# -gt 0 ]]; then want=("$@"); else mapfile -t want < <("$here/matrix.sh" list); fi
"$here/matrix.sh" start "${want[@]}" >/dev/null

record() {
  local v="$1" rd url out a b
  rd="$("$here/matrix.sh" rundir "$v")"
  url="$(sed -n 's/^FLINK_REST_URL=//p' "$rd/env")"
  out="$outroot/$v"
  rm -rf "$out.tmp"
  mkdir -p "$out.tmp"
  sub() { FLINK_RUN_DIR="$rd" FLINK_VERSION="$v" FLINK_REST_URL= "$here/submit.sh" "$@" | tail -n1; }
  a="$(sub --name "record A" --parallelism 2 --rate 200 --interval-ms 1000 --fail-every 3 --slow-snapshot-ms 100 --state-bytes-per-record 64)"
  b="$(sub --name "record B" --rate 0 --sleep-ms 1 --interval-ms 2000)"
  trap 'FLINK_RUN_DIR="$rd" FLINK_VERSION="$v" FLINK_REST_URL= "$here/cancel.sh" "$a" "$b" >/dev/null 2>&1 || true' EXIT
  vertex() { curl -sf "$url/jobs/$1" | jq -r --arg n "$2" '.vertices[] | select(.name == $n) | .id'; }
  local src counter thrower metrics="backPressuredTimeMsPerSecond,busyTimeMsPerSecond,idleTimeMsPerSecond"
  src="$(vertex "$b" "Source: Numbers")" counter="$(vertex "$a" "Stateful Counter")" thrower="$(vertex "$a" "Snapshot Thrower")"
  local deadline=$(($(date +%s) + 120)) hist completed="" failed="" bp=0
  while :; do
    hist="$(curl -sf "$url/jobs/$a/checkpoints")"
    completed="$(jq -r '[.history[] | select(.status == "COMPLETED")][0].id // empty' <<<"$hist")"
    failed="$(jq -r '[.history[] | select(.status == "FAILED")][0].id // empty' <<<"$hist")"
    bp="$(curl -sf "$url/jobs/$b/vertices/$src/subtasks/metrics?get=backPressuredTimeMsPerSecond&agg=max" |
      jq -r '.[0].max // 0 | floor')"
    # At least 8 checkpoints, so the history holds both kinds more than once.
    if [[ -n "$completed" && -n "$failed" && "$(jq -r '.history[0].id // 0' <<<"$hist")" -ge 8 && "$bp" -gt 500 ]]; then
      break
    fi
    (($(date +%s) < deadline)) || { echo "[record $v] ERROR: no completed+failed checkpoints or backpressure after 120 s (bp $bp)" >&2; return 1; }
    sleep 1
  done
  # get FILE PATH: the body into FILE; fails unless HTTP 200.
  get() {
    [[ "$(curl -sS -o "$out.tmp/$1" -w '%{http_code}' "$url$2")" == 200 ]]
  }
  # The details of the newest completed and failed checkpoints of the very list answer. The list
  # comes from a snapshot up to 3 s old, the details from a fresher one: a checkpoint that just
  # left the 10-deep history answers 404 (seen on 1.19 under load), so try again.
  local try ok=false
  for try in 1 2 3 4 5 6 7 8 9 10; do
    get checkpoints.json "/jobs/$a/checkpoints" || continue
    completed="$(jq -r '[.history[] | select(.status == "COMPLETED")][0].id' "$out.tmp/checkpoints.json")"
    failed="$(jq -r '[.history[] | select(.status == "FAILED")][0].id' "$out.tmp/checkpoints.json")"
    if get checkpoint-completed.json "/jobs/$a/checkpoints/details/$completed" &&
      get checkpoint-failed.json "/jobs/$a/checkpoints/details/$failed" &&
      get subtasks-completed.json "/jobs/$a/checkpoints/details/$completed/subtasks/$counter" &&
      get subtasks-failed.json "/jobs/$a/checkpoints/details/$failed/subtasks/$thrower"; then
      ok=true
      break
    fi
    sleep 1
  done
  $ok || { echo "[record $v] ERROR: checkpoint details kept answering 404" >&2; return 1; }
  get overview.json /overview
  get config.json /config
  get jobs-overview.json /jobs/overview
  get job.json "/jobs/$a"
  get checkpoint-config.json "/jobs/$a/checkpoints/config"
  get job-config.json "/jobs/$a/config"
  get jobmanager-config.json /jobmanager/config
  get job-jobmanager-config.json "/jobs/$a/jobmanager/config"
  get metric-names.json "/jobs/$b/vertices/$src/subtasks/metrics"
  get metrics.json "/jobs/$b/vertices/$src/subtasks/metrics?get=$metrics&agg=max,avg"
  get backpressure.json "/jobs/$b/vertices/$src/backpressure"
  get logs.json /jobmanager/logs
  get jobmanager.log /jobmanager/log
  gzip -9n "$out.tmp/jobmanager.log" # ~300 KB of text: kept compressed
  jq -n --arg v "$v" --arg a "$a" --arg b "$b" --argjson c "$completed" --argjson f "$failed" \
    --arg counter "$counter" --arg thrower "$thrower" --arg src "$src" --arg m "$metrics" \
    '{version: $v, job: $a, completed: $c, failed: $f, subtasks_completed_vertex: $counter,
      subtasks_failed_vertex: $thrower, backpressure_job: $b, backpressure_vertex: $src,
      metrics: ($m | split(","))}' >"$out.tmp/meta.json"
  rm -rf "$out"
  mv "$out.tmp" "$out"
  echo "[record $v] $(du -sh "$out" | cut -f1) in $out" >&2
}

pids=()
for v in "${want[@]}"; do
  record "$v" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
exit $rc
