#!/usr/bin/env bash
# Fuzz every Go fuzz target of the repository, one after the other, each for FUZZ_TIME, and
# print one line per target (executions, new coverage, pass/fail) and a summary. Exits
# non-zero if any target fails; go test then has written the failing input under the package's
# testdata/fuzz/<Target>/ (fix the code and keep the file: it is a regression seed from then on).
#
# A plain `go test ./...` runs every target's seeds and every input under testdata/fuzz/ as
# ordinary tests; `make test` also runs this script with FUZZ_TIME=3s (about a minute for all),
# and `make fuzz` is the longer search for new inputs.
#
# Usage: testenv/fuzz.sh
#   FUZZ_TIME      how long each target is fuzzed (go test -fuzztime: 30s, 2m, or 1000x), default 30s
#   FUZZ_MATCH     run only the targets whose name matches this regexp (grep -E), default all
#   FUZZ_PARALLEL  fuzzing worker processes per target (go test -parallel), default GOMAXPROCS
#   FUZZ_MINIMIZE  go test -fuzzminimizetime, default 200x: go minimizes every input that finds new
#                  coverage, by default for up to 60 s, and a worker minimizing neither fuzzes nor
#                  reports; on inputs of a few KB a 30 s run would go to minimizing the first one
#   FUZZ_LOG_DIR   where each target's go test output is kept, default a temporary directory
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

fuzz_time="${FUZZ_TIME:-30s}"
match="${FUZZ_MATCH:-.}"
log_dir="${FUZZ_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/ce-fuzz.XXXXXX")}"
mkdir -p "$log_dir"
minimize="${FUZZ_MINIMIZE:-200x}"
parallel=()
[[ -n "${FUZZ_PARALLEL:-}" ]] && parallel=(-parallel "$FUZZ_PARALLEL")

# seconds D: a Go duration (1h2m3.5s, 30s, 500ms) in whole seconds, at least 1.
seconds() {
  local d="$1" total=0 n unit
  while [[ "$d" =~ ^([0-9.]+)(h|ms|m|s)(.*)$ ]]; do
    n="${BASH_REMATCH[1]}" unit="${BASH_REMATCH[2]}" d="${BASH_REMATCH[3]}"
    case "$unit" in
      h) total="$(awk -v t="$total" -v n="$n" 'BEGIN { print t + n * 3600 }')" ;;
      m) total="$(awk -v t="$total" -v n="$n" 'BEGIN { print t + n * 60 }')" ;;
      s) total="$(awk -v t="$total" -v n="$n" 'BEGIN { print t + n }')" ;;
      ms) total="$(awk -v t="$total" -v n="$n" 'BEGIN { print t + n / 1000 }')" ;;
    esac
  done
  [[ -z "$d" ]] || { echo "fuzz.sh: FUZZ_TIME=$fuzz_time is not a duration such as 30s or 2m" >&2; exit 2; }
  awk -v t="$total" 'BEGIN { s = int(t + 0.5); print (s < 1 ? 1 : s) }'
}
secs=""  # with a count of executions (-fuzztime 1000x), rates are per second of wall time
if [[ ! "$fuzz_time" =~ ^[0-9]+x$ ]]; then
  secs="$(seconds "$fuzz_time")" || exit 2
fi

# Every target: go test -list prints a package's matching names, then "ok <package> ...".
echo "fuzz: listing the targets (go test -list)..."
list="$log_dir/list.txt"
if ! go test -list '^Fuzz' ./... >"$list" 2>&1; then
  cat "$list" >&2
  echo "fuzz: go test -list failed" >&2
  exit 2
fi
targets=()
pending=()
while read -r first second _; do
  case "$first" in
    Fuzz*) pending+=("$first") ;;
    ok)
      for name in "${pending[@]}"; do
        [[ "$name" =~ $match ]] && targets+=("$second $name")
      done
      pending=()
      ;;
    *) pending=() ;;
  esac
done <"$list"
[[ ${#targets[@]} -gt 0 ]] || { echo "fuzz: no target matches $match" >&2; exit 2; }
echo "fuzz: ${#targets[@]} targets, $fuzz_time each; logs in $log_dir"

module="$(go list -m)"
failed=0 total_execs=0
for t in "${targets[@]}"; do
  pkg="${t% *}" name="${t#* }"
  short="${pkg#"$module"/}"
  [[ "$pkg" == "$module" ]] && short="."
  log="$log_dir/${short//\//_}.$name.log"
  stats="$log_dir/${short//\//_}.$name.stats"
  start=$SECONDS
  # Go 1.26's fuzz coordinator can end a duration-bounded run with a bare "context deadline
  # exceeded" at the -fuzztime boundary when its workers are starved of CPU (go.dev/issue/75804,
  # fixed in 1.27): no input failed and none is written. That run is repeated, at most twice;
  # a real failure always names the input it wrote under testdata/fuzz/.
  for attempt in 1 2 3; do
    rm -rf "$stats" && mkdir -p "$stats"
    start=$SECONDS
    CE_FUZZ_STATS="$stats" go test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzz_time" -fuzzminimizetime "$minimize" \
      "${parallel[@]}" "$pkg" >"$log" 2>&1
    rc=$?
    if [[ $rc -ne 0 && $attempt -lt 3 ]] && grep -q 'context deadline exceeded' "$log" &&
      ! grep -q 'Failing input written' "$log"; then
      echo "     ($name: go's fuzz deadline race, go.dev/issue/75804, no input failed: run again)"
      continue
    fi
    break
  done
  took="${secs:-$((SECONDS - start > 0 ? SECONDS - start : 1))}"
  # go test's own "execs" stands still while a worker minimizes (and counts none of that
  # work): the targets count their executions themselves (testenv/fuzzenv.Count), per process.
  execs="$(cat "$stats"/execs.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')"
  last="$(grep -E '^fuzz: elapsed: .*new interesting' "$log" | tail -1)"
  # Count writes every quarter second, so on a short run go's own count can be the larger.
  if [[ "$last" =~ execs:\ ([0-9]+) ]] && ((BASH_REMATCH[1] > execs)); then
    execs="${BASH_REMATCH[1]}"
  fi
  interesting="?" corpus="?"
  if [[ "$last" =~ new\ interesting:\ ([0-9]+)\ \(total:\ ([0-9]+)\) ]]; then
    interesting="${BASH_REMATCH[1]}" corpus="${BASH_REMATCH[2]}"
  fi
  total_execs=$((total_execs + execs))
  status=PASS
  if [[ $rc -ne 0 ]]; then
    status=FAIL
    failed=$((failed + 1))
  fi
  printf '%-4s %-28s %-26s execs %10d (%6d/s)  new coverage %4s (corpus %s)\n' \
    "$status" "$short" "$name" "$execs" "$((execs / took))" "$interesting" "$corpus"
  if [[ $rc -ne 0 ]]; then
    grep -vE '^fuzz: elapsed|^=== ' "$log" | sed -n '1,40p' | sed 's/^/     | /'
  fi
done

echo "fuzz: ${#targets[@]} targets, $((${#targets[@]} - failed)) passed, $failed failed, $total_execs executions in all"
[[ $failed -eq 0 ]]
