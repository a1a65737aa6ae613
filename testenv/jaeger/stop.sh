#!/usr/bin/env bash
# Stop the Jaeger start.sh started: only the pid in testenv/.run/jaeger/pid, and only if it still
# is our jaeger (our cached binary, our config). TERM, wait, then KILL. Its in-memory traces go
# with it; the binary in testenv/.cache/jaeger is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_service "${JAEGER_STOP_TIMEOUT:-10}"
