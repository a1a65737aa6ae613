#!/usr/bin/env bash
# A capture dropped on the real window (Xvfb, the desktop binary): a file that is not a capture
# shows its error in the window, and a capture opens. A GTK drag source (desktop/dragsource.py,
# Debian's python3-gi) offers the file; xdotool presses on it, moves onto the app's window and
# releases, so the drop goes through X's drag-and-drop protocol, WebKitGTK and Wails' file-drop
# handler as a user's would. What the window shows is read back with OCR (tesseract). Stops only
# what it started.
set -euo pipefail
# shellcheck source=desktop/window.sh
source "$(dirname "$0")/desktop/window.sh"
window_work
mkdir -p "$work/data" "$work/drop"
# Not a capture: a PNG's first bytes.
printf '\x89PNG\r\n\x1a\n0000000000000000' >"$work/drop/screenshot.png"
cp "$root/app/sample/flink-knobs.ckpt.gz" "$work/drop/colleague.ckpt.gz"
export CE_BIN="$bin" CE_WORK="$work" CE_OUT="$out" CE_DRAG="$root/testenv/desktop/dragsource.py"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  set -euo pipefail
  source "$CE_WINDOW_LIB"
  fail() { echo "desktop-drop: $*" >&2; echo "--- app log" >&2; tail -20 "$CE_WORK/app.log" >&2; exit 1; }
  start_app "$CE_WORK/app.log" "$CE_BIN" --data-dir "$CE_WORK/data"
  wait_window
  # ocr NAME GEOMETRY...: the text of those parts of the screen (the top bar 1280x60+0+25, the
  # corner toasts show in 660x230+620+570), the screenshot kept as test-results/drop-NAME.png.
  # Scaled up twice: tesseract reads UI-sized text better; crops keep it quick.
  ocr() {
    local name=$1
    shift
    import -window root "$CE_OUT/drop-$name.png"
    ocr_file "$CE_OUT/drop-$name.png" "$@"
  }
  ocr_file() {
    local file=$1
    shift
    for g in "$@"; do
      convert "$file" -crop "$g" +repage -resize 200% -colorspace Gray "$CE_WORK/ocr.png"
      tesseract "$CE_WORK/ocr.png" - 2>/dev/null | tr -s " \n" " "
    done
  }
  # frames NAME: screenshots every 0.3 s for 8 s. A toast shows for 5 s (10 s an error): taking a
  # screenshot is quick even on a busy machine, reading one is not, so the screen is taken first
  # and read after (seen_in).
  frames() {
    rm -f "$CE_WORK/frame-$1-"*.png
    for i in $(seq 10 35); do
      import -window root "$CE_WORK/frame-$1-$i.png"
      sleep 0.3
    done
  }
  # seen_in NAME PATTERN GEOMETRY...: whether a frame of NAME shows PATTERN (a case pattern) in
  # those parts; the first that does is kept as test-results/drop-NAME.png. Sets text.
  seen_in() {
    local name=$1 pattern=$2 f
    shift 2
    for f in "$CE_WORK/frame-$name-"*.png; do
      text=$(ocr_file "$f" "$@")
      # shellcheck disable=SC2254
      case "$text" in $pattern) cp "$f" "$CE_OUT/drop-$name.png"; return 0 ;; esac
    done
    return 1
  }
  bar=1280x60+0+25 toast=660x230+620+570
  # The page has drawn once its first screen says what to do.
  for _ in $(seq 1 60); do
    text=$(ocr start "$bar")
    case "$text" in *Checkpoint*) break ;; esac
    sleep 0.5
  done
  case "$text" in *Checkpoint*) ;; *) fail "the window never showed its first screen (OCR: $text)" ;; esac
  eval "$(xdotool getwindowgeometry --shell "$WIN")"
  tx=$((X + WIDTH / 2)) ty=$((Y + HEIGHT / 2))
  # drop FILE: drag FILE from a drag source onto the middle of the app window.
  drop() {
    /usr/bin/python3 "$CE_DRAG" "$1" >"$CE_WORK/drag.log" 2>&1 &
    local src=$! sx="" sy=""
    for _ in $(seq 1 40); do
      read -r word sx sy <"$CE_WORK/drag.log" 2>/dev/null || true
      [ "${word:-}" = ready ] && break
      sleep 0.25
    done
    [ "${word:-}" = ready ] || { cat "$CE_WORK/drag.log" >&2; fail "the drag source did not start"; }
    xdotool mousemove "$sx" "$sy" mousedown 1
    sleep 0.3
    # Past GTK'"'"'s drag threshold in small steps, then onto the window, and release.
    for i in $(seq 1 10); do
      xdotool mousemove $((sx + (tx - sx) * i / 10)) $((sy + (ty - sy) * i / 10))
      sleep 0.1
    done
    sleep 0.5
    xdotool mouseup 1
    drag_source=$src
  }
  # dropped FILE: the drag source saw its drag end in a drop (it exits then); called after the
  # window was read, so that a toast is read before it goes.
  dropped() {
    for _ in $(seq 1 40); do
      kill -0 $drag_source 2>/dev/null || break
      sleep 0.25
    done
    kill $drag_source 2>/dev/null || true
    wait $drag_source 2>/dev/null || true
    grep -q "^dropped" "$CE_WORK/drag.log" || { cat "$CE_WORK/drag.log" >&2; fail "the drag of $1 did not end in a drop"; }
  }

  drop "$CE_WORK/drop/screenshot.png"
  frames error
  dropped screenshot.png
  seen_in error "*Could not open screenshot.png*not a capture*" "$toast" ||
    fail "a dropped PNG did not show its error in the window (OCR of the last frame: $text)"
  echo "desktop-drop: a dropped PNG shows \"Could not open screenshot.png: … not a capture file …\" (test-results/drop-error.png)"

  drop "$CE_WORK/drop/colleague.ckpt.gz"
  frames opened
  dropped colleague.ckpt.gz
  # The top bar first (the capture is the source shown), then the toast.
  seen_in opened "*capture: *Opened colleague.ckpt.gz*" "$bar" "$toast" ||
    fail "a dropped capture did not open and show itself (OCR of the last frame: $text)"
  echo "desktop-drop: a dropped capture opens and the window shows it (\"Opened colleague.ckpt.gz: … checkpoints\", test-results/drop-opened.png)"
'
echo "2 passed, 0 failed"
