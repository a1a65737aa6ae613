#!/usr/bin/env bash
# Submit the Iceberg sink job to a Flink 1.20 cluster over REST (POST /jars/upload once per jar
# version, POST /jars/:id/run) and print its job id. Waits until every vertex is RUNNING.
#
# Usage: testenv/iceberg/submit.sh [script options] --warehouse PATH [job args...]
#   script options (as testenv/flink/submit.sh):
#     --job-id ID          submit with this job id (32 hex digits), e.g. to continue a job
#     --restore PATH       start from a savepoint / retained checkpoint; "latest" = the newest
#                          retained checkpoint of --job-id under the cluster's checkpoints/
#     --allow-non-restored allow state that does not map to the job
#     --no-wait            return as soon as Flink accepted the job
#   job args (see README.md): --warehouse PATH --table NS.NAME --rate N --parallelism N
#     --writer-parallelism N --files-per-commit N --commit-delay-ms N --format parquet|avro
#     --sink flink|v2 --interval-ms N --checkpoint-timeout-ms N --min-pause-ms N
#     --tolerable-failures N --record-bytes N --name NAME
# The cluster: FLINK_RUN_DIR (default testenv/.run/flink-1.20.5, the shared 1.20 cluster of
# `FLINK_VERSION=1.20.5 testenv/flink/start.sh`) or FLINK_REST_URL.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

url="$(rest_url)"
jar="$("$ICEBERG_SCRIPTS_DIR/fetch.sh")"

# The cluster must run 1.20: the job jar's Iceberg runtime is built for it.
v="$(curl -sf --max-time 5 "$url/config" | jq -r '."flink-version" // empty')" || die "GET $url/config failed"
[[ "$v" == 1.20.* ]] || die "the cluster at $url runs Flink ${v:-?}, the Iceberg job needs 1.20"

# Uploading, running and waiting are the knob job's (script options included).
export FLINK_VERSION FLINK_RUN_DIR
exec "$FLINK_SCRIPTS_DIR/submit.sh" --jar "$jar" "$@"
