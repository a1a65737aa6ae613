#!/usr/bin/env bash
# `make bench`: speed and memory figures, each measured against its own
# baseline in the same run where one exists. Prints a summary at the end.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/checkpoint-explorer"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary=()
cd "$root"

echo "== store: per-subtask rows through the product path vs a minimal prepared-insert loop"
out=$(CE_BENCH_STORE=1 go test -count=1 -run 'TestPrintWriteThroughput' -v ./backend/store/ 2>&1)
echo "$out" | grep -E 'rows/s|ratio|FAIL' || echo "$out" | tail -20
summary+=("$(echo "$out" | grep -E 'ratio' | head -1 | sed 's/^ *//')")

echo "== capture import: peak memory to import a 200 MB (uncompressed) capture"
CE_GEN_CAPTURE="$work/big.ckpt.gz" CE_GEN_CAPTURE_MB=200 go test -count=1 -run TestGenerateLargeCapture -v ./backend/capture/ 2>&1 | grep -E 'wrote|FAIL'
plain=$(zcat "$work/big.ckpt.gz" | wc -c)
/usr/bin/time -v "$bin" --data-dir "$work/data" import "$work/big.ckpt.gz" 2>"$work/time.txt" >"$work/import.txt"
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
cat "$work/import.txt"
line="capture import: $((plain / 1048576)) MiB uncompressed in ${secs}, peak RSS $((rss / 1024)) MiB (aim <= 256 MiB)"
echo "$line"
summary+=("$line")

echo "== analysis: 10,000 checkpoints x 8 vertices x 64 subtasks (5.12 M subtask stats)"
out=$(go test -count=1 -run '^$' -bench 'BenchmarkAnalyze10k$|BenchmarkBenchGen10k$' -benchmem -benchtime 3x ./backend/analyze/ 2>&1)
echo "$out" | grep -E 'Benchmark|FAIL' || true
summary+=("$(echo "$out" | grep -E '^BenchmarkAnalyze10k' | head -1)")
# Alone in its process, so the peak RSS is the streamed analysis's own.
out=$(go test -count=1 -run '^$' -bench 'BenchmarkAnalyzeStream10k$' -benchmem -benchtime 3x ./backend/analyze/ 2>&1)
echo "$out" | grep -E 'Benchmark|FAIL' || true
summary+=("$(echo "$out" | grep -E '^BenchmarkAnalyzeStream10k' | head -1) (checkpoints generated one at a time: subtract BenchmarkBenchGen10k; aim < 1 s and < 512 MiB)")
out=$(go test -count=1 -run '^$' -bench 'BenchmarkHeatmapStream10k$' -benchmem -benchtime 3x ./backend/analyze/ 2>&1)
echo "$out" | grep -E 'Benchmark|FAIL' || true
summary+=("$(echo "$out" | grep -E '^BenchmarkHeatmapStream10k' | head -1) (the three heatmaps, streamed)")

echo "== JobManager log: parsing a 16 MiB log (the reader's cap; read at most once a minute per cluster)"
out=$(go test -count=1 -run '^$' -bench 'BenchmarkParseJobManagerLog16MiB$' -benchmem -benchtime 3x ./backend/source/flink/ 2>&1)
echo "$out" | grep -E 'Benchmark|FAIL' || true
summary+=("$(echo "$out" | grep -E '^BenchmarkParseJobManagerLog16MiB' | head -1) (once a minute at most)")

echo "== report from the cache: the same job imported, then 'report --format json' (streamed from SQLite)"
CE_GEN_CAPTURE="$work/a10k.ckpt.gz" CE_GEN_CHECKPOINTS=10000 CE_GEN_VERTICES=8 CE_GEN_SUBTASKS=64 \
  go test -count=1 -run TestGenerateLargeCapture ./backend/capture/ >/dev/null
"$bin" --data-dir "$work/an" import "$work/a10k.ckpt.gz" >/dev/null
/usr/bin/time -v "$bin" --data-dir "$work/an" report --cluster "capture: bench" --job 0123456789abcdef0123456789abcdef \
  --format json 2>"$work/rtime.txt" >"$work/report.json"
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/rtime.txt")
secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/rtime.txt")
line="report from the cache, 10,000 x 8 x 64: ${secs}, peak RSS $((rss / 1024)) MiB, $(wc -c <"$work/report.json") bytes of JSON"
echo "$line"
summary+=("$line")

echo "== collection overhead on the real SeaTunnel 2.3.13 node, through a counting proxy (2 minutes)"
out=$(CE_BENCH_OVERHEAD=1 go test -count=1 -run 'TestSeaTunnelOverhead' -v ./backend/source/seatunnel/ 2>&1)
echo "$out" | grep -E 'seatunnel overhead|FAIL' || echo "$out" | tail -20
while IFS= read -r l; do summary+=("$l"); done < <(echo "$out" | grep -o 'seatunnel overhead.*')

echo "== collection overhead on the real Flink test cluster, through a counting proxy (2 minutes)"
out=$(CE_BENCH_OVERHEAD=1 go test -count=1 -run 'TestFlinkOverheadStaysWithinTheDocumentedBoundary' -v ./app/ 2>&1)
echo "$out" | sed -n '/overhead:/,/^---/p' | grep -v '^---' || echo "$out" | tail -20
summary+=("$(echo "$out" | grep -o 'overhead: .*' | head -1)")

echo "== collection through faults on the real Flink test cluster (toxiproxy TCP toxics with a 20 s cut; HTTP 503/close/stall/truncation)"
out=$(go test -count=1 -run 'TestFlinkCollectorLosesNothingThroughTCPFaults|TestFlinkCollectorLosesNothingThroughHTTPFaults' -v ./app/ 2>&1)
echo "$out" | grep -o 'faultproxy: .*' || echo "$out" | tail -20
while IFS= read -r l; do summary+=("$l"); done < <(echo "$out" | grep -o 'faultproxy: .*')

echo "== timeline in headless Chromium: 10,000 checkpoints x 20 phase bars"
CE_GEN_CAPTURE="$work/t10k.ckpt.gz" CE_GEN_CHECKPOINTS=10000 CE_GEN_VERTICES=4 CE_GEN_SUBTASKS=1 \
  go test -count=1 -run TestGenerateLargeCapture ./backend/capture/ >/dev/null
"$bin" --data-dir "$work/ui" import "$work/t10k.ckpt.gz" >/dev/null
if [ -f frontend/bench/timeline-bench.mjs ]; then
  "$bin" serve --data-dir "$work/ui" --no-collect >"$work/serve.out" 2>"$work/serve.err" &
  spid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$work/serve.out" || true)
    [ -n "$url" ] && break
    sleep 0.1
  done
  out=$(cd frontend && CE_URL="$url" CE_BENCH_CLUSTER="capture: bench" CE_BENCH_JOB=0123456789abcdef0123456789abcdef node bench/timeline-bench.mjs 2>&1)
  echo "$out"
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
  while IFS= read -r l; do summary+=("timeline: $l"); done < <(echo "$out" | grep -iE 'p95|first paint|memory' | head -3)
else
  echo "frontend/bench/timeline-bench.mjs is missing"
fi

echo
echo "== summary"
for s in "${summary[@]}"; do [ -n "$s" ] && echo "  $s"; done
