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

echo "== fleet: 2,000 jobs in 20 clusters at a 10 s interval: the query (backend/fleet), then the view in headless Chromium"
# A day of all 2,000 jobs is 17.3 M checkpoints, too many to generate here. A row reads its job's
# window (1 h: 361 checkpoints) and the newest 200 completed before it (its baseline), so each job
# keeps its newest 600 checkpoints, and one job per cluster its whole day (8,640), to show what the
# rest of a day costs a row. Generated once per version of the generator and the schema.
fleet_args=(-fleet -cluster fleet -clusters 20 -main 0 -total 17280000 -filler-jobs 2000 -filler-keep 600 -filler-whole 20
  -filler-metrics 361 -filler-vertices 3 -filler-subtasks 2 -filler-interval 10s)
fleet_key=$( (cat testenv/soak/genhistory/main.go backend/model/modeltest/*.go backend/store/schema.go; echo "${fleet_args[*]}") |
  sha256sum | cut -c1-12)
fleet_db="$root/testenv/.cache/fleet/fleet-$fleet_key.db"
if [ -f "$fleet_db" ]; then
  echo "fleet cache: generated earlier ($fleet_db)"
else
  mkdir -p "$(dirname "$fleet_db")"
  rm -f "$(dirname "$fleet_db")"/fleet-*.db*
  t0=$(date +%s)
  # genhistory's store checkpoints its WAL into the file when it closes.
  if go build -o "$work/genhistory" ./testenv/soak/genhistory &&
    nice "$work/genhistory" -db "$fleet_db.tmp" "${fleet_args[@]}" >"$work/genfleet.txt"; then
    mv "$fleet_db.tmp" "$fleet_db"
    sed 's/^genhistory: /fleet cache: /' "$work/genfleet.txt"
    echo "fleet cache: generated in $(($(date +%s) - t0)) s, kept as $fleet_db"
  else
    echo "fleet cache: generation failed"
  fi
fi
line="fleet data: not a day of every job (17.3 M checkpoints) but what a row reads: each of the 2,000 jobs keeps its newest 600 checkpoints (the 1 h window, 361, and its baseline, the 200 completed before it), 20 jobs (one per cluster) their whole day of 8,640, to show the rest of a day costs a row nothing; 3 vertices x 2 subtasks; backpressure, busy and idle samples of every vertex over the window (the 20: all day); the clusters are captures, so each window ends at its job's newest checkpoint"
echo "$line"
summary+=("$line")
out=""
[ -f "$fleet_db" ] &&
  out=$(CE_BENCH_FLEET_DB="$fleet_db" CE_BENCH_FLEET_JSON="$work/fleet.json" go test -count=1 -timeout 60m -run 'TestPrintFleetCost' -v ./backend/fleet/ 2>&1)
echo "$out" | grep -oE 'fleet (query|row|live|first|JSON).*|FAIL.*' || echo "$out" | tail -20
while IFS= read -r l; do summary+=("$l"); done < <(echo "$out" | grep -oE 'fleet (query|row|live|first).*')
if [ -s "$work/fleet.json" ] && [ -f frontend/bench/fleet-bench.mjs ]; then
  out=$(cd frontend && CE_BENCH_FLEET_JSON="$work/fleet.json" node bench/fleet-bench.mjs 2>&1)
  echo "$out"
  while IFS= read -r l; do summary+=("$l"); done < <(echo "$out" | grep -E '^fleet (first paint|live update)')
fi

echo
echo "== summary"
for s in "${summary[@]}"; do [ -n "$s" ] && echo "  $s"; done
