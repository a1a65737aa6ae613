#!/usr/bin/env bash
# Print the running Jaeger's env as export lines:  eval "$(testenv/jaeger/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f "$JAEGER_ENV_FILE" ]] && running_pid >/dev/null ||
  die "no test Jaeger running; run testenv/jaeger/start.sh"
sed 's/^/export /' "$JAEGER_ENV_FILE"
