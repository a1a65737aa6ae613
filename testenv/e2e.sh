#!/usr/bin/env bash
# Browser end-to-end test: starts `checkpoint-explorer serve` on a fresh data dir
# (the bundled sample opens on first run), then runs the Playwright tests in
# Debian's Chromium against it. Stops only the server it started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/build/bin/checkpoint-explorer"
work=$(mktemp -d)
mkdir -p "$root/test-results"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
"$bin" serve --data-dir "$work/data" --addr 127.0.0.1:0 --no-collect >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$work/serve.out" || true)
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/serve.err" >&2; echo "e2e: serve exited" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.err" >&2; echo "e2e: serve printed no URL" >&2; exit 1; }
echo "e2e: serving at ${url%%\?*}"
cd "$root/frontend"
CE_URL="$url" CE_DATA_DIR="$work/data" CE_BIN="$bin" node --test --test-reporter=spec e2e/
