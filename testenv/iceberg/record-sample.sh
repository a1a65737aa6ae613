#!/usr/bin/env bash
# Records the bundled Iceberg sample: the Iceberg sink job on the real Flink 1.20 cluster, its
# table location slowed so that every commit takes about 1.9 s (--commit-delay-ms 300 on each of
# a commit's six metadata file operations), checkpointing every 5 s, captured for 90 s by
# `checkpoint-explorer capture`: the sink-commit lane, a commit per checkpoint window, and the
# committer's start delay behind the commit.
#
# Usage: testenv/iceberg/record-sample.sh [OUT]   (default app/sample/flink120-iceberg.ckpt.gz)
# Takes about a minute and a half.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export FLINK_VERSION=1.20.5
out="${1:-$root/app/sample/flink120-iceberg.ckpt.gz}"
secs="${SAMPLE_SECONDS:-90}"
"$root/testenv/flink/start.sh" >/dev/null
url="$(grep '^FLINK_REST_URL=' "$root/testenv/.run/flink-1.20.5/env" | cut -d= -f2)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cli="$work/ce-cli"
# The binary embeds the sample it is about to record: a first recording builds with an empty one.
[[ -f "$out" ]] || : >"$out"
(cd "$root" && go build -o "$cli" .)
jid="$("$here/submit.sh" --warehouse "$work/warehouse" --name "iceberg: slow commits" --interval-ms 5000 \
  --rate 200 --commit-delay-ms 300 | tail -1)"
[[ "$jid" =~ ^[0-9a-f]{32}$ ]] || { echo "submit printed $jid" >&2; exit 1; }
trap '"$root/testenv/flink/cancel.sh" "$jid" >/dev/null 2>&1; rm -rf "$work"' EXIT
echo "job $jid: recording ${secs}s into $out" >&2
"$cli" capture --engine flink --url "$url" --job "$jid" --duration "${secs}s" --name "flink-1.20-iceberg" --out "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(du -h "$out" | cut -f1))" >&2
