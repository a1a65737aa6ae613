#!/usr/bin/env bash
# Print the running Jaeger's env as export lines:  eval "$(testenv/jaeger/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

print_env Jaeger jaeger
