# shellcheck shell=bash
# Shared by the testenv/prometheus scripts; sourced, never run.
#
# Layout (git-ignored):
#   testenv/.run/prometheus/   prometheus.yml, data/ (TSDB), prometheus.log, pid, port, env

# shellcheck source=../service.sh
source "$(dirname "${BASH_SOURCE[0]}")/../service.sh"
service prometheus "${PROM_RUN_DIR:-$TESTENV_DIR/.run/prometheus}" "${PROM_LOCK_TIMEOUT:-300}"
PROM_BIN="${PROM_BIN:-/usr/bin/prometheus}"
PROM_CONFIG="$SVC_RUN_DIR/prometheus.yml"
PROM_DATA="$SVC_RUN_DIR/data"
PROM_PORT_FILE="$SVC_RUN_DIR/port"

# running_pid prints the pid of our server if the recorded process is alive and really is ours
# (the prometheus binary with our config file on its command line): a system prometheus is
# never reported.
running_pid() { recorded_pid "$SVC_PID_FILE" "" prometheus "--config.file=$PROM_CONFIG"; }

# ours reports whether the server answering on PORT is the one we started: its TSDB path is our
# data dir. A Debian system service or anything else on that port is never taken for ours.
ours() {
  local port="$1" path
  path="$(curl -sf --max-time 2 "http://127.0.0.1:$port/api/v1/status/flags" 2>/dev/null |
    jq -r '.data."storage.tsdb.path" // empty' 2>/dev/null)" || return 1
  [[ "${path%/}" == "${PROM_DATA%/}" ]]
}
