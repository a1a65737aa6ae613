# shellcheck shell=bash
# What the scripts that drive the real desktop window under Xvfb share (desktop-smoke.sh,
# desktop-drop.sh); sourced, never run. They source it, call window_work, and have the shell that
# xvfb-run starts source it again ("$CE_WINDOW_LIB") for start_app and wait_window.

# window_work sets root (the checkout), bin (CE_SMOKE_BIN, else the build's binary), out
# (test-results/, made) and work (a temporary directory, removed on exit); CE_WINDOW_LIB is this
# file, for the shell under Xvfb.
window_work() {
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  # shellcheck disable=SC2034 # the sourcing script's
  bin="${CE_SMOKE_BIN:-$root/build/bin/checkpoint-explorer}"
  out="$root/test-results"
  mkdir -p "$out"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  export CE_WINDOW_LIB="$root/testenv/desktop/window.sh"
}

# start_app LOG CMD... starts the app (CMD) in the background, its output in LOG; APP_PID is its
# pid, which is killed when the shell exits.
start_app() {
  local log="$1"
  shift
  "$@" >"$log" 2>&1 &
  APP_PID=$!
  # shellcheck disable=SC2064 # the pid is known now
  trap "kill $APP_PID 2>/dev/null || true; wait $APP_PID 2>/dev/null || true" EXIT
}

# wait_window sets WIN to the app's window once one titled Checkpoint Explorer shows (60 s at
# most); when the app exits first or none shows, it calls fail (the script's) with why.
wait_window() {
  WIN=""
  for _ in $(seq 1 120); do
    WIN=$(xdotool search --onlyvisible --name "^Checkpoint Explorer$" 2>/dev/null | head -1 || true)
    [ -n "$WIN" ] && return 0
    kill -0 "$APP_PID" 2>/dev/null || fail "the app exited"
    sleep 0.5
  done
  fail "no window titled Checkpoint Explorer"
}
