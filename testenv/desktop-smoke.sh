#!/usr/bin/env bash
# The real desktop window under Xvfb: starts the app on a fresh data dir, waits
# for its window, takes a screenshot and checks it shows the app, not a blank
# frame. Stops only what it started. CE_SMOKE_BIN runs another binary (the packaged one,
# testenv/package-test.sh), CE_SMOKE_NAME names its screenshot, CE_SMOKE_HOME runs it without
# --data-dir as a user whose home is there (no XDG variables: the OS's default places).
set -euo pipefail
# shellcheck source=desktop/window.sh
source "$(dirname "$0")/desktop/window.sh"
window_work
mkdir -p "$work/data"
export CE_SMOKE_HOME="${CE_SMOKE_HOME:-}"
export CE_SMOKE_BIN="$bin" CE_SMOKE_DATA="$work/data" CE_SMOKE_SHOT="$out/${CE_SMOKE_NAME:-desktop-window}.png"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -euo pipefail
  source "$CE_WINDOW_LIB"
  fail() { cat "$CE_SMOKE_DATA.log" >&2; echo "desktop: $*" >&2; exit 1; }
  if [ -n "$CE_SMOKE_HOME" ]; then
    start_app "$CE_SMOKE_DATA.log" env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_STATE_HOME -u XDG_CACHE_HOME \
      HOME="$CE_SMOKE_HOME" "$CE_SMOKE_BIN"
  else
    start_app "$CE_SMOKE_DATA.log" "$CE_SMOKE_BIN" --data-dir "$CE_SMOKE_DATA"
  fi
  wait_window
  # Wait until the page has drawn: the screenshot stops being uniform.
  for _ in $(seq 1 60); do
    import -window root "$CE_SMOKE_SHOT"
    sd=$(convert "$CE_SMOKE_SHOT" -colorspace Gray -format "%[fx:standard_deviation]" info:)
    colors=$(convert "$CE_SMOKE_SHOT" -format "%k" info:)
    if awk -v s="$sd" -v c="$colors" "BEGIN{exit !(s > 0.05 && c > 50)}"; then
      echo "desktop: window $WIN drawn (gray stddev $sd, $colors colours), screenshot $CE_SMOKE_SHOT"
      # The program name the desktop entry matches (StartupWMClass).
      xprop -id "$WIN" WM_CLASS | grep -q "\"checkpoint-explorer\"" || { xprop -id "$WIN" WM_CLASS >&2; echo "desktop: WM_CLASS is not checkpoint-explorer" >&2; exit 1; }
      # The native menu: File → Quit by its accelerator closes the app.
      xdotool windowfocus --sync "$WIN" 2>/dev/null || true
      xdotool key --clearmodifiers ctrl+q
      for _ in $(seq 1 20); do
        kill -0 $APP_PID 2>/dev/null || { echo "desktop: Ctrl+Q (File → Quit) closed the app"; exit 0; }
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
