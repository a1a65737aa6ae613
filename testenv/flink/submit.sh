#!/usr/bin/env bash
# Submit the knob job over REST (POST /jars/upload once per jar version, POST /jars/:id/run) and
# print its job id. Waits until every vertex is RUNNING (checkpoints start only then).
#
# Usage: testenv/flink/submit.sh [script options] [job args...]
#   script options:
#     --job-id ID          submit with this job id (32 hex digits), e.g. to continue a job
#     --restore PATH       start from a savepoint / retained checkpoint; "latest" = the newest
#                          retained checkpoint of --job-id under testenv/.run/flink/checkpoints
#     --allow-non-restored allow state that does not map to the job
#     --no-wait            return as soon as Flink accepted the job
#     --jar PATH           submit this job jar instead of the knob job (testenv/iceberg does);
#                          builds of it with another hash ("<name>-<hash>.jar") are deleted
#   job args (see README.md): --rate N --sleep-ms N --slow-map-input forward|rebalance --state-bytes-per-record N --slow-snapshot-ms N
#     --slow-snapshot-every N --fail-every N --checkpoint-timeout-ms N --interval-ms N --parallelism N --tolerable-failures N
#     --unaligned --name NAME --min-pause-ms N --max-concurrent N --state-backend hashmap|rocksdb
#     --incremental --state-max-bytes N --state-incompressible B --slow-snapshot-spread B
#     --rocksdb-managed-memory B
# The REST URL is $FLINK_REST_URL, else the running test cluster's.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

job_id="" restore="" allow_nr=false wait=true jar=""
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jar) jar="${2:?--jar needs a path}"; shift 2 ;;
    --job-id) job_id="${2:?--job-id needs a value}"; shift 2 ;;
    --restore) restore="${2:?--restore needs a value}"; shift 2 ;;
    --allow-non-restored) allow_nr=true; shift ;;
    --no-wait) wait=false; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

url="$(rest_url)"
if [[ -z "$jar" ]]; then
  "$FLINK_SCRIPTS_DIR/fetch.sh"
  jar="$(readlink -f "$FLINK_JOB_JAR_LINK")"
fi
name="$(basename "$jar")"

if [[ "$restore" == latest ]]; then
  [[ -n "$job_id" ]] || die "--restore latest needs --job-id"
  best=-1
  for d in "$FLINK_RUN_DIR/checkpoints/$job_id"/chk-*; do
    n="${d##*/chk-}"
    # Only a checkpoint with _metadata completed; failed ones leave empty directories.
    if [[ -f "$d/_metadata" && "$n" =~ ^[0-9]+$ ]] && ((n > best)); then
      best=$n
      restore="$d"
    fi
  done
  [[ "$restore" != latest ]] || restore=""
  [[ -n "$restore" ]] || die "no retained checkpoint under $FLINK_RUN_DIR/checkpoints/$job_id"
  log "restoring from $restore"
fi

# request METHOD PATH [curl args...]: prints the body; dies with Flink's error text on non-2xx.
request() {
  local method="$1" path="$2" out code
  shift 2
  out="$(mktemp)"
  code="$(curl -sS -o "$out" -w '%{http_code}' -X "$method" "$@" "$url$path")" || {
    rm -f "$out"
    die "$method $path: request failed"
  }
  if [[ "$code" != 2* ]]; then
    local body
    # Flink's errors are stack traces: keep the exception lines (…, Caused by: …), drop frames.
    body="$(jq -r '.errors // [] | join("\n")' "$out" 2>/dev/null | grep -vE $'^\t(at |\\.\\.\\. )' | head -n 12 || head -c 2000 "$out")"
    rm -f "$out"
    die "$method $path: HTTP $code: $body"
  fi
  cat "$out"
  rm -f "$out"
}

# Uploads are serialised, so concurrent submissions upload a jar once.
mkdir -p "$FLINK_RUN_DIR"
exec {upload_fd}>"$FLINK_RUN_DIR/.upload.lock"
flock -w "${FLINK_LOCK_TIMEOUT:-600}" "$upload_fd" || die "timed out waiting for $FLINK_RUN_DIR/.upload.lock"
jar_id="$(request GET /jars | jq -r --arg n "$name" '[.files[] | select(.name == $n)][0].id // empty')"
if [[ -z "$jar_id" ]]; then
  log "uploading $name ($(($(stat -c %s "$jar") / 1048576)) MB)"
  jar_id="$(request POST /jars/upload -H 'Expect:' -F "jarfile=@$jar;type=application/x-java-archive" |
    jq -r '.filename' | xargs basename)"
  [[ -n "$jar_id" ]] || die "upload of $jar returned no filename"
  # Earlier builds of the same jar ("<name>-<hash>.jar") are of no use any more.
  for old in $(request GET /jars | jq -r --arg n "$name" --arg p "${name%-*}-" \
    '.files[] | select((.name | startswith($p)) and .name != $n) | .id'); do
    curl -s -o /dev/null -X DELETE "$url/jars/$old" || true
  done
fi
exec {upload_fd}>&-

body="$(jq -n --arg jid "$job_id" --arg sp "$restore" --argjson anr "$allow_nr" \
  '{programArgsList: $ARGS.positional}
   + (if $jid != "" then {jobId: $jid} else {} end)
   + (if $sp != "" then {savepointPath: $sp, allowNonRestoredState: $anr} else {} end)' \
  --args -- "${args[@]}")"
jid="$(request POST "/jars/$jar_id/run" -H 'Content-Type: application/json' -d "$body" | jq -r '.jobid')"
[[ -n "$jid" && "$jid" != null ]] || die "run returned no job id"

# give_up cancels the job we submitted (nobody else knows its id) and fails with Flink's reason.
give_up() {
  local root
  root="$(curl -sf --max-time 2 "$url/jobs/$jid/exceptions" |
    jq -r '.exceptionHistory.entries[0].stacktrace // .["root-exception"] // empty' 2>/dev/null |
    grep -vE $'^\t(at |\\.\\.\\. )' | head -n 6 || true)"
  curl -s -o /dev/null -X PATCH "$url/jobs/$jid?mode=cancel" || true
  die "job $jid $1; cancelled it. ${root:+Flink says: $root}"
}

if $wait; then
  deadline=$(($(date +%s) + ${FLINK_SUBMIT_TIMEOUT:-60}))
  while :; do
    st="$(curl -sf --max-time 2 "$url/jobs/$jid" | jq -r '[.state, ([.vertices[].status] | unique | join(","))] | join(" ")' 2>/dev/null || true)"
    case "$st" in
      "RUNNING RUNNING") break ;;
      FAILED* | CANCELED* | FINISHED*) give_up "ended as ${st%% *} during start" ;;
    esac
    (($(date +%s) < deadline)) || give_up "not running after ${FLINK_SUBMIT_TIMEOUT:-60}s (state: $st; free slots: $(curl -sf --max-time 2 "$url/overview" | jq -r '."slots-available"' || echo '?'))"
    sleep 0.3
  done
fi
echo "$jid"
