# shellcheck shell=bash
# Process and port helpers shared by the testenv/*/lib.sh scripts; sourced, never run.
# Each service's lib.sh defines log() before sourcing this.

# free_port prints a free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# port_free reports whether PORT can be bound on 127.0.0.1 now. SO_REUSEADDR as Netty and the
# JDK set it on Linux: connections in TIME_WAIT after a killed process do not block the port.
port_free() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
PY
}

# stop_pid PID SECONDS WHAT sends TERM to PID (which the caller has checked is ours), waits up
# to SECONDS for it to exit, then KILLs it and waits.
stop_pid() {
  local pid="$1" secs="$2" what="$3" i
  log "stopping $what (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    [[ -d "/proc/$pid" ]] || return 0
    sleep 0.1
  done
  log "$what (pid $pid) ignored TERM; sending KILL"
  kill -KILL "$pid" 2>/dev/null || true
  while [[ -d "/proc/$pid" ]]; do sleep 0.1; done
}
