#!/usr/bin/env bash
# Record the REST answers the Flink client decodes, from a running test cluster, as seeds of
# the fuzz targets in backend/source/flink/fuzz_test.go. Bodies are kept as Flink sent them;
# only lists are cut (jq) to a few entries so that each file stays a few KB.
#
# Usage: testenv/flink/record-fuzz-seeds.sh JOBID [OUTDIR]
#   JOBID   a job of testenv/flink/submit.sh --fail-every 3 that has completed and failed
#           checkpoints (the knob job: its vertex names are looked up)
#   OUTDIR  default backend/source/flink/testdata/rest-<major.minor of the cluster>
# The REST URL is $FLINK_REST_URL, else the running test cluster's (FLINK_VERSION=1.20.5 for the
# 1.20 one).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

jid="${1:?usage: record-fuzz-seeds.sh JOBID [OUTDIR]}"
[[ "$jid" =~ ^[0-9a-f]{32}$ ]] || die "not a job id: $jid"
url="$(rest_url)"
version="$(curl -sf "$url/config" | jq -r '."flink-version"')" || die "no Flink at $url"
out="${2:-$TESTENV_DIR/../backend/source/flink/testdata/rest-${version%.*}}"
mkdir -p "$out"

# get NAME PATH [JQ]: the body of GET PATH (any status) into NAME.json, cut by JQ when given.
get() {
  local name="$1" path="$2" filter="${3:-}" tmp
  tmp="$(mktemp)"
  curl -sS -o "$tmp" "$url$path" || { rm -f "$tmp"; die "GET $path failed"; }
  if [[ -n "$filter" ]]; then
    jq -c "$filter" "$tmp" >"$out/$name.json" || { rm -f "$tmp"; die "GET $path: jq failed"; }
  else
    cp "$tmp" "$out/$name.json"
  fi
  rm -f "$tmp"
  log "$(wc -c <"$out/$name.json") bytes  $name.json  <- $path"
}

vertex() { curl -sf "$url/jobs/$jid" | jq -r --arg n "$1" '.vertices[] | select(.name == $n) | .id'; }
source_v="$(vertex "Source: Numbers")" snapshot_v="$(vertex "Slow Snapshot")" thrower_v="$(vertex "Snapshot Thrower")"
[[ -n "$source_v" && -n "$snapshot_v" && -n "$thrower_v" ]] || die "job $jid is not the knob job"
hist="$(curl -sf "$url/jobs/$jid/checkpoints")" || die "no checkpoints of $jid"
completed="$(jq -r '[.history[] | select(.status == "COMPLETED")][0].id // empty' <<<"$hist")"
failed="$(jq -r '[.history[] | select(.status == "FAILED")][0].id // empty' <<<"$hist")"
[[ -n "$completed" && -n "$failed" ]] || die "job $jid has no completed and failed checkpoint in its history yet"

# The newest three history entries hold a failed one with --fail-every 3.
get checkpoints "/jobs/$jid/checkpoints" '.history |= .[:3]'
get checkpoint-completed "/jobs/$jid/checkpoints/details/$completed"
get checkpoint-failed "/jobs/$jid/checkpoints/details/$failed"
get checkpoint-404 "/jobs/$jid/checkpoints/details/1"
get subtasks-completed "/jobs/$jid/checkpoints/details/$completed/subtasks/$snapshot_v"
get subtasks-failed "/jobs/$jid/checkpoints/details/$failed/subtasks/$thrower_v"
get checkpoint-config "/jobs/$jid/checkpoints/config"
get job "/jobs/$jid"
get jobs-overview /jobs/overview '.jobs |= .[:3]'
get overview /overview
get config /config
get metrics "/jobs/$jid/vertices/$source_v/subtasks/metrics?get=backPressuredTimeMsPerSecond,busyTimeMsPerSecond,idleTimeMsPerSecond&agg=max,avg"
get metric-names "/jobs/$jid/vertices/$snapshot_v/subtasks/metrics" '.[:25]'
get backpressure "/jobs/$jid/vertices/$snapshot_v/backpressure"
get logs /jobmanager/logs
