#!/usr/bin/env bash
# Print the running server's env as export lines:  eval "$(testenv/toxiproxy/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ -f "$TOXI_ENV_FILE" ]] && running_pid >/dev/null ||
  die "no test toxiproxy running; run testenv/toxiproxy/start.sh"
sed 's/^/export /' "$TOXI_ENV_FILE"
