#!/usr/bin/env bash
# Print the running server's env as export lines:  eval "$(testenv/toxiproxy/env.sh)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

print_env toxiproxy toxiproxy
