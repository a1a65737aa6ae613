#!/usr/bin/env bash
# The real desktop window under Xvfb: starts the app on a fresh data dir, waits
# for its window, takes a screenshot and checks it shows the app, not a blank
# frame. Stops only what it started. CE_SMOKE_BIN runs another binary (the packaged one,
# testenv/package-test.sh), CE_SMOKE_NAME names its screenshot, CE_SMOKE_HOME runs it without
# --data-dir as a user whose home is there (no XDG variables: the OS's default places).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="${CE_SMOKE_BIN:-$root/build/bin/checkpoint-explorer}"
out="$root/test-results"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data"
export CE_SMOKE_HOME="${CE_SMOKE_HOME:-}"
export CE_SMOKE_BIN="$bin" CE_SMOKE_DATA="$work/data" CE_SMOKE_SHOT="$out/${CE_SMOKE_NAME:-desktop-window}.png"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -euo pipefail
  if [ -n "$CE_SMOKE_HOME" ]; then
    env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME HOME="$CE_SMOKE_HOME" \
      "$CE_SMOKE_BIN" >"$CE_SMOKE_DATA.log" 2>&1 &
  else
    "$CE_SMOKE_BIN" --data-dir "$CE_SMOKE_DATA" >"$CE_SMOKE_DATA.log" 2>&1 &
  fi
  pid=$!
  trap "kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true" EXIT
  win=""
  for _ in $(seq 1 120); do
    win=$(xdotool search --onlyvisible --name "^Checkpoint Explorer$" 2>/dev/null | head -1 || true)
    [ -n "$win" ] && break
    kill -0 $pid 2>/dev/null || { cat "$CE_SMOKE_DATA.log" >&2; echo "desktop: the app exited" >&2; exit 1; }
    sleep 0.5
  done
  [ -n "$win" ] || { cat "$CE_SMOKE_DATA.log" >&2; echo "desktop: no window titled Checkpoint Explorer" >&2; exit 1; }
  # Wait until the page has drawn: the screenshot stops being uniform.
  for _ in $(seq 1 60); do
    import -window root "$CE_SMOKE_SHOT"
    sd=$(convert "$CE_SMOKE_SHOT" -colorspace Gray -format "%[fx:standard_deviation]" info:)
    colors=$(convert "$CE_SMOKE_SHOT" -format "%k" info:)
    if awk -v s="$sd" -v c="$colors" "BEGIN{exit !(s > 0.05 && c > 50)}"; then
      echo "desktop: window $win drawn (gray stddev $sd, $colors colours), screenshot $CE_SMOKE_SHOT"
      # The program name the desktop entry matches (StartupWMClass).
      xprop -id "$win" WM_CLASS | grep -q "\"checkpoint-explorer\"" || { xprop -id "$win" WM_CLASS >&2; echo "desktop: WM_CLASS is not checkpoint-explorer" >&2; exit 1; }
      # The native menu: File → Quit by its accelerator closes the app.
      xdotool windowfocus --sync "$win" 2>/dev/null || true
      xdotool key --clearmodifiers ctrl+q
      for _ in $(seq 1 20); do
        kill -0 $pid 2>/dev/null || { echo "desktop: Ctrl+Q (File → Quit) closed the app"; exit 0; }
        sleep 0.5
      done
      echo "desktop: Ctrl+Q (File → Quit) did not close the app" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "desktop: the window stayed blank (stddev $sd, $colors colours)" >&2
  cat "$CE_SMOKE_DATA.log" >&2
  exit 1
'
echo "1 passed, 0 failed"
