#!/usr/bin/env bash
# Submit the streaming test job to the node start.sh started and print its id (stdout). Also
# records it as SEATUNNEL_JOB_ID in testenv/.run/seatunnel/env and the config sent in
# testenv/.run/seatunnel/jobs/<id>.json.
#
#   FakeSource (SEATUNNEL_ROWS rows per split; a reader reads one split per
#   max(SEATUNNEL_READ_INTERVAL_MS, ~1 s)) → [Sql pass-through transform] → Console sink
#
# The Sql transform is there on 2.3.8 only: the 2.3.13 starter has no transforms, and the 2.3.8
# transforms jar does not load in it.
#
# With the defaults each of the 2 readers emits 100 rows a second (200 rows/s in all) for about
# 17 minutes, then idles; checkpoints go on either way.
#
# Knobs (environment):
#   SEATUNNEL_JOB_NAME               job name (default ce-knob)
#   SEATUNNEL_PARALLELISM            parallelism (default 2)
#   SEATUNNEL_CHECKPOINT_INTERVAL_MS checkpoint.interval (default 1500)
#   SEATUNNEL_CHECKPOINT_TIMEOUT_MS  checkpoint.timeout (default 20000). Set it below the barrier's
#                                    delay behind the slow sink (e.g. 300 with SEATUNNEL_SLOW_MS=50)
#                                    and checkpoints expire: close reason CHECKPOINT_EXPIRED.
#   SEATUNNEL_SLOW_MS                Console log.print.delay.ms: the sink sleeps this long per row,
#                                    so the queue ahead of it fills (backpressure on the edge into
#                                    the sink) and barriers queue behind rows. Default 0.
#   SEATUNNEL_ROWS                   rows per split (default 100; FakeSource row.num is the total,
#                                    SEATUNNEL_ROWS * SEATUNNEL_SPLITS, spread over the splits)
#   SEATUNNEL_SPLITS                 FakeSource split.num (default 2000)
#   SEATUNNEL_READ_INTERVAL_MS       FakeSource split.read-interval: pause between splits (default 100)
#   SEATUNNEL_PIPELINES              1 (default) or 2: two independent FakeSource → Console chains,
#                                    which Zeta runs (and checkpoints) as two pipelines
#   SEATUNNEL_OBSERVABILITY          1 to set env engine.observability.enabled (SeaTunnel with
#                                    PR #10572; default: on for versions newer than 2.3.13)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

url="$(rest_url)"
version="$(curl -sf --max-time 5 "$url/overview" | jq -r '.projectVersion // empty')" ||
  die "node at $url does not answer /overview"
obs="${SEATUNNEL_OBSERVABILITY:-}"
if [[ -z "$obs" ]]; then
  # PR #10572 (realtime metrics) is newer than 2.3.13.
  obs=0
  if [[ "$(printf '%s\n%s\n' "$version" 2.3.13 | sort -V | tail -n1)" != 2.3.13 ]]; then obs=1; fi
fi

transform=0
if [[ "$(printf '%s\n%s\n' "$version" 2.3.13 | sort -V | head -n1)" != 2.3.13 ]]; then transform=1; fi

config="$(jq -n \
  --argjson transform "$transform" \
  --argjson pipelines "${SEATUNNEL_PIPELINES:-1}" \
  --arg name "${SEATUNNEL_JOB_NAME:-ce-knob}" \
  --argjson par "${SEATUNNEL_PARALLELISM:-2}" \
  --argjson interval "${SEATUNNEL_CHECKPOINT_INTERVAL_MS:-1500}" \
  --argjson timeout "${SEATUNNEL_CHECKPOINT_TIMEOUT_MS:-20000}" \
  --argjson slow "${SEATUNNEL_SLOW_MS:-0}" \
  --argjson rows "${SEATUNNEL_ROWS:-100}" \
  --argjson splits "${SEATUNNEL_SPLITS:-2000}" \
  --argjson readInterval "${SEATUNNEL_READ_INTERVAL_MS:-100}" \
  --argjson obs "$obs" '
  {
    env: ({
      "job.name": $name,
      "job.mode": "STREAMING",
      parallelism: $par,
      "checkpoint.interval": $interval,
      "checkpoint.timeout": $timeout
    } + (if $obs == 1 then {"engine.observability.enabled": true} else {} end)),
    source: [range($pipelines) as $i | {
      plugin_name: "FakeSource",
      result_table_name: "fake\($i)",
      "row.num": ($rows * $splits),
      "split.num": $splits,
      "split.read-interval": $readInterval,
      schema: {fields: {id: "bigint", name: "string", score: "int"}}
    }],
    transform: (if $transform == 1 then [range($pipelines) as $i | {
      plugin_name: "Sql",
      source_table_name: "fake\($i)",
      result_table_name: "passed\($i)",
      query: "select id, name, score from fake\($i)"
    }] else [] end),
    sink: [range($pipelines) as $i | {
      plugin_name: "Console",
      source_table_name: (if $transform == 1 then "passed\($i)" else "fake\($i)" end),
      "log.print.data": false,
      "log.print.delay.ms": $slow
    }]
  }')"

resp="$(curl -sS --max-time 30 -X POST -H 'Content-Type: application/json' \
  --data "$config" "$url/submit-job?jobName=${SEATUNNEL_JOB_NAME:-ce-knob}")" ||
  die "POST $url/submit-job failed"
id="$(jq -r '.jobId // empty' <<<"$resp" 2>/dev/null || true)"
[[ -n "$id" && "$id" != null ]] || die "submit-job answered without a jobId: $resp"
mkdir -p "$SEATUNNEL_RUN_DIR/jobs"
printf '%s\n' "$config" >"$SEATUNNEL_RUN_DIR/jobs/$id.json"
if [[ -f "$SEATUNNEL_ENV_FILE" ]]; then
  with_lock "$SEATUNNEL_RUN_DIR/.lock"
  { grep -v '^SEATUNNEL_JOB_ID=' "$SEATUNNEL_ENV_FILE" || true; echo "SEATUNNEL_JOB_ID=$id"; } >"$SEATUNNEL_ENV_FILE.tmp"
  mv "$SEATUNNEL_ENV_FILE.tmp" "$SEATUNNEL_ENV_FILE"
fi
log "submitted job $id (${SEATUNNEL_JOB_NAME:-ce-knob}, observability=$obs)"
echo "$id"
