# shellcheck shell=bash
# Shared by the testenv/toxiproxy scripts; sourced, never run.
#
# Layout (git-ignored):
#   testenv/.cache/toxiproxy/   toxiproxy-server (built from testenv/tools/go.mod), its build key
#   testenv/.run/toxiproxy/     toxiproxy.log, pid, port, env
#
# TOXIPROXY_RUN_DIR runs a separate instance (the script test in testenv/toxienv does);
# TOXIPROXY_CACHE_DIR another binary cache.

# shellcheck source=../service.sh
source "$(dirname "${BASH_SOURCE[0]}")/../service.sh"
service toxiproxy "${TOXIPROXY_RUN_DIR:-$TESTENV_DIR/.run/toxiproxy}" "${TOXIPROXY_LOCK_TIMEOUT:-300}"
service_binary "${TOXIPROXY_CACHE_DIR:-$TESTENV_DIR/.cache/toxiproxy}" toxiproxy-server
TOOLS_DIR="$TESTENV_DIR/tools"
TOXI_PKG="github.com/Shopify/toxiproxy/v2"
TOXI_PORT_FILE="$SVC_RUN_DIR/port"
# What GET /version answers: the pinned version plus this suffix, stamped at build time, so a
# toxiproxy of someone else's is never taken for ours.
TOXI_VERSION_SUFFIX="+checkpoint-explorer"

# ensure_binary builds toxiproxy-server into the cache unless the one there is from the same
# go.mod, go.sum and Go version.
ensure_binary() {
  ensure_go_binary "$TOOLS_DIR" "$TOXI_PKG" "$TOXI_PKG/cmd/server" "" \
    -ldflags "-X $TOXI_PKG.Version={version}$TOXI_VERSION_SUFFIX"
}

# running_pid prints the pid of our server if the recorded process is alive and really is ours
# (our cached toxiproxy-server, with -host 127.0.0.1 -port PORT on its command line).
running_pid() {
  [[ -f "$TOXI_PORT_FILE" ]] || return 1
  recorded_pid "$SVC_PID_FILE" "$SVC_BIN" " -host 127.0.0.1 -port $(cat "$TOXI_PORT_FILE") "
}

# ours reports whether the server answering on PORT is the one we started: our pid holds the
# socket and /version answers with our build stamp.
ours() {
  local port="$1" pid version
  [[ -n "$port" ]] || return 1
  pid="$(running_pid)" || return 1
  listens "$pid" "$port" || return 1
  version="$(curl -sf --max-time 2 "http://127.0.0.1:$port/version" 2>/dev/null)" || return 1
  [[ "$version" == *"$TOXI_VERSION_SUFFIX" ]]
}
