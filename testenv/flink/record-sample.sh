#!/usr/bin/env bash
# Records the bundled first-run sample: the knob job on the real test cluster,
# once per knob, one job after the other, all captured by one
# `checkpoint-explorer capture --new-jobs`.
#
# Usage: testenv/flink/record-sample.sh [OUT]   (default app/sample/flink-knobs.ckpt.gz)
# Takes about 8 minutes. Phase lengths scale with $SAMPLE_SCALE (default 1).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

root="$(cd "$FLINK_SCRIPTS_DIR/../.." && pwd)"
out="${1:-$root/app/sample/flink-knobs.ckpt.gz}"
scale="${SAMPLE_SCALE:-1}"
"$FLINK_SCRIPTS_DIR/start.sh" >/dev/null
url="$(rest_url)"
cli="$FLINK_RUN_DIR/ce-cli"
# The binary embeds the sample it is about to record: a first recording builds with an empty one.
[[ -f "$root/app/sample/flink-knobs.ckpt.gz" ]] || : >"$root/app/sample/flink-knobs.ckpt.gz"
(cd "$root" && go build -o "$cli" .) || die "build checkpoint-explorer"

base=(--interval-ms 1000 --rate 300 --parallelism 2 --state-bytes-per-record 8 --state-max-bytes 2000000)
# One job per knob, one after the other: name|seconds|args
phases=(
  "healthy baseline|60|"
  "backpressure from a slow operator|75|--sleep-ms 4 --rate 0"
  "slow synchronous snapshot|60|--slow-snapshot-ms 1200"
  "snapshots that throw|60|--fail-every 4"
  "checkpoints that expire|45|--slow-snapshot-ms 2600 --checkpoint-timeout-ms 2000"
  "growing state|60|--state-bytes-per-record 400 --state-max-bytes 60000000"
)
total=0
for p in "${phases[@]}"; do rest="${p#*|}"; total=$((total + ${rest%%|*} * scale + 20)); done

log "recording about ${total}s into $out"
"$cli" capture --engine flink --url "$url" --new-jobs --job-name-prefix "knobs: " --duration "$((total + 60))s" --name "flink-lab" --out "$out.tmp" &
capture_pid=$!
jid=""
trap 'kill $capture_pid 2>/dev/null; [[ -n "$jid" ]] && "$FLINK_SCRIPTS_DIR/cancel.sh" "$jid" >/dev/null 2>&1' EXIT
sleep 2
for p in "${phases[@]}"; do
  name="${p%%|*}"; rest="${p#*|}"; secs="${rest%%|*}"; args="${rest#*|}"
  # shellcheck disable=SC2086
  jid="$("$FLINK_SCRIPTS_DIR/submit.sh" --name "knobs: $name" "${base[@]}" $args | tail -1)"
  [[ "$jid" =~ ^[0-9a-f]{32}$ ]] || die "submit '$name' printed $jid"
  log "job $jid: $name ($((secs * scale)) s) $args"
  sleep $((secs * scale))
  "$FLINK_SCRIPTS_DIR/cancel.sh" "$jid" >/dev/null
  jid=""
done
sleep 12 # the last job's final poll
kill -INT "$capture_pid"
wait "$capture_pid" || die "capture failed"
trap - EXIT
mv "$out.tmp" "$out"
log "wrote $out ($(du -h "$out" | cut -f1))"
