# shellcheck shell=bash
# Helpers of testenv/soak.sh; sourced, never run.

log() { printf '[soak %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

now_ms() { date +%s%3N; }

# exited_within PID DELAY_MS START_MS: waits until DELAY_MS after START_MS, or until PID exits
# first; true if it exited (then the caller waits for its status), false if it still runs.
exited_within() {
  local pid="$1" delay="$2" t0="$3"
  while (($(now_ms) - t0 < delay)); do
    [[ -d "/proc/$pid" ]] || return 0
    sleep 0.02
  done
  return 1
}

# run_kill9 MAX_MS ERR CMD...: runs CMD (stdout dropped, stderr appended to ERR) and kills it with
# SIGKILL at a random moment 50 to MAX_MS ms after its start, unless it ends first. Sets KILL_AT
# (that moment) and RUN_END: killed, exited (with status 0) or failed.
# shellcheck disable=SC2034 # RUN_END is soak.sh's
run_kill9() {
  local max="$1" err="$2" pid t0
  shift 2
  KILL_AT=$(rand_ms 50 "$max")
  t0=$(now_ms)
  "$@" >/dev/null 2>>"$err" &
  pid=$!
  if ! exited_within "$pid" "$KILL_AT" "$t0"; then
    kill9 "$pid"
    RUN_END=killed
  elif wait "$pid"; then
    RUN_END=exited
  else
    RUN_END=failed
  fi
}

# reopen_timed DIR ERR WHAT: the next command on a cache a kill left (`clusters list`, which
# opens it, recovering its WAL), its time appended to REOPEN_MS; a failure is WHAT's.
reopen_timed() {
  local t
  t=$(now_ms)
  "$CE" --data-dir "$1" clusters list >/dev/null 2>>"$2" || fail "$3"
  REOPEN_MS+=($(($(now_ms) - t)))
}

# rand_ms LO HI: a random whole number of milliseconds in [LO, HI].
rand_ms() {
  local lo="$1" hi="$2"
  echo $((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
}

# sleep_ms N
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }

# wait_ci: a timing-sensitive test run announces itself with /tmp/ce-ci-running; while it exists
# the soak does not start anything heavy (polled every 30 s).
wait_ci() {
  local waited=0
  while [[ -e /tmp/ce-ci-running ]]; do
    ((waited == 0)) && log "waiting: /tmp/ce-ci-running exists (a timing-sensitive test run); polling every 30 s"
    waited=1
    sleep 30
  done
  ((waited == 0)) || log "/tmp/ce-ci-running is gone; going on"
}

# machine_load prints the 1-minute load average and the CPU pressure (share of the last 10 s some
# task waited for a CPU), so each figure can be read against how busy the shared machine was.
machine_load() {
  local la psi=""
  la="$(cut -d' ' -f1 /proc/loadavg)"
  [[ -r /proc/pressure/cpu ]] && psi=", CPU pressure $(sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/cpu)%"
  echo "load $la on $(nproc) cores$psi"
}

# Processes this run started; cleanup stops only these.
OUR_PIDS=()
track() { OUR_PIDS+=("$1"); }

# stop_ours PID: TERM, up to 10 s, then KILL; only for pids this run started.
stop_ours() {
  local pid="$1" i
  [[ -n "$pid" && -d "/proc/$pid" ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    [[ -d "/proc/$pid" ]] || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# kill9 PID: SIGKILL and reap.
kill9() {
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# sq DB SQL: one read-only query, rows as A|B|C (sqlite3 CLI, else testenv/soak/dbcheck -q).
sq() {
  if command -v sqlite3 >/dev/null; then
    sqlite3 -readonly -batch "$1" "$2"
  else
    "$W/bin/dbcheck" -q "$2" "$1"
  fi
}

# dbcheck DIR: runs testenv/soak/check.sql read-only on DIR/cache.db into $CK_OUT and sets
# CK_INTEGRITY, CK_BAD (partial checkpoints, stray detail rows, job counts that disagree), CK_TOTAL, CK_USED,
# CK_PRUNED (checkpoints removed by retention so far) and CK_JOBS[cluster/job]=count.
declare -A CK_JOBS
dbcheck() {
  local db="$1/cache.db" out
  CK_OUT="$W/check.out"
  if command -v sqlite3 >/dev/null; then
    out="$(sqlite3 -readonly -batch "$db" <"$SOAK_DIR/check.sql" 2>&1)" || out="error|$out"
  else
    out="$("$W/bin/dbcheck" -sql "$SOAK_DIR/check.sql" "$db" 2>&1)" || out="error|$out"
  fi
  printf '%s\n' "$out" >"$CK_OUT"
  CK_INTEGRITY="$(awk -F'|' '$1=="integrity"{print $2}' "$CK_OUT")"
  [[ -n "$CK_INTEGRITY" ]] || CK_INTEGRITY="$(head -c 300 "$CK_OUT" | tr '\n' ' ')"
  CK_BAD="$(awk -F'|' '$1=="bad_detail"||$1=="missing_packs"||$1=="stray_packs"||$1=="orphan_tasks"||$1=="bad_counts"{s+=$2; n++} END{print (n==5 ? s : "unknown")}' "$CK_OUT")"
  CK_TOTAL="$(awk -F'|' '$1=="checkpoints"{print $2}' "$CK_OUT")"
  CK_USED="$(awk -F'|' '$1=="used_bytes"{print $2}' "$CK_OUT")"
  CK_PRUNED="$(awk -F'|' '$1=="pruned"{print $2}' "$CK_OUT")"
  CK_JOBS=()
  local k c j n rest
  while IFS='|' read -r k c j n rest; do
    [[ "$k" == job ]] && CK_JOBS["$c/$j"]="$n"
  done <"$CK_OUT"
}

# dbcheck_ok: integrity ok and nothing partial (after dbcheck).
dbcheck_ok() { [[ "$CK_INTEGRITY" == ok && "$CK_BAD" == 0 ]]; }

# stats NAME VALUES...: "NAME p50 X ms, p95 Y ms, max Z ms (n)" of whole-ms values.
stats() {
  local name="$1"
  shift
  if (($# == 0)); then
    echo "$name: none"
    return
  fi
  printf '%s\n' "$@" | sort -n | awk -v name="$name" '{v[NR]=$1} END{
    p50=v[int((NR+1)/2)]; i=int(NR*0.95+0.999); if(i<1)i=1; if(i>NR)i=NR;
    printf "%s p50 %d ms, p95 %d ms, max %d ms (n=%d)\n", name, p50, v[i], v[NR], NR}'
}

# serve_url FILE: the URL `serve` printed, if it did.
serve_url() { grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9A-Za-z_-]*' "$1" 2>/dev/null | head -1; }

# api URL METHOD JSON-ARGS: calls the facade through serve's local API; prints the result.
api() {
  local base="${1%%/?token=*}" token="${1##*token=}"
  curl -sf --max-time 60 -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "$3" "$base/api/app.App.$2" | jq -c '.result'
}

# proc_cpu_ticks PID: user + system CPU time in clock ticks.
proc_cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# proc_hwm_kb PID: peak resident set size (VmHWM) in KiB.
proc_hwm_kb() { awk '/^VmHWM:/{print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

mib() { awk -v b="$1" 'BEGIN{printf "%.1f MiB", b/1048576}'; }

# write_config DIR RETENTION_JSON [CLUSTERS_JSON]: the app's config.json before its first start,
# so that the default limits (5,000 checkpoints per job) never touch a generated cache.
write_config() {
  mkdir -p "$1"
  printf '{"clusters": %s, "retention": %s}\n' "${3:-[]}" "$2" >"$1/config.json"
  chmod 600 "$1/config.json"
}

FAILS=0
FAIL_MSGS=()
fail() {
  FAILS=$((FAILS + 1))
  FAIL_MSGS+=("$*")
  log "FAILURE: $*"
}

SUMMARY=()
summary() {
  SUMMARY+=("$*")
  log "$*"
}
