#!/usr/bin/env bash
# Build the cached Jaeger binary (testenv/tools/jaeger/go.mod) if it is missing or stale; a no-op
# otherwise. `make test` runs it at a low priority beside the first suites, so the Go tests that
# need Jaeger (their start.sh waits on the same build lock) do not spend minutes building it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ensure_binary
