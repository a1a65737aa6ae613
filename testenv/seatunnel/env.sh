#!/usr/bin/env bash
# Print the running node's env as export lines:  eval "$(testenv/seatunnel/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f "$SEATUNNEL_ENV_FILE" ]] || die "no SeaTunnel node running ($SEATUNNEL_ENV_FILE missing); run testenv/seatunnel/start.sh"
sed 's/^/export /' "$SEATUNNEL_ENV_FILE"
