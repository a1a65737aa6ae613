#!/usr/bin/env bash
# Stop the server start.sh started: only the pid in testenv/.run/prometheus/pid, and only if it
# still is our prometheus (our config file on its command line). TERM, wait, then KILL.
# The TSDB under testenv/.run/prometheus/data is kept.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_service "${PROMETHEUS_STOP_TIMEOUT:-20}"
