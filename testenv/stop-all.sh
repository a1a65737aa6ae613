#!/usr/bin/env bash
# Stops every test service the scripts here started (and only those).
root=$(cd "$(dirname "$0")" && pwd)
for s in "$root"/*/stop.sh; do
  [ -x "$s" ] && "$s" >/dev/null 2>&1 || true
done
exit 0
