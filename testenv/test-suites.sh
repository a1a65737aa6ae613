#!/usr/bin/env bash
# `make test`: every suite, side by side where they share nothing, each suite's output kept in
# test-results/<suite>.log (printed when it fails), then a table of each suite's wall time and
# a closing line "suites: N passed, M failed". Exits non-zero when any suite failed; a failed
# suite does not stop the others, so one run says everything that fails.
#
# After the frontend build that all of them need, four lanes: go from the start, at a lower
# priority; beside it checks and apps side by side; go-app once checks and apps are done, beside
# the rest of go:
#   go-app   go test -race ./app/ -parallel 32: its real tests run side by side, one track per
#            cluster (app/tracks_real_test.go), one test after another on each track
#   go       go test -race on every other package (the real services are shared with go-app:
#            each starts once per run)
#   checks   vet, then the frontend's svelte-check and vitest, then each fuzz target briefly
#   apps     the two binaries, then the browser end-to-end test, the window under Xvfb, the package
# No test may need an idle machine (docs/reliability.md): the lanes load both cores.
#
# Usage: testenv/test-suites.sh      (make test; SUITES="vet go" runs only those suites)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
out=test-results
mkdir -p "$out"
times="$out/suite-times.tsv"
: >"$times"
make=(make --no-print-directory)
t0=$SECONDS

wanted() { [[ -z "${SUITES:-}" || " $SUITES " == *" $1 "* ]]; }

# suite NAME CMD...: runs CMD with its output in test-results/NAME.log and records its status
# and wall time; returns CMD's status.
suite() {
  local name=$1 start=$SECONDS rc
  shift
  wanted "$name" || return 0
  echo "test: $name started ($(date +%T))"
  "$@" >"$out/$name.log" 2>&1
  rc=$?
  printf '%s\t%d\t%d\t%d\n' "$name" "$rc" "$((SECONDS - start))" "$((start - t0))" >>"$times"
  echo "test: $name $([[ $rc -eq 0 ]] && echo passed || echo FAILED) in $((SECONDS - start)) s"
  return "$rc"
}

# The frontend build every lane needs (go:embed of frontend/dist, the binaries, the unit tests).
suite build-frontend "${make[@]}" frontend/dist/index.html

# The other packages' tests run at a lower priority than app's: theirs (the SeaTunnel node, the
# Flink version matrix, unit tests under -race) hold up on a starved machine, while app's
# real-cluster scenarios, which start jobs through the flink CLI (a JVM each), need the CPU
# they ask for when they ask.
go_rest() { nice -n 10 go test -race -count=1 -timeout 25m $(go list ./... | grep -vx 'checkpoint-explorer/app'); }

lane_checks() {
  suite vet "${make[@]}" vet
  suite frontend "${make[@]}" test-frontend
  suite fuzz "${make[@]}" test-fuzz
}

lane_apps() {
  suite build "${make[@]}" build/bin/checkpoint-explorer build/bin/checkpoint-explorer-window
  suite e2e "${make[@]}" test-e2e
  suite desktop "${make[@]}" test-desktop
  suite package "${make[@]}" test-package
}

# side_by_side LANE...: runs the lanes (functions or suites) at once and waits for all of them.
side_by_side() {
  local pids=() p
  for lane in "$@"; do
    "$lane" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
}
lane_go_app() { suite go-app go test -race -count=1 -parallel 32 -timeout 25m ./app/; }
lane_go() { suite go go_rest; }

# The other packages' Go tests run from the start at a lower priority; beside them what keeps
# both cores busy for a few minutes (compiling, fuzzing, a browser). app's real-cluster
# scenarios come after both: beside the other packages' real tests they loaded the 2 cores
# 30-fold, starved the clusters' JVMs and the collector tests' 20 ms polls, and failed tests
# that pass on a merely busy machine.
lane_go &
go_pid=$!
side_by_side lane_checks lane_apps
lane_go_app
wait "$go_pid"

# Each failed suite's log, then the go test lines of the passed Go suites (one per package).
passed=0 failed=0
while IFS=$'\t' read -r name rc _ _; do
  if [[ $rc -ne 0 ]]; then
    failed=$((failed + 1))
    echo
    echo "===== $name FAILED: test-results/$name.log ====="
    cat "$out/$name.log"
  else
    passed=$((passed + 1))
  fi
done <"$times"
for name in go-app go; do
  if grep -q "^$name	0	" "$times"; then
    echo
    grep -E '^(ok|FAIL|---|\?)' "$out/$name.log"
  fi
done
echo
echo "suite           status   seconds  from  last line"
sort -t$'\t' -k4,4n "$times" | while IFS=$'\t' read -r name rc secs from; do
  last=$(grep -v '^[[:space:]]*$' "$out/$name.log" | tail -1 | cut -c1-70)
  printf '%-15s %-8s %7d %5d  %s\n' "$name" "$([[ $rc -eq 0 ]] && echo ok || echo FAILED)" "$secs" "$from" "$last"
done
echo "all suites: $((SECONDS - t0)) s wall"
echo "suites: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
