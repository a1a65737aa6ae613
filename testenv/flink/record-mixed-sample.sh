#!/usr/bin/env bash
# Records the bundled mixed-cause sample: the knob job on a real Flink 1.20 cluster with two
# problems at once — Slow Map backpressures the Source (--sleep-ms 3 at --rate 2000) and Slow
# Snapshot's synchronous snapshot takes 300 ms — captured for 45 s by `checkpoint-explorer capture`.
#
# Usage: testenv/flink/record-mixed-sample.sh [OUT]   (default app/sample/flink120-mixed.ckpt.gz)
# FLINK_VERSION picks the cluster (default 1.20.5; its own run dir, started and left running
# like the shared one). Takes about a minute and a half.
export FLINK_VERSION="${FLINK_VERSION:-1.20.5}"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

root="$(cd "$FLINK_SCRIPTS_DIR/../.." && pwd)"
out="${1:-$root/app/sample/flink120-mixed.ckpt.gz}"
secs="${SAMPLE_SECONDS:-45}"
"$FLINK_SCRIPTS_DIR/fetch.sh" >/dev/null
"$FLINK_SCRIPTS_DIR/start.sh" >/dev/null
url="$(rest_url)"
cli="$FLINK_RUN_DIR/ce-cli"
# The binary embeds the sample it is about to record: a first recording builds with an empty one.
[[ -f "$out" ]] || : >"$out"
(cd "$root" && go build -o "$cli" .) || die "build checkpoint-explorer"

jid="$("$FLINK_SCRIPTS_DIR/submit.sh" --name "mixed: backpressure and a slow snapshot" --interval-ms 1000 \
  --rate 2000 --sleep-ms 3 --slow-snapshot-ms 300 | tail -1)"
[[ "$jid" =~ ^[0-9a-f]{32}$ ]] || die "submit printed $jid"
trap '"$FLINK_SCRIPTS_DIR/cancel.sh" "$jid" >/dev/null 2>&1' EXIT
log "job $jid: recording ${secs}s into $out"
"$cli" capture --engine flink --url "$url" --job "$jid" --duration "${secs}s" --name "flink-1.20-lab" --out "$out.tmp" ||
  die "capture failed"
mv "$out.tmp" "$out"
log "wrote $out ($(du -h "$out" | cut -f1))"
