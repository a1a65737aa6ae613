# shellcheck shell=bash
# Shared by the testenv/jaeger scripts; sourced, never run.
#
# Layout (git-ignored):
#   testenv/.cache/jaeger/   jaeger (built from testenv/tools/jaeger/go.mod), its build key
#   testenv/.run/jaeger/     config.yaml, jaeger.log, pid, ports, env
#
# JAEGER_RUN_DIR runs a separate instance; JAEGER_CACHE_DIR another binary cache.

# shellcheck source=../service.sh
source "$(dirname "${BASH_SOURCE[0]}")/../service.sh"
service jaeger "${JAEGER_RUN_DIR:-$TESTENV_DIR/.run/jaeger}" "${JAEGER_LOCK_TIMEOUT:-1800}"
service_binary "${JAEGER_CACHE_DIR:-$TESTENV_DIR/.cache/jaeger}" jaeger
JAEGER_TOOLS_DIR="$TESTENV_DIR/tools/jaeger"
JAEGER_MOD="github.com/jaegertracing/jaeger"
JAEGER_CONF="$SVC_RUN_DIR/config.yaml"
JAEGER_PORTS_FILE="$SVC_RUN_DIR/ports"

# pinned_version prints the Jaeger version testenv/tools/jaeger/go.mod pins (e.g. v1.75.0).
pinned_version() { go_pinned_version "$JAEGER_TOOLS_DIR" "$JAEGER_MOD"; }

# ensure_binary builds jaeger (cmd/jaeger: the all-in-one collector + query, Jaeger v2 on the
# OpenTelemetry Collector) into the cache unless the one there is from the same go.mod, go.sum
# and Go version. The first build takes several minutes on 2 cores.
ensure_binary() {
  ensure_go_binary "$JAEGER_TOOLS_DIR" "$JAEGER_MOD" "$JAEGER_MOD/cmd/jaeger" "; the first build takes minutes"
}

# running_pid prints the pid of our server if the recorded process is alive and really is ours
# (our cached binary, with our run dir's config on its command line).
running_pid() { recorded_pid "$SVC_PID_FILE" "$SVC_BIN" " --config $JAEGER_CONF "; }

# ours reports whether our pid holds the query and OTLP sockets and the query API answers.
ours() {
  local pid p
  pid="$(running_pid)" || return 1
  for p in "$QUERY_PORT" "$OTLP_GRPC_PORT" "$OTLP_HTTP_PORT"; do
    [[ -n "$p" ]] && listens "$pid" "$p" || return 1
  done
  curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$QUERY_PORT/api/services"
}
