#!/usr/bin/env bash
# Print the running server's env as export lines:  eval "$(testenv/prometheus/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f "$PROM_ENV_FILE" ]] && running_pid >/dev/null ||
  die "no test Prometheus running; run testenv/prometheus/start.sh"
sed 's/^/export /' "$PROM_ENV_FILE"
