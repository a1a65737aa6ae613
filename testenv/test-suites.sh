#!/usr/bin/env bash
# `make test`: every suite in turn, each suite's output kept in test-results/<suite>.log (printed
# when it fails), then a table of each suite's wall time and a closing line
# "suites: N passed, M failed". Exits non-zero when any suite failed; a failed suite does not
# stop the ones after it, so one run says everything that fails.
#
# Suites, in order: vet, frontend (svelte-check, vitest), go (go test -race ./..., with the real
# services it starts), fuzz (each target briefly), e2e (browser), desktop (the window under
# Xvfb), package. They run one after another: the real-cluster Go tests are timed against a
# machine that runs only them (docs/reliability.md); running suites side by side is the next
# step of making `make test` shorter.
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

suite vet "${make[@]}" vet
suite frontend "${make[@]}" test-frontend
suite go "${make[@]}" test-go
suite fuzz "${make[@]}" test-fuzz
suite e2e "${make[@]}" test-e2e
suite desktop "${make[@]}" test-desktop
suite package "${make[@]}" test-package

# Each failed suite's log, then the Go packages' lines of a passed go suite.
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
if grep -q "^go	0	" "$times"; then
  echo
  grep -E '^(ok|FAIL|---|\?)' "$out/go.log"
fi
echo
echo "suite           status   seconds  from  last line"
while IFS=$'\t' read -r name rc secs from; do
  last=$(grep -v '^[[:space:]]*$' "$out/$name.log" | tail -1 | cut -c1-70)
  printf '%-15s %-8s %7d %5d  %s\n' "$name" "$([[ $rc -eq 0 ]] && echo ok || echo FAILED)" "$secs" "$from" "$last"
done <"$times"
echo "all suites: $((SECONDS - t0)) s wall"
echo "suites: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
