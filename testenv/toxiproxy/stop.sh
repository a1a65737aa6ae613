#!/usr/bin/env bash
# Stop the server start.sh started: only the pid in testenv/.run/toxiproxy/pid, and only if it
# still is our toxiproxy-server (our cached binary, our -host/-port). TERM, wait, then KILL.
# Its proxies go with it; the binary in testenv/.cache/toxiproxy is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_service "${TOXIPROXY_STOP_TIMEOUT:-10}"
