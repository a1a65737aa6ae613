#!/usr/bin/env bash
# Print the running cluster's env as export lines:  eval "$(testenv/flink/env.sh)"
# Fails when no cluster is running (start it with testenv/flink/start.sh).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f "$FLINK_ENV_FILE" ]] || die "no Flink cluster running ($FLINK_ENV_FILE missing); run testenv/flink/start.sh"
sed 's/^/export /' "$FLINK_ENV_FILE"
